"""The daily budget on the dashboard and the API: staff set it on ``/settings/``, everyone sees
their spend there, and work a non-staff user starts (a fork, a replay, samples, a grid, a new
run, the API's runs and forks) that would exceed it is refused before anything is written or
queued — 429 with what is left today. Staff are exempt. The rules themselves are tested in
``test_budgets.py``."""

from __future__ import annotations

from decimal import Decimal

import pytest

from runs.engine.analysis.projection import projected_cost
from runs.engine.forking.forks import resolve_fork
from runs.models import Grid, LLMCacheEntry, Node, ProviderSettings, Run

pytestmark = pytest.mark.django_db

SETTINGS = "/settings/"
PLAN, ANALYSE = 0, 2  # research pipeline steps
HTMX = {"HX-Request": "true"}


def budget(tokens: int | None = None, usd: str | None = None) -> None:
    ProviderSettings.objects.update_or_create(
        pk=1, defaults={"daily_tokens": tokens, "daily_usd": None if usd is None else Decimal(usd)}
    )


def settings_form(**fields: str) -> dict[str, str]:
    return {
        "preset": "",
        "base_url": "",
        "model": "",
        "temperature": "",
        "daily_tokens": "",
        "daily_usd": "",
        **fields,
    }


def new_run_form(**fields: str) -> dict[str, str]:
    return {
        "pipeline": "research",
        "input.question": "Which outreach policy gives the lowest cost per conversion?",
        "input.region": "all",
        "model": "",
        "temperature": "",
        **fields,
    }


def fork_tokens(run: Run) -> int:
    """What forking the demo run at analyse with cost_scale=3 is projected to use."""
    return projected_cost(resolve_fork(run, "analyse", "args.cost_scale", "3")).tokens


def live_tokens(run: Run) -> int:
    return sum(n.total_tokens for n in run.nodes.filter(cache_source=Node.CacheSource.LIVE))


# --- anonymous -------------------------------------------------------------------------------


def test_anonymous_users_are_sent_to_login_and_start_nothing(client, research_run):
    budget(tokens=1)
    count = Run.objects.count()

    fork = client.post(f"/runs/{research_run.pk}/nodes/{ANALYSE}/fork/", {"args.cost_scale": "3"})
    page = client.get(SETTINGS)
    api = client.post("/api/runs", {}, content_type="application/json")

    assert fork.status_code == page.status_code == 302
    assert fork["Location"].startswith("/login/")
    assert api.status_code == 401 and api.json() == {"error": "sign in first"}
    assert Run.objects.count() == count


# --- setting it ------------------------------------------------------------------------------


def test_staff_set_the_daily_budget_on_the_settings_page(staff_client, rewind_settings):
    response = staff_client.post(SETTINGS, settings_form(daily_tokens="5000", daily_usd="1.50"))

    assert response.status_code == 302
    saved = ProviderSettings.objects.get()
    assert (saved.daily_tokens, saved.daily_usd) == (5000, Decimal("1.50"))
    text = staff_client.get(SETTINGS).content.decode()
    assert 'name="daily_tokens" value="5000"' in text
    assert "<dt>limit per user</dt><dd>5,000 tokens and $1.50 a day</dd>" in text
    assert "<dt>left today</dt><dd>not limited: staff are exempt</dd>" in text


def test_blank_limits_mean_no_limit(staff_client, rewind_settings):
    budget(tokens=5000, usd="1")

    staff_client.post(SETTINGS, settings_form())

    saved = ProviderSettings.objects.get()
    assert (saved.daily_tokens, saved.daily_usd) == (None, None)
    assert "<dd>none: work is not limited</dd>" in staff_client.get(SETTINGS).content.decode()


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"daily_tokens": "-1"}, "greater than or equal to 0"),
        ({"daily_tokens": "lots"}, "Enter a whole number."),
        ({"daily_usd": "0.001"}, "no more than 2 decimal places"),
    ],
)
def test_a_bad_limit_is_refused_and_saves_nothing(staff_client, rewind_settings, fields, message):
    response = staff_client.post(SETTINGS, settings_form(**fields))

    assert response.status_code == 400
    assert message in response.content.decode()
    assert not ProviderSettings.objects.exists()


