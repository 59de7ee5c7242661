"""The harness: the parts of an exported test file that every export shares (a run's test and
a batch's suite), as text. May import: nothing.
"""

# The parts of an exported test file that every export shares, in the order they stand in
# the file: the imports and where the fixture is (HARNESS_HEAD, then the export's own
# constants), the module fixture ``replayed`` that runs the child process (HARNESS_RUNNER, then
# the export's tests and checks), the child's environment, refused sockets and throwaway
# database loaded from the fixture (HARNESS_CHILD, then the export's ``replay_offline``) and
# the entry point of the child (HARNESS_MAIN). Each needs ``$fixture``, the fixture's name.
# A batch's suite (batches/suite.py) is built from the same parts.

HARNESS_HEAD = """from __future__ import annotations

import importlib.util
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "$fixture"
"""


HARNESS_RUNNER = '''TIMEOUT_SECONDS = 900
# The endpoint a provider client is pointed at: nothing answers there, and sockets are refused
# anyway. A call that misses the recorded answers fails its step instead of reaching anything.
NOWHERE = "http://127.0.0.1:9/v1"
KEPT = ("REWIND_DATA_DIR", "REWIND_DATA_FILE_MAX_BYTES")


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """What the offline replays produced (``replay_offline``, run in a child process)."""
    work = tmp_path_factory.mktemp("rewind-replay")
    result = work / "result.json"
    child = subprocess.run(
        [sys.executable, __file__, str(FIXTURE), str(result)],
        cwd=work,
        env=environment(work),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )
    if child.returncode != 0 or not result.exists():
        pytest.fail(
            f"the offline replay stopped (exit {child.returncode}):\\n{child.stderr[-6000:]}",
            pytrace=False,
        )
    return json.loads(result.read_text(encoding="utf-8"))
'''


HARNESS_CHILD = '''# --- the child process: a throwaway database, the fixture, the replays -------------------------


def environment(work: Path) -> dict[str, str]:
    """The child's environment: its own database and artifact folder, the pipelines the
    fixture names, a provider endpoint where nothing answers and no key of yours."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name in KEPT or not name.startswith(("REWIND_", "OPENAI_", "DJANGO_"))
    }
    for name in ("DATABASE_URL", "SECRET_KEY", "DEBUG"):
        env.pop(name, None)
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    # Rewind as this process finds it (installed, or on this process's path).
    found = [importlib.util.find_spec(name) for name in ("runs", "rewind_site")]
    if not all(spec and spec.origin for spec in found):
        pytest.fail("Rewind is not importable here: install it (pip install -e <rewind>)", pytrace=False)
    roots = {str(Path(spec.origin).parent.parent) for spec in found}
    env.update(
        DJANGO_SETTINGS_MODULE="rewind_site.settings",
        DATABASE_URL=f"sqlite:///{work / 'rewind.sqlite3'}",
        REWIND_ARTIFACT_DIR=str(work / "artifacts"),
        REWIND_PIPELINES=",".join(f"{k}={v}" for k, v in fixture["pipelines"].items()),
        REWIND_LLM_PRESET="custom",
        REWIND_LLM_BASE_URL=NOWHERE,
        REWIND_LLM_RETRIES="0",
        REWIND_LLM_TIMEOUT="5",
        SECRET_KEY=secrets.token_urlsafe(50),
        # A Burr app's own client may insist on a key and a URL to be built; neither is used.
        OPENAI_API_KEY="sk-rewind-offline-replay",
        OPENAI_BASE_URL=NOWHERE,
        PYTHONPATH=os.pathsep.join([*sorted(roots), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    )
    return env


def refuse_sockets() -> None:
    """No connection and no name lookup: a replay reads recorded answers only."""
    import socket

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("network access is refused in an offline Rewind replay")

    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def connect(sock: socket.socket, address: object) -> None:
        if sock.family != socket.AF_UNIX:
            refuse()
        return real_connect(sock, address)

    def connect_ex(sock: socket.socket, address: object) -> int:
        if sock.family != socket.AF_UNIX:
            refuse()
        return real_connect_ex(sock, address)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = refuse  # type: ignore[assignment]
    socket.gethostbyname = refuse  # type: ignore[assignment]


def load_fixture(fixture_path: Path) -> dict:
    """Sockets refused, Django set up on the throwaway database (migrated), the fixture's rows
    loaded into it: what a replay reads. The fixture, as read."""
    refuse_sockets()
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import transaction

    from runs.models import BurrState, Edge, LLMCacheEntry, Node, Run, ToolCacheEntry

    call_command("migrate", verbosity=0, interactive=False)
    fixture = json.loads(fixture_path.read_text(encoding="utf-8"))
    tables = [
        (Run, "runs"),
        (Node, "nodes"),
        (Edge, "edges"),
        (BurrState, "burr_state"),
        (LLMCacheEntry, "llm_cache"),
        (ToolCacheEntry, "tool_cache"),
    ]
    with transaction.atomic():
        for model, key in tables:
            model.objects.bulk_create([model(**row) for row in fixture[key]])
    return fixture


'''


HARNESS_MAIN = """if __name__ == "__main__":
    replay_offline(Path(sys.argv[1]), Path(sys.argv[2]))
"""
