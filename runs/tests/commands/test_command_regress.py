"""``rewind_regress``: recorded runs re-run with the app's code as it is now (issue 32).

A user's Burr app is written to the test's folder (helpers/regress_apps.py): ``receive`` →
``describe`` (an LLM call) → ``classify`` (an LLM call whose prompt template lives inside the
action) → ``finish``, the SDK pointed at the simulator served on loopback, the outcome
``category`` (``classify.label``, checked one of weather / math / poem / greeting). Twelve runs
are recorded here; the template is then edited on disk and ``manage.py rewind_regress`` runs
in a fresh process, which imports the edited module — as a user runs it from CI.

The truth is planted, never read back from the command: what each request is classified as
under the old and the new template is the simulator's own rule asked in this process
(``expected_label``), what the call costs is the usage the simulator reports for the new
prompt (``expected_tokens``), the interval is Wilson's formula written out below, and every
``classify`` output differs after the edit because the step writes the prompt it used.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any
from xml.etree import ElementTree

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.engine.apps.registry import get_pipeline
from runs.engine.apps.versions import app_version
from runs.engine.errors import ForkError
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import make_fork
from runs.engine.forking.replays import create_replay, regression_request
from runs.engine.providers.simulator import Simulator
from runs.engine.run_sets.batches import make_batch, plan_regression
from runs.engine.run_sets.requests import RegressionRequest, Selection
from runs.models import Batch, Node, Run
from runs.tests.conftest import closed_port_url
from runs.tests.helpers import regress_apps as app
from runs.tests.helpers.regress_apps import BASE_URL, CHECKED, NAME, NEW, OLD, REQUESTS, STEPS

# The command runs in another process: it sees committed rows only.
pytestmark = pytest.mark.django_db(transaction=True)

CLASSIFY = {"node": "classify", "sequence_id": STEPS.index("classify")}


def wilson_95(k: int, n: int) -> tuple[float, float]:
    """Wilson's score interval at 95 %, from the textbook formula (not the app's module)."""
    z = NormalDist().inv_cdf(0.975)
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class UserApp:
    """The app in ``folder``, the simulator it calls on loopback at ``url`` (until
    ``stop_provider``), and the runs recorded of it."""

    folder: Path
    simulator: Simulator
    url: str
    stack: ExitStack
    sources: list[Run] = field(default_factory=list)
    requests: dict[int, str] = field(default_factory=dict)  # run id → its input request

    def record(self, requests: tuple[str, ...] = REQUESTS) -> list[Run]:
        for request in requests:
            run = execute_run(create_run(NAME, {"request": request}).pk)
            assert run.status == Run.Status.COMPLETED, run.error
            self.sources.append(run)
            self.requests[run.pk] = request
        self.simulator.requests.clear()  # from here on: what the regression runs asked
        return self.sources

    def edit(self, options: str) -> None:
        app.write_app(self.folder, options)

    def stop_provider(self) -> None:
        self.stack.close()
        self.url = closed_port_url()

    def regress(self, *args: str) -> app.Result:
        return app.manage(app.environment(self.folder, self.url), "rewind_regress", *args)


@pytest.fixture
def user_app(rewind_settings, tmp_path, monkeypatch) -> Iterator[UserApp]:
    folder = tmp_path / "app"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    app.write_app(folder, OLD)
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        NAME: f"{app.MODULE}.application",
    }
    rewind_settings.REWIND_OUTCOMES = app.OUTCOMES
    rewind_settings.REWIND_BASE_URL = BASE_URL
    app.forget_app()
    with ExitStack() as stack:
        simulator = Simulator()
        url = stack.enter_context(simulator.serve())
        monkeypatch.setenv("OPENAI_BASE_URL", url)  # the app's own SDK, in this process
        yield UserApp(folder, simulator, url, stack)
    app.forget_app()


def planted(request: str) -> dict[str, Any]:
    """What the command must say for ``request`` after OLD → NEW, from the simulator's rule."""
    before, after = app.expected_label(request, OLD), app.expected_label(request, NEW)
    return {
        "name": "category",
        "before": before,
        "after": after,
        "passed_before": before in CHECKED,
        "passed_after": after in CHECKED,
        "flipped": before != after,
        "verdict": "no-samples",
    }


