"""The compare page's bisect (issue 17, item 3): offered for each outcome two runs disagree on;
``POST /compare/<good>/<bad>/bisect/`` queues it, the page shows it from the forks that exist.

Apps and runs: ``helpers/bisect_runs.py`` (12-step relays: GOOD's verdict "pass", BAD's "fail")."""

from __future__ import annotations

import pytest
from django_tasks_db.models import DBTaskResult

from runs.engine.run_sets.bisect import bisect
from runs.models import Run
from runs.tests.helpers.bisect_runs import apps, relay_runs  # noqa: F401 — the fixture, shared


def url(good: Run, bad: Run) -> str:
    return f"/compare/{good.pk}/{bad.pk}/bisect/"


def test_anonymous_users_are_sent_to_sign_in_and_nothing_is_queued(apps, client):  # noqa: F811
    good, bad = relay_runs("relay12", 7)

    page = client.get(url(good, bad), {"outcome": "verdict"})
    start = client.post(url(good, bad), {"outcome": "verdict"})

    assert page.status_code == start.status_code == 302
    assert start["Location"].startswith("/login/")
    assert DBTaskResult.objects.count() == 0 and Run.objects.count() == 2


def test_the_compare_page_offers_a_bisect_in_both_directions(apps, signed_in):  # noqa: F811
    good, bad = relay_runs("relay12", 7)

    text = signed_in.get(f"/compare/{good.pk}/{bad.pk}/").content.decode()

    assert 'class="bisect-offer"' in text
    assert f'formaction="/compare/{good.pk}/{bad.pk}/bisect/"' in text
    assert f'formaction="/compare/{bad.pk}/{good.pk}/bisect/"' in text
    assert 'name="outcome" value="verdict"' in text


def test_the_compare_page_offers_nothing_when_the_outcomes_agree(apps, signed_in):  # noqa: F811
    good, _ = relay_runs("relay12", 7)
    other, _ = relay_runs("relay12", 7)  # seed 1 again: "pass" as well

    text = signed_in.get(f"/compare/{good.pk}/{other.pk}/").content.decode()

    assert "bisect-offer" not in text


def test_a_post_queues_one_task_and_goes_to_the_page_that_polls(apps, signed_in):  # noqa: F811
    good, bad = relay_runs("relay12", 7)

    response = signed_in.post(url(good, bad), {"outcome": "verdict"})

    (task,) = DBTaskResult.objects.all()
    assert task.args_kwargs["args"][:3] == [good.pk, bad.pk, "verdict"]
    assert response.status_code == 302
    assert response["Location"] == f"{url(good, bad)}?outcome=verdict&task={task.id}"
    page = signed_in.get(response["Location"])
    assert page.status_code == 200
    assert "running" in page.content.decode() and 'hx-trigger="every 1s"' in page.content.decode()
    poll = signed_in.get(response["Location"], headers={"HX-Request": "true"})
    assert poll.status_code == 200 and "<html" not in poll.content.decode()


def test_htmx_post_is_answered_with_a_client_redirect(apps, signed_in):  # noqa: F811
    good, bad = relay_runs("relay12", 7)

    response = signed_in.post(
        url(good, bad), {"outcome": "verdict"}, headers={"HX-Request": "true"}
    )

    assert response.status_code == 200
    assert response["HX-Redirect"].startswith(f"{url(good, bad)}?outcome=verdict&task=")


def test_the_task_bisects_and_the_page_shows_the_step_and_stops_polling(
    apps,  # noqa: F811
    signed_in,
    immediate_tasks,
):
    good, bad = relay_runs("relay12", 7)

    response = signed_in.post(url(good, bad), {"outcome": "verdict"}, follow=True)

    text = response.content.decode()
    assert response.status_code == 200
    # The default budget (⌈log₂ 12⌉ + 2 = 6 forks): named and confirmed, not every step tried.
    assert "Step <strong>s07</strong> (step 6) flips verdict" in text
    assert "3 earlier differing steps not tried within the budget" in text
    assert "<code>v07.verdict</code>" in text
    assert "monotone: unknown" in text and "every 1s" not in text
    assert "6 forks of a budget of 6, over 12 differing steps." in text
    assert '<button type="submit">Check every step</button>' in text
    made = bisect(good, bad, "verdict")  # the same forks, reused: the page showed them
    for pk in made.forks:
        assert f"fork {pk}</a>" in text
    poll = signed_in.get(f"{url(good, bad)}?outcome=verdict", headers={"HX-Request": "true"})
    assert poll.status_code == 286  # finished: htmx stops polling


