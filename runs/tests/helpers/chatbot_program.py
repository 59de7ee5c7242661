"""A user's own program (``PROGRAM``: the multi-modal chatbot Burr ships, built with the one
line ``.with_hooks(*rewind_hooks("chatbot"))`` and run two turns), as a script a test writes and
runs in a process of its own. Used by ``engine/execution/test_program_recording.py`` and
``engine/telemetry/test_otlp_export.py``.
"""

from __future__ import annotations

import textwrap

CHATBOT = "burr.examples.multi-modal-chatbot.application"

PROGRAM = textwrap.dedent(
    f"""
    import importlib

    from burr.core import ApplicationBuilder

    from runs.recording import rewind_hooks

    chatbot = importlib.import_module("{CHATBOT}")
    app = (
        ApplicationBuilder()
        .with_graph(chatbot.graph)
        .with_state(chat_history=[])
        .with_entrypoint("prompt")
        .with_hooks(*rewind_hooks("chatbot"))  # the one line
        .build()
    )
    app.run(halt_after=["response"], inputs={{"prompt": "What is the capital of France?"}})
    app.run(halt_after=["response"], inputs={{"prompt": "Write code to sort a list"}})
    print(app.state["chat_history"][-1]["type"])
    """
)
