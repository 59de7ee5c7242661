"""Asking for a fork that was already made opens it (issue 16, item 7).

The one rule (``runs.engine.forking.forks.open_fork``): the same source run, step, override
(node, field and typed value) and mode is the same fork. A cache-mode fork is reused while it
is queued, running or completed; a failed or interrupted one is not (asking again is a retry);
a live fork is always new (that is how jitter is measured); an unchanged replay is reused only
while it is still on its way (a double submit), since asking for a finished replay again is
asking to check again. The dashboard's fork editor and Replay unchanged button, the API and
``rewind_fork`` all go through it; ``rewind_replay`` and grids keep making new runs.
"""

from __future__ import annotations

import io
import json
import threading

import pytest
from django.core.management import call_command
from django.db import connection

from runs.engine.forking.forks import make_fork, open_fork, resolve_fork
from runs.engine.forking.replays import create_replay, replay_request
from runs.models import Run

pytestmark = pytest.mark.django_db

ANALYSE = 2  # the research pipeline's analyse step (a tool node: args.cost_scale is a float)
HTMX = {"HX-Request": "true"}


def forks_of(run: Run) -> list[int]:
    return list(Run.objects.filter(parent=run).order_by("pk").values_list("pk", flat=True))


def fork_url(run: Run, step: int = ANALYSE) -> str:
    return f"/runs/{run.pk}/nodes/{step}/fork/"


def api_fork(client, run: Run, **body) -> tuple[int, dict]:
    response = client.post(
        f"/api/runs/{run.pk}/forks", json.dumps(body), content_type="application/json"
    )
    return response.status_code, response.json()


# --- the rule, in the engine -----------------------------------------------------------------


def test_the_same_fork_twice_opens_the_first(research_run):
    first = open_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "3"))
    second = open_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "3"))

    assert (first.reused, second.reused) == (False, True)
    assert second.run.pk == first.run.pk
    assert forks_of(research_run) == [first.run.pk]


def test_a_float_field_typed_3_or_3_point_0_is_the_same_fork(research_run):
    typed = open_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "3.0"))
    from_json_int = open_fork(
        resolve_fork(research_run, str(ANALYSE), "args.cost_scale", 3, from_text=False)
    )

    assert from_json_int.reused and from_json_int.run.pk == typed.run.pk


@pytest.mark.parametrize(
    "other",
    [
        ("analyse", "args.cost_scale", "4"),  # another value
        ("analyse", "args.min_contacts", "2"),  # another field
        ("critique", "temperature", "0.5"),  # another step
        ("analyse", None, None),  # no override: an unchanged replay from that step
    ],
)
def test_a_different_fork_is_a_new_run(research_run, other):
    first = open_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "3"))
    node, field, value = other

    made = open_fork(resolve_fork(research_run, node, field, value))

    assert not made.reused and made.run.pk != first.run.pk


def test_the_same_fork_of_another_run_is_a_new_run(research_run, run_pipeline):
    other_source = run_pipeline("research")
    first = open_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "3"))

    made = open_fork(resolve_fork(other_source, "analyse", "args.cost_scale", "3"))

    assert not made.reused and made.run.pk != first.run.pk


def test_a_live_fork_is_always_a_new_run(research_run):
    cached = open_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "3"))
    live = [
        open_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "3", live=True))
        for _ in range(2)
    ]

    assert [opened.reused for opened in live] == [False, False]
    assert len({cached.run.pk, live[0].run.pk, live[1].run.pk}) == 3
    # and a cached request does not open a live fork either: the modes differ
    again = open_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "3"))
    assert again.run.pk == cached.run.pk


@pytest.mark.parametrize("status", [Run.Status.QUEUED, Run.Status.RUNNING, Run.Status.COMPLETED])
def test_a_fork_on_its_way_or_completed_is_reused(research_run, status):
    first = open_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "3")).run
    Run.objects.filter(pk=first.pk).update(status=status)

    again = open_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "3"))

    assert again.reused and again.run.pk == first.pk


