"""What the tests share besides conftest's fixtures: small Burr apps and declared pipelines
registered by dotted path (``runs.tests.helpers.<module>.<name>``; the ``db_worker`` and
``manage.py`` subprocesses tests start import them too, so a module here imports in a plain
Python process and does its work only when called), stubs of outside services (the Tavily
search stub), and the helper functions and fixtures more than one test file uses (the Burr
examples' fixtures, ``manage.py`` in a subprocess, the exported-test runner, the research runs'
readers, ...). No test lives here: pytest collects nothing from this package."""