def test_a_bisect_not_started_offers_the_button_and_makes_nothing(apps, signed_in):  # noqa: F811
    good, bad = relay_runs("relay12", 7)

    text = signed_in.get(url(good, bad), {"outcome": "verdict"}).content.decode()

    assert "Not bisected yet" in text
    assert Run.objects.count() == 2


@pytest.mark.parametrize(
    ("outcome", "message"),
    [
        ("nope", "pipeline relay12 has no outcome &#x27;nope&#x27;"),
        ("", "choose the outcome to bisect"),
    ],
)
def test_a_bad_outcome_is_a_400_and_queues_nothing(apps, signed_in, outcome, message):  # noqa: F811
    good, bad = relay_runs("relay12", 7)

    response = signed_in.post(url(good, bad), {"outcome": outcome})

    assert response.status_code == 400
    assert message in response.content.decode()
    assert DBTaskResult.objects.count() == 0


def test_runs_of_different_pipelines_are_a_400(apps, signed_in, research_run):  # noqa: F811
    good, _ = relay_runs("relay12", 7)

    response = signed_in.post(url(good, research_run), {"outcome": "verdict"})

    assert response.status_code == 400
    assert "different pipelines" in response.content.decode()
    assert DBTaskResult.objects.count() == 0


def test_a_task_id_that_is_no_id_is_a_400(apps, signed_in):  # noqa: F811
    good, bad = relay_runs("relay12", 7)
    assert signed_in.get(url(good, bad), {"outcome": "verdict", "task": "../x"}).status_code == 400


def test_an_unknown_run_is_a_404(db, signed_in):
    assert signed_in.get("/compare/998/999/bisect/").status_code == 404


def test_the_task_opens_its_forks_as_the_users_within_their_budget(
    research_run, run_fork, django_user_model
):
    """Swapping GOOD's analyse into BAD makes the steps after it GOOD's: the cache answers
    them, the fork is projected at 0 tokens and fits even a spent budget, and is the user's."""
    from runs.models import ProviderSettings
    from runs.tasks import bisect_task

    bad = run_fork(research_run, "analyse", "args.region", "east")
    saved = ProviderSettings.load()
    saved.daily_tokens = 1
    saved.save()
    user = django_user_model.objects.create_user("analyst")

    result = bisect_task.call(research_run.pk, bad.pk, "best_group", user.pk)

    assert result["step"]["node"] == "analyse"
    (fork,) = Run.objects.filter(pk__in=result["forks"])
    assert fork.created_by == user
    assert fork.projected_tokens == 0
    assert sum(n.total_tokens for n in fork.nodes.filter(cache_source="live")) == 0


def test_the_page_shows_the_verified_step_every_decisive_step_and_the_budget(
    apps,  # noqa: F811
    signed_in,
    immediate_tasks,
):
    """Issue 30: s12 reads s03 directly, the steps between do not carry it."""
    good, bad = relay_runs("relay12", 3, join=12, carry=False)

    text = signed_in.post(
        url(good, bad), {"outcome": "verdict", "budget": "12"}, follow=True
    ).content.decode()

    made = bisect(good, bad, "verdict", budget=12)  # the same forks, reused: the page's
    (confirming,) = made.verified.forks
    assert "Step <strong>s03</strong> (step 2) decides verdict" in text
    assert "Confirmed by a fork that swaps that step alone" in text
    assert f'(<a href="/compare/{bad.pk}/{confirming}/">fork {confirming}</a>)' in text
    assert "No earlier step's swap flips it." in text
    assert "not monotone: swapping s03 (step 2) flips verdict but swapping s04 (step 3)" in text
    assert '<ul class="bisect-decisive">' in text
    assert (
        "<strong>s12</strong> (step 11): the step verdict reads — it flips by construction" in text
    )
    assert "11 forks of a budget of 12, over 12 differing steps." in text
    assert "Still unknown" not in text and "every 1s" not in text