def test_a_non_staff_user_cannot_change_the_budget(signed_in, rewind_settings):
    budget(tokens=100)

    response = signed_in.post(SETTINGS, settings_form(daily_tokens="999999"))

    assert response.status_code == 403
    assert ProviderSettings.objects.get().daily_tokens == 100


def test_a_user_sees_what_they_spent_today_and_what_is_left(
    signed_in, dev_user, run_row, node_row, rewind_settings
):
    budget(tokens=5000, usd="0.50")
    run = run_row(created_by=dev_user)
    node_row(run, 0, total_tokens=1200, cost_usd=Decimal("0.1234"))

    text = signed_in.get(SETTINGS).content.decode()

    assert "<dt>you spent today</dt><dd>1,200 tokens, $0.1234</dd>" in text
    assert "<dt>left today</dt><dd>3,800 tokens, $0.3766</dd>" in text


# --- refusals --------------------------------------------------------------------------------


def test_a_fork_over_the_budget_is_refused_with_what_is_left(signed_in, research_run):
    need = fork_tokens(research_run)
    budget(tokens=need - 1)
    count = Run.objects.count()

    response = signed_in.post(
        f"/runs/{research_run.pk}/nodes/{ANALYSE}/fork/", {"args.cost_scale": "3"}, headers=HTMX
    )

    assert response.status_code == 429
    text = response.content.decode()
    assert "<html" not in text  # the editor's fragment, with the reason in it
    assert (
        f"This fork would use about {need:,} tokens; {need - 1:,} of your {need - 1:,} daily "
        "tokens are left" in text
    )
    assert Run.objects.count() == count


def test_a_fork_within_the_budget_is_made_as_the_user_s_and_reserves_its_tokens(
    signed_in, dev_user, research_run
):
    need = fork_tokens(research_run)
    budget(tokens=need)

    response = signed_in.post(
        f"/runs/{research_run.pk}/nodes/{ANALYSE}/fork/", {"args.cost_scale": "3"}
    )

    assert response.status_code == 302
    fork = Run.objects.get(parent=research_run)
    assert (fork.created_by, fork.projected_tokens, fork.status) == (dev_user, need, "queued")
    # Queued, not run: its reservation alone spends the day, so the next fork is refused.
    again = signed_in.post(
        f"/runs/{research_run.pk}/nodes/{ANALYSE}/fork/", {"args.cost_scale": "4"}
    )
    assert again.status_code == 429
    assert f"0 of your {need:,} daily tokens are left" in again.content.decode()


def test_an_unchanged_replay_costs_nothing_and_passes_a_spent_budget(
    signed_in, dev_user, research_run, run_row, node_row
):
    budget(tokens=100)
    node_row(run_row(created_by=dev_user), 0, total_tokens=500)  # overspent today

    editor = signed_in.post(f"/runs/{research_run.pk}/nodes/{PLAN}/fork/", {"replay": "1"})
    page = signed_in.post(f"/runs/{research_run.pk}/replay/")

    assert editor.status_code == page.status_code == 302
    # The second asks for the replay the first made, still queued: it is opened, not made again.
    (replay,) = Run.objects.filter(parent=research_run, created_by=dev_user)
    assert editor["Location"] == page["Location"] == f"/runs/{replay.pk}/"