def steps(run_id: int) -> list[Node]:
    return list(Node.objects.filter(run_id=run_id).order_by("sequence_id"))


def junit_cases(path: Path) -> tuple[ElementTree.Element, dict[str, ElementTree.Element]]:
    suite = ElementTree.parse(path).getroot()
    assert suite.tag == "testsuite"
    return suite, {case.get("name"): case for case in suite.iter("testcase")}


# --- the edit: flips, costs, the gate and the JUnit file ------------------------------------


def test_an_edited_late_prompt_flips_exactly_the_runs_the_simulator_says(user_app, tmp_path):
    sources = user_app.record()
    expected = {s.pk: planted(user_app.requests[s.pk]) for s in sources}
    # The design holds: some pass → fail, some fail → pass, most unchanged.
    regressions = [pk for pk, o in expected.items() if o["passed_before"] and not o["passed_after"]]
    flips = [pk for pk, o in expected.items() if o["flipped"]]
    assert 0 < len(regressions) < len(flips) < len(sources)
    for source in sources:  # the recording agrees with the rule, before anything is changed
        assert steps(source.pk)[2].output["label"] == expected[source.pk]["before"]

    user_app.edit(NEW)
    junit = tmp_path / "regress.xml"
    result = user_app.regress("--pipeline", NAME, "--json", "--junit", str(junit))

    assert result.returncode == 1, result  # the default gate: an outcome that passed fails
    data = result.json
    assert data["pipeline"] == NAME and data["fail_on"] == "regress" and data["failed"] is True
    assert data["regressions"] == len(regressions)
    batch = Batch.objects.get()
    assert data["batch"] == batch.pk and batch.code_version == data["code_version"]
    assert len(data["code_version"]) == 64
    assert [row["source"] for row in data["runs"]] == [s.pk for s in sources]
    for row in data["runs"]:
        request = user_app.requests[row["source"]]
        new_prompt = app.classify_prompt(request, NEW)
        assert row["status"] == "completed" and row["error"] is None, row
        assert row["outcomes"] == [expected[row["source"]]], request
        # Every classify output changed (it holds the prompt); describe's did not.
        assert row["first_divergence"] == CLASSIFY
        assert row["code_changed"] == ["classify"]
        assert row["total_tokens"] == app.expected_tokens(new_prompt)
        rerun = Run.objects.get(pk=row["run"])
        assert rerun.parent_id == row["source"] and rerun.regression_code == data["code_version"]
        # The Node rows: the steps before the edited one cost nothing, the edited one went
        # out with the new prompt, and the recorded run's describe answer was reused.
        was, now = steps(row["source"]), steps(row["run"])
        assert [n.name for n in now] == list(STEPS)
        receive, describe, classify, finish = now
        assert receive.kind == Node.Kind.CODE and receive.total_tokens == 0
        assert (describe.cache_source, describe.total_tokens) == (Node.CacheSource.CACHE, 0)
        assert describe.output_sha256 == was[1].output_sha256 and not describe.code_changed
        assert classify.cache_source == Node.CacheSource.LIVE and classify.code_changed
        assert classify.output == {"label": expected[row["source"]]["after"], "prompt": new_prompt}
        assert classify.total_tokens == app.expected_tokens(new_prompt)
        assert finish.kind == Node.Kind.CODE and finish.output["answer"].startswith(
            expected[row["source"]]["after"] + ": "
        )
    # Only the changed calls reached the provider: one classify prompt per run, in order.
    asked = [body["messages"][0]["content"] for body in user_app.simulator.requests]
    assert asked == [app.classify_prompt(user_app.requests[s.pk], NEW) for s in sources]

    low, high = wilson_95(len(flips), len(sources))
    assert data["outcomes"] == [
        {
            "name": "category",
            "flipped": len(flips),
            "of": len(sources),
            "rate": round(len(flips) / len(sources), 6),
            "low": pytest.approx(low, abs=1e-6),
            "high": pytest.approx(high, abs=1e-6),
            "beyond_noise": 0,
            "within_noise": 0,
            "regressed": len(regressions),
        }
    ]

    # The JUnit file: one testcase per source, a failure for each regression naming it.
    suite, cases = junit_cases(junit)
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) \
        == (str(len(sources)), str(len(regressions)), "0", "0")  # fmt: skip
    assert list(cases) == [f"run {s.pk}" for s in sources]
    runs = {row["source"]: row["run"] for row in data["runs"]}
    for source in sources:
        case = cases[f"run {source.pk}"]
        assert case.get("classname") == f"rewind.{NAME}"
        failure = case.find("failure")
        if source.pk not in regressions:
            assert list(case) == [], user_app.requests[source.pk]  # a flip fail → pass passes
            continue
        before, after = expected[source.pk]["before"], expected[source.pk]["after"]
        assert failure.get("message").startswith(f'category: "{before}" (pass) → "{after}" (fail)')
        assert f"{BASE_URL}/compare/{source.pk}/{runs[source.pk]}/" in failure.text
    assert "fail --fail-on regress" in result.stderr


