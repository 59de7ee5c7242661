"""A regression replay as JUnit XML (``rewind_regress --junit FILE``), what CI systems read.

One testsuite, one testcase per source run (``classname`` the pipeline, ``name`` "run N"):
- passed: the run meets the gate (``--fail-on``);
- ``<failure>``: it does not — the message names each outcome before → after (or the step
  that diverged), and the body links the diff when ``REWIND_BASE_URL`` is set;
- ``<error>``: its regression run did not complete (the new code raised, a worker refused);
- ``<skipped>``: the source could not be re-run (a fork, a failed recording), with the reason.
"""

from __future__ import annotations

from xml.etree import ElementTree

from runs.engine.analysis.batches.regression import RegressionResult, RunRegression


def junit_xml(result: RegressionResult, fail_on: str, base_url: str = "") -> str:
    batch = result.batch
    suite = ElementTree.Element("testsuite", name=f"rewind_regress {batch.pipeline}")
    props = ElementTree.SubElement(suite, "properties")
    for name, value in (
        ("batch", str(batch.pk)),
        ("code_version", batch.code_version),
        ("commit", batch.code_commit),
        ("fail_on", fail_on),
        ("regressions", str(result.regressions)),
    ):
        ElementTree.SubElement(props, "property", name=name, value=value)
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    seconds = 0.0
    for run in result.runs:
        case, kind, took = _case(run, fail_on, base_url, batch.pipeline)
        suite.append(case)
        counts["tests"] += 1
        if kind:
            counts[kind] += 1
        seconds += took
    for name, value in counts.items():
        suite.set(name, str(value))
    suite.set("time", f"{seconds:.3f}")
    ElementTree.indent(suite)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        + ElementTree.tostring(suite, encoding="unicode")
        + "\n"
    )


def _case(
    run: RunRegression, fail_on: str, base_url: str, pipeline: str
) -> tuple[ElementTree.Element, str, float]:
    row = run.source.row
    case = ElementTree.Element(
        "testcase", classname=f"rewind.{pipeline}", name=f"run {row.source_id}"
    )
    took = _seconds(run)
    case.set("time", f"{took:.3f}")
    if row.fork_id is None:
        ElementTree.SubElement(case, "skipped", message=row.error or "not re-run")
        return case, "skipped", took
    link = f"{base_url}/compare/{row.source_id}/{row.fork_id}/" if base_url else ""
    problems = run.problems(fail_on)
    if not problems:
        return case, "", took
    kind = "failure" if run.completed else "error"
    detail = ElementTree.SubElement(case, kind, message="; ".join(problems)[:1000])
    detail.set("type", "regression" if run.completed else "run-failed")
    lines = [f"regression run {row.fork_id} of run {row.source_id}:", *problems]
    if link:
        lines.append(f"diff: {link}")
    detail.text = "\n".join(lines)
    return case, "failures" if run.completed else "errors", took


def _seconds(run: RunRegression) -> float:
    fork = run.source.row.fork if run.source.row.fork_id else None
    if fork is None or fork.started_at is None or fork.finished_at is None:
        return 0.0
    return max(0.0, (fork.finished_at - fork.started_at).total_seconds())