def test_a_fork_already_made_opens_even_on_a_spent_budget(
    signed_in, dev_user, research_run, run_row, node_row
):
    """Opening the same fork again costs nothing: no budget refuses it."""
    analyse = research_run.nodes.get(name="analyse").sequence_id
    url = f"/runs/{research_run.pk}/nodes/{analyse}/fork/"
    made = signed_in.post(url, {"args.cost_scale": "3"})
    assert made.status_code == 302
    budget(tokens=1)
    node_row(run_row(created_by=dev_user), 0, total_tokens=500)  # overspent today

    again = signed_in.post(url, {"args.cost_scale": "3"})

    assert again.status_code == 302 and again["Location"] == made["Location"]
    assert Run.objects.filter(parent=research_run).count() == 1


def test_a_replay_the_cache_cannot_serve_is_refused_on_the_run_page(signed_in, research_run):
    LLMCacheEntry.objects.all().delete()  # the replay's llm steps would go to the provider
    budget(tokens=1)
    count = Run.objects.count()

    response = signed_in.post(f"/runs/{research_run.pk}/replay/")

    assert response.status_code == 429
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode().startswith("This replay would use about ")
    assert "1 of your 1 daily tokens are left" in response.content.decode()
    assert Run.objects.count() == count


def test_samples_over_the_budget_are_refused_and_none_is_made(signed_in, research_run):
    budget(tokens=2 * live_tokens(research_run) - 1)

    response = signed_in.post(f"/runs/{research_run.pk}/stability/", {"k": "2", "node": "0"})

    assert response.status_code == 429
    assert (
        f"These 2 samples would use about {2 * live_tokens(research_run):,} tokens"
        in response.content.decode()
    )
    research_run.refresh_from_db()
    assert research_run.sample_count == 0 and not research_run.samples.exists()


def test_samples_within_the_budget_are_the_user_s(signed_in, dev_user, research_run):
    budget(tokens=2 * live_tokens(research_run))

    response = signed_in.post(f"/runs/{research_run.pk}/stability/", {"k": "2", "node": "0"})

    assert response.status_code == 302
    samples = list(research_run.samples.all())
    assert len(samples) == 2
    assert {(s.created_by, s.projected_tokens) for s in samples} == {
        (dev_user, live_tokens(research_run))
    }


def test_a_grid_over_the_budget_is_refused_and_writes_nothing(signed_in, research_run):
    budget(tokens=2 * fork_tokens(research_run) - 1)
    count = Run.objects.count()

    response = signed_in.post(
        f"/runs/{research_run.pk}/nodes/{ANALYSE}/grid/",
        {"field": "args.cost_scale", "values": "3\n4"},
    )

    assert response.status_code == 429
    assert "This grid of 2 forks would use about" in response.content.decode()
    assert Run.objects.count() == count and not Grid.objects.exists()


def test_a_grid_within_the_budget_makes_the_user_s_forks(signed_in, dev_user, research_run):
    budget(tokens=2 * fork_tokens(research_run))

    response = signed_in.post(
        f"/runs/{research_run.pk}/nodes/{ANALYSE}/grid/",
        {"field": "args.cost_scale", "values": "3\n4"},
    )

    assert response.status_code == 302
    grid = Grid.objects.get()
    assert [row.run.created_by for row in grid.rows.all()] == [dev_user, dev_user]


def test_a_new_run_is_refused_when_the_last_run_s_tokens_do_not_fit(signed_in, research_run):
    budget(tokens=live_tokens(research_run) - 1)
    count = Run.objects.count()

    response = signed_in.post("/runs/new/", new_run_form(), headers=HTMX)

    assert response.status_code == 429
    assert (
        f"This run would use about {live_tokens(research_run):,} tokens"
        in response.content.decode()
    )
    assert Run.objects.count() == count


def test_a_new_run_with_no_history_is_refused_only_once_the_day_is_spent(
    signed_in, dev_user, rewind_settings, run_row, node_row
):
    budget(tokens=1000)

    first = signed_in.post("/runs/new/", new_run_form())
    assert first.status_code == 302
    run = Run.objects.get()
    assert (run.created_by, run.projected_tokens) == (dev_user, None)

    node_row(run_row(created_by=dev_user, pipeline="loop"), 0, total_tokens=1000)  # not history
    second = signed_in.post("/runs/new/", new_run_form())
    assert second.status_code == 429
    assert "0 of your 1,000 daily tokens are left; this run cannot be estimated" in (
        second.content.decode()
    )