def test_the_gates_differ_and_a_reverted_edit_replays_whole_from_the_cache(user_app, tmp_path):
    sources = user_app.record()
    expected = {s.pk: planted(user_app.requests[s.pk]) for s in sources}
    flips = {pk for pk, o in expected.items() if o["flipped"]}
    user_app.edit(NEW)

    # diverge: every run, since every classify output changed — more than the outcomes say.
    junit = tmp_path / "diverge.xml"
    diverge = user_app.regress("--pipeline", NAME, "--fail-on", "diverge", "--json", "--junit",
                               str(junit))  # fmt: skip
    assert diverge.returncode == 1, diverge
    assert diverge.json["fail_on"] == "diverge" and diverge.json["failed"] is True
    assert f"{len(sources)} of {len(sources)} run(s) fail --fail-on diverge" in diverge.stderr
    suite, cases = junit_cases(junit)
    assert suite.get("failures") == str(len(sources))
    for source in sources:
        failure = cases[f"run {source.pk}"].find("failure")
        assert failure.get("message") == "step classify (2) differs first"

    # flip: the runs whose category changed, whichever way.
    junit = tmp_path / "flip.xml"
    flip = user_app.regress("--pipeline", NAME, "--fail-on", "flip", "--junit", str(junit))
    assert flip.returncode == 1, flip
    _, cases = junit_cases(junit)
    failed = {int(name.split()[1]) for name, case in cases.items() if case.find("failure")
              is not None}  # fmt: skip
    assert failed == flips
    assert f"{len(flips)} of {len(sources)} run(s) fail --fail-on flip" in flip.stderr

    # Reverted: the code is the recorded code again — nothing flips, nothing is asked.
    user_app.edit(OLD)
    user_app.simulator.requests.clear()
    reverted = user_app.regress("--pipeline", NAME, "--json")
    assert reverted.returncode == 0, reverted
    data = reverted.json
    assert data["failed"] is False and data["regressions"] == 0
    for row in data["runs"]:
        assert row["status"] == "completed"
        assert row["first_divergence"] is None and row["code_changed"] == []
        assert row["total_tokens"] == 0
        assert [o["flipped"] for o in row["outcomes"]] == [False]
        assert row["outcomes"][0]["after"] == expected[row["source"]]["before"]
        llm = [n for n in steps(row["run"]) if n.kind == Node.Kind.LLM]
        assert [(n.name, n.cache_source, n.total_tokens) for n in llm] == [
            ("describe", Node.CacheSource.CACHE, 0),
            ("classify", Node.CacheSource.CACHE, 0),
        ]
    assert user_app.simulator.requests == []
    (summary,) = data["outcomes"]
    z2 = NormalDist().inv_cdf(0.975) ** 2
    assert (summary["flipped"], summary["of"], summary["rate"]) == (0, len(sources), 0)
    assert summary["low"] == 0 and summary["high"] == pytest.approx(
        z2 / (len(sources) + z2), abs=1e-6
    )  # Wilson's upper bound at 0 of n in closed form
    # The version the revert ran is not the edited one's.
    assert len({diverge.json["code_version"], data["code_version"]}) == 2
    assert Batch.objects.count() == 3


