"""What is run: the pipelines Rewind knows, and what a person may set on them.

- ``specs``      declared pipelines: ``LLMNode``, ``ToolNode``, ``Pipeline``, ``Transition``,
                 ``chain``, ``parse_json_object``
- ``burr``       Burr apps registered unchanged: ``BurrApp`` (graph, entrypoint, initial
                 state), ``ActionSpec`` (reads, writes, runtime inputs of an action)
- ``routes``     the transitions out of a step in Burr's order, the step Burr runs next
                 (``next_step``), whether what is to come is known in advance (``is_linear``)
- ``registry``   ``get_pipeline(name)`` from ``settings.REWIND_PIPELINES``
- ``versions``   ``code_version(action)``: a hash over what can change a step (``code_parts``)
- ``domains``    ``Choice``, ``Number``, ``Text``, ``DataFile``: what an argument or input may be

May import: ``runs.engine.errors``, ``runs.lib.hashing``, Burr, Django settings. Never the rooms
that run a pipeline (a spec is built into a Burr action by ``execution``).
"""
