"""One run's test file as a template: its docstring, constants, tests and checks around the
harness, and the tests of a run and of a diff. May import: the export's ``harness``.
"""

from __future__ import annotations

from string import Template

from runs.engine.analysis.export.harness import (
    HARNESS_CHILD,
    HARNESS_HEAD,
    HARNESS_MAIN,
    HARNESS_RUNNER,
)

TEST_RUN = Template("""

def test_run_${run}_replays_offline_as_recorded(replayed: dict) -> None:
    check_replay($run, replayed)
""")

TEST_DIFF = Template("""

def test_run_${run}_differs_from_run_${against}_in_the_recorded_fields(replayed: dict) -> None:
    got = replayed["changed"]
    if got is None:
        pytest.fail("run $run and run $against did not both replay; see their own tests", pytrace=False)
    if canonical(got) != canonical(CHANGED):
        pytest.fail(
            "run $against -> run $run: the diff of the replays is not the recorded one:\\n"
            + describe_changes(CHANGED, got),
            pytrace=False,
        )
""")


TEST_FILE = Template(
    '''"""Rewind: $what replayed offline, as a test.

Made by: python manage.py $command
Fixture: $fixture

$about
"""

'''
    + HARNESS_HEAD
    + """RUN = $run
AGAINST = $against
# Per replayed run: its steps as [sequence id, name, output sha256], its trajectory and
# artifact hashes, as recorded.
EXPECTED = $expected
# The leaves that differ from run AGAINST to run RUN, step by step (`rewind_diff AGAINST RUN`).
CHANGED = $changed

"""
    + HARNESS_RUNNER
    + "$tests"
    + '''

# --- the checks ---------------------------------------------------------------------------


def check_replay(run: int, replayed: dict) -> None:
    """Step by step, then the trajectory and the artifact; the first difference fails."""
    expected, got = EXPECTED[run], replayed["runs"][str(run)]
    steps = got["steps"]
    for index, (sequence_id, name, sha256) in enumerate(expected["steps"]):
        where = f"run {run} did not replay as recorded: step {name} (sequence {sequence_id})"
        if index >= len(steps):
            pytest.fail(f"{where} was not reached: {got['error'] or 'the run stopped'}", pytrace=False)
        step = steps[index]
        if step["name"] != name:
            pytest.fail(f"{where}: the replay ran {step['name']} there instead", pytrace=False)
        if step["status"] != "completed":
            pytest.fail(f"{where} failed: {step['error'] or got['error']}", pytrace=False)
        if step["output_sha256"] != sha256:
            pytest.fail(
                f"{where} wrote a different output (sha256 {step['output_sha256'][:12]}, "
                f"recorded {sha256[:12]}): " + describe_fields(step["changes"]),
                pytrace=False,
            )
        if step["cache_source"] == "live" and step["kind"] != "code":
            pytest.fail(f"{where} was not answered from the recorded responses", pytrace=False)
    if len(steps) > len(expected["steps"]):
        extra = steps[len(expected["steps"])]
        pytest.fail(
            f"run {run} did not replay as recorded: it ran step {extra['name']} "
            f"(sequence {extra['sequence_id']}) past its recorded end",
            pytrace=False,
        )
    assert got["status"] == "completed", f"run {run}'s replay {got['status']}: {got['error']}"
    assert got["trajectory_sha256"] == expected["trajectory_sha256"], f"run {run}: trajectory hash"
    if expected["artifact_sha256"]:
        assert got["artifact_sha256"] == expected["artifact_sha256"], f"run {run}: artifact hash"


def shorten(value: object, width: int = 70) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def describe_fields(fields: list[dict], limit: int = 4) -> str:
    if not fields:
        return "no leaf of the output differs from the fixture's (was the hash edited?)"
    lines = [f"{f['path']}: {shorten(f['a'])} -> {shorten(f['b'])}" for f in fields[:limit]]
    more = f" (and {len(fields) - limit} more)" if len(fields) > limit else ""
    return "; ".join(lines) + more


def canonical(value: object) -> str:
    """A value as Rewind compares values: canonical JSON (NaN is equal to itself here, and
    1 is not 1.0), never ``==``."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def describe_changes(expected: list[dict], got: list[dict]) -> str:
    want = {c["node"]: c["fields"] for c in expected}
    have = {c["node"]: c["fields"] for c in got}
    lines = []
    for node in list(want) + [n for n in have if n not in want]:
        if want.get(node) != have.get(node):
            lines.append(
                f"step {node}: recorded {describe_fields(want.get(node) or [])}; "
                f"replayed {describe_fields(have.get(node) or [])}"
            )
    return "\\n".join(lines)


'''
    + HARNESS_CHILD
    + """def replay_offline(fixture_path: Path, result_path: Path) -> None:
    fixture = load_fixture(fixture_path)
    from runs.engine.analysis.diff import diff_runs, diff_values
    from runs.engine.analysis.export import changed_fields  # what the recorded diff was made by
    from runs.engine.execution.runner import execute_run
    from runs.engine.forking.replays import create_replay
    from runs.models import Run

    recorded = {(n["run_id"], n["sequence_id"]): n for n in fixture["nodes"]}

    result: dict = {"runs": {}, "changed": None}
    replays = {}
    for run in [RUN] if AGAINST is None else [RUN, AGAINST]:
        replay = execute_run(create_replay(Run.objects.get(pk=run)).pk)
        replays[run] = replay
        steps = []
        for node in replay.nodes.order_by("sequence_id"):
            before = recorded.get((run, node.sequence_id))
            differs = before is not None and before["output_sha256"] != node.output_sha256
            steps.append(
                {
                    "sequence_id": node.sequence_id,
                    "name": node.name,
                    "kind": node.kind,
                    "status": node.status,
                    "cache_source": node.cache_source,
                    "output_sha256": node.output_sha256,
                    "error": node.error,
                    "changes": diff_values(before["output"], node.output) if differs else [],
                }
            )
        result["runs"][str(run)] = {
            "replay": replay.pk,
            "status": replay.status,
            "error": replay.error,
            "trajectory_sha256": replay.trajectory_sha256,
            "artifact_sha256": replay.artifact_sha256,
            "steps": steps,
        }
    if AGAINST is not None and all(r.status == "completed" for r in replays.values()):
        result["changed"] = changed_fields(diff_runs(replays[AGAINST], replays[RUN]))
    result_path.write_text(json.dumps(result, ensure_ascii=False, default=str), encoding="utf-8")


"""
    + HARNESS_MAIN
)
