"""A regression replay as JUnit XML (``rewind_regress --junit FILE``), what CI systems read.

One testsuite, one testcase per source run (``classname`` the pipeline, ``name`` "run N"):
- passed: the run meets the gate (``--fail-on``);
- ``<failure>``: it does not — the message names each outcome before → after (or the step
  that diverged), and the body links the diff when ``REWIND_BASE_URL`` is set;
- ``<error>``: its regression run did not complete (the new code raised, a worker refused);
- ``<skipped>``: the source could not be re-run (a fork, a failed recording), with the reason.

Whatever the text quotes (a step's name, an outcome's value, an error in terminal colours), the
file is XML a CI parser reads: each character XML 1.0 cannot hold (C0 controls but tab, newline
and carriage return; lone surrogates; U+FFFE, U+FFFF) is written as its Python escape
(``\\x1b``, ``\\ud800``) and the suite's property ``escaped_characters`` says so. The rest of the
text is kept as it was.
"""

from __future__ import annotations

import re
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
    escaped = _escape_tree(suite)
    if escaped:
        ElementTree.SubElement(
            props,
            "property",
            name="escaped_characters",
            value=f"characters XML 1.0 cannot hold were written as \\x, \\u escapes: {escaped}",
        )
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


# What XML 1.0 cannot hold (its ``Char`` production): C0 controls but tab, newline and carriage
# return, the surrogates (lone ones: a str holds no pairs) and U+FFFE, U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _escaped(text: str) -> tuple[str, int]:
    """``text`` with each character XML cannot hold as its escape, and how many there were."""
    return _NOT_XML.subn(lambda m: m[0].encode("unicode_escape").decode("ascii"), text)


def _escape_tree(root: ElementTree.Element) -> int:
    """Escape every attribute value, text and tail under ``root`` in place; how many
    characters were escaped."""
    total = 0
    for element in root.iter():
        for name, value in list(element.attrib.items()):
            element.attrib[name], count = _escaped(value)
            total += count
        for where in ("text", "tail"):
            value = getattr(element, where)
            if value:
                fixed, count = _escaped(value)
                setattr(element, where, fixed)
                total += count
    return total


def _seconds(run: RunRegression) -> float:
    fork = run.source.row.fork if run.source.row.fork_id else None
    if fork is None or fork.started_at is None or fork.finished_at is None:
        return 0.0
    return max(0.0, (fork.finished_at - fork.started_at).total_seconds())