def test_staff_are_not_limited(staff_client, staff_user, research_run):
    budget(tokens=1, usd="0.01")

    response = staff_client.post(
        f"/runs/{research_run.pk}/nodes/{ANALYSE}/fork/", {"args.cost_scale": "3"}
    )

    assert response.status_code == 302
    assert Run.objects.get(parent=research_run).created_by == staff_user


# --- the API ---------------------------------------------------------------------------------


def test_the_api_refuses_a_fork_over_the_budget_with_429_json(signed_in, research_run):
    need = fork_tokens(research_run)
    budget(tokens=100)
    count = Run.objects.count()

    response = signed_in.post(
        f"/api/runs/{research_run.pk}/forks",
        {"node": "analyse", "field": "args.cost_scale", "value": 3},
        content_type="application/json",
    )

    assert response.status_code == 429
    assert response.json() == {
        "error": f"This fork would use about {need:,} tokens; 100 of your 100 daily tokens are left"
    }
    assert 0 < int(response["Retry-After"]) <= 24 * 3600 + 1
    assert Run.objects.count() == count


def test_the_api_refuses_a_new_run_over_the_budget(signed_in, research_run):
    budget(tokens=10)

    response = signed_in.post(
        "/api/runs", {"pipeline": "research"}, content_type="application/json"
    )

    assert response.status_code == 429
    assert response.json()["error"].startswith("This run would use about")


def test_the_api_s_runs_are_the_user_s(signed_in, dev_user, research_run):
    run = signed_in.post("/api/runs", {}, content_type="application/json")
    fork = signed_in.post(
        f"/api/runs/{research_run.pk}/forks", {"node": "critique"}, content_type="application/json"
    )

    assert run.status_code == fork.status_code == 201
    made = Run.objects.filter(pk__in=[run.json()["run"], fork.json()["run"]])
    assert [r.created_by for r in made] == [dev_user, dev_user]


def test_a_dollar_budget_refuses_work_of_unknown_cost(signed_in, run_row, node_row):
    source = run_row()
    node_row(source, 0, total_tokens=500, cost_usd=None, model_answered="mystery-1")
    budget(usd="5.00")

    response = signed_in.post(
        f"/api/runs/{source.pk}/forks", {"node": 0, "live": True}, content_type="application/json"
    )

    assert response.status_code == 429
    assert "model with no price, so its cost is unknown" in response.json()["error"]


def test_a_crossed_grid_projects_and_records_one_fork_per_row(signed_in, dev_user, research_run):
    # 2 values × (1 + 1 cross value) = 4 forks, each at least a fork's projection
    crossed = {
        "field": "args.cost_scale",
        "values": "3\n4",
        "cross_field": "args.min_contacts",
        "cross_values": "2",
    }
    budget(tokens=2 * fork_tokens(research_run))
    count = Run.objects.count()

    refused = signed_in.post(f"/runs/{research_run.pk}/nodes/{ANALYSE}/grid/", crossed)

    assert refused.status_code == 429
    assert "This grid of 4 forks would use about" in refused.content.decode()
    assert Run.objects.count() == count and not Grid.objects.exists()

    budget(tokens=8 * fork_tokens(research_run))
    response = signed_in.post(f"/runs/{research_run.pk}/nodes/{ANALYSE}/grid/", crossed)

    assert response.status_code == 302
    runs = [row.run for row in Grid.objects.get().rows.all()]
    assert len(runs) == 4 and {run.created_by for run in runs} == {dev_user}
    assert all(run.projected_tokens for run in runs)  # each reserves its own projection
