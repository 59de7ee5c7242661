"""Export a run as a test: a pytest file and a JSON fixture that replay it offline.

The fixture holds exactly what the engine reads when it replays the run, and nothing of the
machine it came from: the rows of the run and of every run it descends from or inherits a
step from (their overrides apply again on a replay, DESIGN.md "Forks of forks"), its steps,
the Burr state row a fork starts from, and the LLM and tool cache entries its steps pinned
(``Node.cache_entries``: a replay reads exactly those). With ``against`` (usually the run's
parent) both runs are replayed and the fields their diff changes are asserted too: the
counterfactual itself becomes a test.

The test file needs Rewind installed (the ``runs`` package importable) and nothing else: it
builds a throwaway SQLite database in a child process, loads the fixture, replays through
``runs.engine.forking.replays`` / ``runs.engine.execution.runner`` with every socket refused, and compares
each step's output hash, the trajectory hash and the artifact hash with the recording. An
edited answer in the fixture fails it, naming the step.

- ``files``     ``ExportError``; ``ExportFiles`` (an export's two files, named after a stem),
  ``fixture_file``, ``write_export``, ``zip_export``: shared with a batch's suite
- ``fixture``   the fixture's tables (``fixture_tables``) and the columns each carries
- ``literals``  ``inline``: plain JSON data as Python literals in the test file
- ``harness``   ``HARNESS_*``: the parts every exported test file shares (a batch's suite too)
- ``template``  one run's test file around the harness: ``TEST_FILE``, ``TEST_RUN``, ``TEST_DIFF``
- ``build``     ``build_export``: one run's ``Export`` (and ``changed_fields`` of a diff)

Content that looks like a secret is carried masked, and the files say which steps that keeps
from replaying as recorded (``fixture``: ``fixture["masked"]``; ``build``: the test's docstring).

May import ``runs.models``, the rooms below ``analysis`` (``execution``), ``runs.engine.errors``,
``analysis.diff`` and ``calls.capture.redaction``; its modules import one another by their own
names, never this package.
Everything anything imports from ``runs.engine.analysis.export`` is re-exported here.
"""

from runs.engine.analysis.export.build import (
    FORMAT,
    Export,
    build_export,
    changed_fields,
    masked_note,
)
from runs.engine.analysis.export.files import (
    ExportError,
    ExportFiles,
    fixture_file,
    write_export,
    zip_export,
)
from runs.engine.analysis.export.fixture import (
    EDGE_FIELDS,
    LLM_FIELDS,
    NODE_FIELDS,
    RUN_FIELDS,
    STATE_FIELDS,
    TOOL_FIELDS,
    fixture_tables,
)
from runs.engine.analysis.export.harness import (
    HARNESS_CHILD,
    HARNESS_HEAD,
    HARNESS_MAIN,
    HARNESS_RUNNER,
)
from runs.engine.analysis.export.literals import _changed_literal, _expected_literal, inline
from runs.engine.analysis.export.template import TEST_DIFF, TEST_FILE, TEST_RUN

__all__ = [
    "EDGE_FIELDS",
    "FORMAT",
    "HARNESS_CHILD",
    "HARNESS_HEAD",
    "HARNESS_MAIN",
    "HARNESS_RUNNER",
    "LLM_FIELDS",
    "NODE_FIELDS",
    "RUN_FIELDS",
    "STATE_FIELDS",
    "TEST_DIFF",
    "TEST_FILE",
    "TEST_RUN",
    "TOOL_FIELDS",
    "Export",
    "masked_note",
    "ExportError",
    "ExportFiles",
    "_changed_literal",
    "_expected_literal",
    "build_export",
    "changed_fields",
    "fixture_file",
    "fixture_tables",
    "inline",
    "write_export",
    "zip_export",
]