def test_unchanged_code_with_the_provider_gone_costs_nothing_and_passes(user_app, tmp_path):
    sources = user_app.record(REQUESTS[::3])
    user_app.stop_provider()  # any call that went out would fail its run

    result = user_app.regress("--pipeline", NAME, "--fail-on", "diverge", "--json")

    assert result.returncode == 0, result
    data = result.json
    assert data["failed"] is False and data["regressions"] == 0
    assert [row["source"] for row in data["runs"]] == [s.pk for s in sources]
    for row in data["runs"]:
        assert row["status"] == "completed", row
        assert (row["first_divergence"], row["code_changed"], row["total_tokens"]) == (None, [], 0)
        assert row["outcomes"][0]["flipped"] is False
        was, now = steps(row["source"]), steps(row["run"])
        assert [n.output_sha256 for n in now] == [n.output_sha256 for n in was]
        assert sum(n.total_tokens for n in now) == 0
        assert {n.cache_source for n in now if n.kind == Node.Kind.LLM} == {Node.CacheSource.CACHE}
    assert data["outcomes"][0]["flipped"] == 0

    # Edited, with the provider still gone: each changed call cannot be asked, so no run has
    # an answer — every one fails the gate, an error (not a failure) in the JUnit file.
    user_app.edit(NEW)
    junit = tmp_path / "gone.xml"
    result = user_app.regress("--pipeline", NAME, "--json", "--junit", str(junit))
    assert result.returncode == 1, result
    data = result.json
    for row in data["runs"]:
        assert row["status"] == "failed" and row["error"].startswith("classify: "), row
        assert row["outcomes"][0]["after"] is None and row["outcomes"][0]["flipped"] is None
        assert [(n.name, n.cache_source) for n in steps(row["run"])][:2] == [
            ("receive", Node.CacheSource.LIVE),
            ("describe", Node.CacheSource.CACHE),
        ]
    assert (data["outcomes"][0]["of"], data["regressions"]) == (0, 0)  # in no rate
    suite, cases = junit_cases(junit)
    assert (suite.get("errors"), suite.get("failures")) == (str(len(sources)), "0")
    for source, row in zip(sources, data["runs"], strict=True):
        error = cases[f"run {source.pk}"].find("error")
        assert error.get("type") == "run-failed"
        assert error.get("message") == f"the regression run failed: {row['error']}"


# --- requests that cannot be asked ------------------------------------------------------------


def test_bad_input_exits_2_and_writes_no_batch(user_app, tmp_path):
    user_app.record(REQUESTS[:1])
    runs = Run.objects.count()
    for args, says in (
        (("--pipeline", "nope"), "unknown pipeline 'nope'"),
        (("--pipeline", NAME, "--limit", "0"), "--limit must be at least 1, got 0"),
        (("--pipeline", NAME, "--junit", str(tmp_path / "missing" / "r.xml")),
         f"no folder {tmp_path / 'missing'}"),
        (("--pipeline", NAME, "--junit", str(tmp_path)), "--junit names a folder, not a file"),
        (("--pipeline", NAME, "--enqueue", "--junit", str(tmp_path / "r.xml")),
         "with --enqueue nothing has run yet"),
    ):  # fmt: skip
        result = user_app.regress(*args, "--json")
        assert result.returncode == 2, result
        message = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(message) == 1 and says in message[0], result
        assert result.stdout == ""
    assert Batch.objects.count() == 0 and Run.objects.count() == runs


# --- stale code: a process that loaded the app before it was edited --------------------------