@pytest.mark.parametrize("status", [Run.Status.FAILED, Run.Status.INTERRUPTED])
def test_a_failed_or_interrupted_fork_is_not_reused_asking_again_retries(research_run, status):
    first = open_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "3")).run
    Run.objects.filter(pk=first.pk).update(status=status)

    again = open_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "3"))

    assert not again.reused and again.run.pk != first.pk


def test_a_stability_sample_is_never_opened_as_a_fork(research_run):
    sample = make_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "3"))
    Run.objects.filter(pk=sample.pk).update(sample_of=research_run)

    made = open_fork(resolve_fork(research_run, "analyse", "args.cost_scale", "3"))

    assert not made.reused


def test_an_unchanged_replay_is_reused_only_while_on_its_way(research_run):
    first = open_fork(replay_request(research_run))
    double_submit = open_fork(replay_request(research_run))
    assert double_submit.reused and double_submit.run.pk == first.run.pk

    Run.objects.filter(pk=first.run.pk).update(status=Run.Status.COMPLETED)
    check_again = open_fork(replay_request(research_run))

    assert not check_again.reused and check_again.run.pk != first.run.pk


def test_a_replay_of_a_fork_follows_the_replay_rule(research_run, run_fork):
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")
    assert fork.status == Run.Status.COMPLETED, fork.error
    first = open_fork(replay_request(fork))
    assert open_fork(replay_request(fork)).run.pk == first.run.pk  # while queued

    Run.objects.filter(pk=first.run.pk).update(status=Run.Status.COMPLETED)

    assert not open_fork(replay_request(fork)).reused


def test_batch_replays_and_make_fork_still_make_new_runs(research_run):
    """``rewind_replay`` re-checks every time, grids and samples run again: ``make_fork``
    and ``create_replay`` are not deduplicated."""
    fork = resolve_fork(research_run, "analyse", "args.cost_scale", "3")
    assert make_fork(fork).pk != make_fork(fork).pk
    assert create_replay(research_run).pk != create_replay(research_run).pk


@pytest.mark.django_db(transaction=True)
def test_identical_requests_at_once_make_one_run(research_run):
    """Eight threads ask for the same fork at the same moment, each on its own connection:
    one run is made and every thread gets it. (On PostgreSQL the lock on the source row is
    what serialises them: run with ``DATABASE_URL``.)"""
    threads, results, errors = 8, [], []
    start = threading.Barrier(threads)

    def ask() -> None:
        try:
            source = Run.objects.get(pk=research_run.pk)
            fork = resolve_fork(source, "analyse", "args.cost_scale", "7")
            start.wait()
            results.append(open_fork(fork))
        except BaseException as exc:  # noqa: BLE001 — reported below
            errors.append(exc)
        finally:
            connection.close()

    workers = [threading.Thread(target=ask) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)

    assert not errors, errors
    assert len({opened.run.pk for opened in results}) == 1
    assert sorted(opened.reused for opened in results) == [False] + [True] * (threads - 1)
    assert len(forks_of(research_run)) == 1


# --- the fork editor -------------------------------------------------------------------------


def test_anonymous_user_cannot_fork(client, research_run):
    response = client.post(fork_url(research_run), {"args.cost_scale": "3"})

    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert forks_of(research_run) == []


def test_submitting_the_fork_editor_twice_makes_one_run_and_says_so(signed_in, research_run):
    first = signed_in.post(fork_url(research_run), {"args.cost_scale": "3"})
    second = signed_in.post(fork_url(research_run), {"args.cost_scale": "3.0"}, follow=True)

    (made,) = forks_of(research_run)
    assert first.status_code == 302 and first["Location"] == f"/runs/{made}/"
    assert second.redirect_chain == [(f"/runs/{made}/", 302)]
    text = second.content.decode()
    assert f"You already made this fork: run {made} (queued)" in text
    assert 'class="messages" role="status"' in text


def test_htmx_double_submit_is_redirected_to_the_existing_fork(signed_in, research_run):
    first = signed_in.post(fork_url(research_run), {"args.cost_scale": "3"}, headers=HTMX)
    second = signed_in.post(fork_url(research_run), {"args.cost_scale": "3"}, headers=HTMX)

    (made,) = forks_of(research_run)
    assert first["HX-Redirect"] == second["HX-Redirect"] == f"/runs/{made}/"
    # the message waits for the page the client redirect loads
    assert f"You already made this fork: run {made}" in signed_in.get(f"/runs/{made}/").text