def test_a_budget_that_ran_out_shows_what_is_unknown_and_offers_to_try_it(
    apps,  # noqa: F811
    signed_in,
    immediate_tasks,
):
    good, bad = relay_runs("relay12", 3, join=12, carry=False)

    response = signed_in.post(url(good, bad), {"outcome": "verdict", "budget": "5"}, follow=True)

    text = response.content.decode()
    assert response.redirect_chain[-1][0].startswith(f"{url(good, bad)}?outcome=verdict&budget=5")
    assert "Step <strong>s12</strong> (step 11) flips verdict" in text
    assert "7 earlier differing steps not tried within the budget" in text
    assert "monotone: unknown — 7 of 12 differing steps not tried within the budget of 5" in text
    assert "5 forks of a budget of 5" in text
    assert (
        "Still unknown — not tried when the budget ran out: <strong>s02</strong> (step 1)" in text
    )
    assert 'name="budget" value="12" min="1" max="10000" required>' in text
    assert "Check every step" in text
    poll = signed_in.get(
        f"{url(good, bad)}?outcome=verdict&budget=5", headers={"HX-Request": "true"}
    )
    assert poll.status_code == 286 and "<html" not in poll.content.decode()
    assert "Still unknown" in poll.content.decode()

    text = signed_in.post(
        url(good, bad), {"outcome": "verdict", "budget": "12"}, follow=True
    ).content.decode()

    assert "Step <strong>s03</strong> (step 2) decides verdict" in text


@pytest.mark.parametrize("budget", ["0", "-3", "many", "10001", "2.5"])
def test_a_bad_budget_is_the_page_again_with_a_clear_error(apps, signed_in, budget):  # noqa: F811
    good, bad = relay_runs("relay12", 7)

    response = signed_in.post(url(good, bad), {"outcome": "verdict", "budget": budget})

    assert response.status_code == 400 and DBTaskResult.objects.count() == 0
    text = response.content.decode()
    assert "the budget is a whole number of forks from 1 to 10000" in text
    assert "<html" in text and 'class="bisect-offer"' in text  # the page, not a bare 400


def test_the_page_says_no_single_step_decides_it_and_offers_the_pairs(
    apps,  # noqa: F811
    signed_in,
    immediate_tasks,
):
    """Issue 43: the ``both`` app's verdict is ``x and y`` (helpers/bisect_apps.py)."""
    from runs.tests.helpers.bisect_runs import both_runs

    good, bad = both_runs()

    text = signed_in.post(url(good, bad), {"outcome": "verdict"}, follow=True).content.decode()

    assert '<h2 id="bisect-answer">No single step decides verdict</h2>' in text
    assert "No pair of steps was swapped together within the budget of 4 forks." in text
    assert "No step's swap alone flips it but that of <strong>verdict</strong> (step 3)" in text
    assert "Pairs not tried together yet: 3." in text
    assert 'name="budget" value="7" min="1" max="10000" required> forks' in text
    assert '<button type="submit">Try pairs</button>' in text
    assert "Steps whose swap alone flips" not in text  # the finding says it instead

    text = signed_in.post(
        url(good, bad), {"outcome": "verdict", "budget": "7"}, follow=True
    ).content.decode()

    made = bisect(good, bad, "verdict", budget=7)  # the same forks, reused: the page's
    pair = made.together
    assert (
        "Swapping <strong>x</strong> (step 0) and <strong>y</strong> (step 2) together flips it: "
        f'<a href="/compare/{bad.pk}/{pair.forks[-1]}/">fork {pair.forks[-1]}</a>, made on top of '
        f'<a href="/compare/{bad.pk}/{pair.on_top_of}/">fork {pair.on_top_of}</a> (which swaps x '
        "alone), gets verdict = <code>pass</code>"
    ) in text
    assert (
        '<ol class="bisect-pairs">' in text
        and text.count('<span class="badge outcome-pass">flips') >= 1
    )
    assert '<th scope="row">x: <code>x</code></th>' in text  # the leaves at both steps
    assert '<th scope="row">y: <code>y</code></th>' in text
    assert "Try pairs" not in text and "Check every step" not in text
