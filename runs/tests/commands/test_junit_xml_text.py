"""``rewind_regress --junit`` writes valid XML whatever the text it quotes: a step named with a
control character, an outcome whose value holds one, an error coloured with terminal codes.

XML 1.0 holds no C0 control character but tab, newline and carriage return, no lone surrogate
and neither U+FFFE nor U+FFFF; written raw, CI's parser rejects the whole file (and a lone
surrogate cannot even be encoded). The app below plants each in what the JUnit file quotes;
the file must parse, keep the readable text around them, and say what it escaped.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest
from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.engine.analysis.batches import batch_run_ids
from runs.engine.analysis.batches.junit import junit_xml
from runs.engine.analysis.batches.regression import regression_result
from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.run_sets.batches import make_batch, plan_regression
from runs.engine.run_sets.requests import RegressionRequest, Selection
from runs.models import Run

NAME = "junit_text_app"
STEP = "label\x1b[1mit\x1b[0m"  # a step named with a terminal code
OK = "fine"
# What the new code says: an escape sequence, backspace, vertical tab, form feed, unit
# separator and U+FFFE (PostgreSQL's jsonb refuses U+0000 and lone surrogates in an output:
# those come in through an error's text below).
ODD = "\x1b[31mred\x1b[0m\x08\x0b\x0c\x1f\ufffe"
# A terminal-coloured error (a run's error cannot hold U+0000 or a lone surrogate: those are
# planted in memory, in the last test).
COLOURED = "\x1b[31mTraceback\x1b[0m: no\x07 such\x0e file\x7f"
NEW_CODE = {"label": OK, "fail": False}


@action(reads=[], writes=["label"])
def label(state: State, request: str) -> State:
    if NEW_CODE["fail"] and request == "fails":
        raise RuntimeError(COLOURED)
    return state.update(label=NEW_CODE["label"])


def application() -> Application:
    return ApplicationBuilder().with_actions(**{STEP: label}).with_entrypoint(STEP).build()


@pytest.fixture
def odd_app(rewind_settings) -> Iterator[list[Run]]:
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        NAME: f"{__name__}.application",
    }
    rewind_settings.REWIND_OUTCOMES = {
        NAME: [{"name": "label", "path": "state.label", "check": {"one_of": [OK]}}]
    }
    registry._load.cache_clear()
    NEW_CODE.update(label=OK, fail=False)
    runs = []
    for request in ("changes", "fails"):
        run = execute_run(create_run(NAME, {"request": request}).pk)
        assert run.status == Run.Status.COMPLETED, run.error
        runs.append(run)
    NEW_CODE.update(label=ODD, fail=True)
    yield runs
    NEW_CODE.update(label=OK, fail=False)
    registry._load.cache_clear()


def regress(path: Path, runs: list[Run], fail_on: str) -> ElementTree.Element:
    with pytest.raises(CommandError):  # both runs fail the gate
        call_command(
            "rewind_regress",
            "--runs",
            *[str(r.pk) for r in runs],
            "--fail-on",
            fail_on,
            "--junit",
            str(path),
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )
    return ElementTree.parse(path).getroot()  # raises on invalid XML


def escaped(suite: ElementTree.Element) -> str:
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    return props.get("escaped_characters", "")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("fail_on", ["regress", "diverge"])
def test_the_junit_file_parses_whatever_its_text_holds(odd_app, tmp_path, fail_on):
    changes, fails = odd_app

    suite = regress(tmp_path / "junit.xml", odd_app, fail_on)

    cases = {case.get("name"): case for case in suite.iter("testcase")}
    error = cases[f"run {fails.pk}"].find("error")
    assert error is not None
    # The readable text kept, each character XML cannot hold written as its escape.
    for text in (error.get("message"), error.text):
        assert "\\x1b[31mTraceback\\x1b[0m: no\\x07 such\\x0e file\x7f" in text, text
    failure = cases[f"run {changes.pk}"].find("failure")
    assert failure is not None
    if fail_on == "regress":
        assert '"fine" (pass) → "' in failure.get("message")
        assert "\\ufffe" in failure.get("message")
    else:
        assert "step label\\x1b[1mit\\x1b[0m (0) differs first" in failure.get("message")
    note = escaped(suite)
    assert note.startswith("characters XML 1.0 cannot hold were written as \\x, \\u escapes:")
    assert "\x1b" not in (tmp_path / "junit.xml").read_text(encoding="utf-8")


@pytest.mark.django_db
def test_every_kind_of_character_xml_cannot_hold_is_escaped(odd_app):
    request = RegressionRequest(Selection(runs=tuple(r.pk for r in odd_app)))
    batch = make_batch(plan_regression(request))
    for pk in batch_run_ids(batch):
        execute_run(pk)
    result = regression_result(batch)
    forbidden = "".join(map(chr, [*range(0x20), 0xD800, 0xDFFF, 0xFFFE, 0xFFFF]))
    fork = result.runs[1].source.row.fork
    fork.error = f"all of them: {forbidden} end"  # in memory: no database holds them all

    text = junit_xml(result, "regress")

    suite = ElementTree.fromstring(text.encode("utf-8"))
    message = next(suite.iter("error")).get("message")
    assert message.startswith("the regression run failed: all of them: \\x00\\x01")
    assert "\\x08\t\n\\x0b\\x0c\r\\x0e" in message  # tab, newline, return are XML's own
    assert message.endswith("\\x1f\\ud800\\udfff\\ufffe\\uffff end")
    assert "characters XML 1.0 cannot hold" in escaped(suite)


@pytest.mark.django_db
def test_a_file_of_plain_text_says_nothing_was_escaped(odd_app):
    NEW_CODE.update(label="other", fail=False)
    request = RegressionRequest(Selection(runs=tuple(r.pk for r in odd_app)))
    batch = make_batch(plan_regression(request))
    for pk in batch_run_ids(batch):
        execute_run(pk)

    suite = ElementTree.fromstring(junit_xml(regression_result(batch), "regress"))

    assert escaped(suite) == ""
    assert "escaped" not in ElementTree.tostring(suite, encoding="unicode")