def test_an_app_edited_after_this_process_loaded_it_is_refused_and_never_run(user_app):
    (source,) = user_app.record(REQUESTS[6:7])  # loads the app here (the registry)
    recorded_version = app_version(get_pipeline(NAME)).version
    request = RegressionRequest(Selection(pipeline=NAME))
    queued = make_batch(plan_regression(request)).sources.get().fork  # the code as loaded
    assert queued.regression_code == recorded_version

    user_app.edit(NEW)

    with pytest.raises(ForkError) as refused:
        plan_regression(request)
    path = str(user_app.folder.resolve() / f"{app.MODULE}.py")
    assert str(refused.value).startswith(
        f"the {NAME} app's code changed on disk ({path}) after this process loaded it"
    )
    assert Batch.objects.count() == 1
    # The run queued before the edit is not run with code other than the one it was asked for.
    stale = execute_run(queued.pk)
    assert stale.status == Run.Status.FAILED
    assert f"loaded the {NAME} app before {app.MODULE}.py was edited" in stale.error
    assert not Node.objects.filter(run=stale).exists()

    # Loaded again (a restart): this process now runs the edited code, another version, and
    # refuses a regression run asked for the recorded one, naming both.
    app.forget_app()
    edited_version = app_version(get_pipeline(NAME)).version
    assert edited_version != recorded_version
    other = execute_run(make_fork(regression_request(source, recorded_version)).pk)
    assert other.status == Run.Status.FAILED
    assert (
        f"runs the {NAME} app's code at {edited_version[:12]}, not {recorded_version[:12]} as "
        "the regression replay asked"
    ) in other.error
    assert not Node.objects.filter(run=other).exists()
    # The version it runs is accepted: the new prompt goes to the provider.
    current = execute_run(make_fork(regression_request(source, edited_version)).pk)
    assert current.status == Run.Status.COMPLETED, current.error
    assert steps(current.pk)[2].output["label"] == app.expected_label(
        user_app.requests[source.pk], NEW
    )


# --- which sources: --limit, --runs -----------------------------------------------------------


def regress_here(*args: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("rewind_regress", *args, "--json", stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


def test_limit_takes_the_newest_runs_and_a_fork_is_a_skipped_row(user_app, tmp_path):
    sources = user_app.record(REQUESTS[:5])
    user_app.stop_provider()  # unchanged code: every call from the cache

    data = regress_here("--pipeline", NAME, "--limit", "2")
    assert [row["source"] for row in data["runs"]] == [s.pk for s in sources[-2:]]
    assert {row["status"] for row in data["runs"]} == {"completed"}
    assert Batch.objects.get(pk=data["batch"]).sources.count() == 2

    fork = execute_run(create_replay(sources[0]).pk)
    assert fork.status == Run.Status.COMPLETED, fork.error
    junit = tmp_path / "runs.xml"
    data = regress_here("--runs", str(sources[1].pk), str(fork.pk), "--junit", str(junit))
    ran, skipped = data["runs"]
    assert ran["source"] == sources[1].pk and ran["status"] == "completed"
    assert (skipped["source"], skipped["run"], skipped["status"]) == (fork.pk, None, "skipped")
    reason = (
        f"run {fork.pk} is a fork of run {sources[0].pk}: a regression replay re-runs recorded "
        "root runs"
    )
    assert skipped["error"] == reason and skipped["outcomes"][0]["flipped"] is None
    assert data["outcomes"][0]["of"] == 1  # a skipped row counts in no rate
    suite, cases = junit_cases(junit)
    assert (suite.get("tests"), suite.get("skipped")) == ("2", "1")
    assert cases[f"run {fork.pk}"].find("skipped").get("message") == reason
    assert not Run.objects.filter(parent=fork).exists()  # the fork was not re-run

    with pytest.raises(CommandError) as caught:  # none that can be re-run: refused
        call_command("rewind_regress", "--runs", str(fork.pk), stdout=io.StringIO())
    assert caught.value.returncode == 2
    assert str(caught.value) == f"none of the 1 run(s) can be re-run: {reason}"


def test_an_enqueued_replay_reports_its_runs_queued_and_judges_nothing(
    user_app, django_capture_on_commit_callbacks
):
    """Queued runs have no steps yet: no first divergence is made up from the recorded run's
    first step, and the gate says nothing (``failed`` null), rather than "failed"."""
    sources = user_app.record(REQUESTS[:2])

    with django_capture_on_commit_callbacks(execute=False):
        data = regress_here("--runs", *[str(s.pk) for s in sources], "--enqueue")

    assert [row["status"] for row in data["runs"]] == ["queued", "queued"]
    assert [row["first_divergence"] for row in data["runs"]] == [None, None]
    assert data["failed"] is None and data["finished"] is False