def test_the_editor_offers_live_and_a_live_fork_is_always_new(signed_in, research_run):
    page = signed_in.get(fork_url(research_run)).content.decode()
    assert '<input type="checkbox" name="live" value="1">' in page

    for _ in range(2):
        response = signed_in.post(fork_url(research_run), {"args.cost_scale": "3", "live": "1"})
        assert response.status_code == 302

    made = Run.objects.filter(parent=research_run)
    assert made.count() == 2 and set(made.values_list("mode", flat=True)) == {Run.Mode.LIVE}


def test_replay_unchanged_twice_while_queued_opens_the_first(signed_in, research_run):
    url = f"/runs/{research_run.pk}/replay/"
    first = signed_in.post(url)
    second = signed_in.post(url, follow=True)

    (made,) = forks_of(research_run)
    assert first["Location"] == f"/runs/{made}/"
    assert f"You already asked for this replay: run {made} (queued)" in second.content.decode()


def test_the_editors_replay_button_twice_while_queued_opens_the_first(signed_in, research_run):
    for _ in range(2):
        response = signed_in.post(fork_url(research_run), {"replay": "1"})
        assert response.status_code == 302

    assert len(forks_of(research_run)) == 1


# --- the API ---------------------------------------------------------------------------------


def test_api_answers_201_for_a_new_fork_and_200_with_the_existing_one(signed_in, research_run):
    body = {"node": "analyse", "field": "args.cost_scale", "value": 3}
    status_new, new = api_fork(signed_in, research_run, **body)
    status_again, again = api_fork(signed_in, research_run, **{**body, "value": 3.0})

    assert (status_new, new["reused"]) == (201, False)
    assert (status_again, again["reused"]) == (200, True)
    assert again["run"] == new["run"] and forks_of(research_run) == [new["run"]]
    # the rest is the run object of the contract, unchanged
    assert set(again) - {"reused"} == set(signed_in.get(f"/api/runs/{new['run']}").json())


def test_api_live_forks_are_always_new(signed_in, research_run):
    body = {"node": "analyse", "field": "args.cost_scale", "value": 3, "live": True}
    answers = [api_fork(signed_in, research_run, **body) for _ in range(2)]

    assert [status for status, _ in answers] == [201, 201]
    assert len(forks_of(research_run)) == 2


def test_api_anonymous_caller_makes_nothing(client, research_run):
    status, body = api_fork(client, research_run, node="analyse", field="args.cost_scale", value=3)

    assert status == 401 and forks_of(research_run) == []


# --- rewind_fork -----------------------------------------------------------------------------


def rewind_fork(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("rewind_fork", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_rewind_fork_twice_prints_the_existing_fork(research_run):
    args = (str(research_run.pk), "--node", "analyse", "--set", "args.cost_scale=3")
    first, _ = rewind_fork(*args, "--json")
    second, notice = rewind_fork(*args, "--json")

    made, opened = json.loads(first), json.loads(second)
    # stdout: the same contract object, alone, saying it was opened rather than made
    assert (made.pop("reused"), opened.pop("reused")) == (False, True)
    assert opened == made
    assert f"you already made this fork: run {made['run']} (completed)" in notice
    assert "--live makes a new run" in notice
    assert forks_of(research_run) == [made["run"]]


def test_rewind_fork_live_makes_a_new_run(research_run):
    args = (str(research_run.pk), "--node", "analyse", "--set", "args.cost_scale=3")
    rewind_fork(*args)
    _, notice = rewind_fork(*args, "--live")

    assert notice == "" and len(forks_of(research_run)) == 2


def test_rewind_fork_retries_a_failed_fork(research_run):
    args = (str(research_run.pk), "--node", "analyse", "--set", "args.cost_scale=3")
    rewind_fork(*args)
    Run.objects.filter(parent=research_run).update(status=Run.Status.FAILED)

    out, notice = rewind_fork(*args)

    assert notice == "" and len(forks_of(research_run)) == 2
    assert " completed" in out.splitlines()[0]
