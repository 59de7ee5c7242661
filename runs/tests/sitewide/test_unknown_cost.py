"""An unknown cost is unknown, never $0 (issue 7, finding 7).

When the provider answers with a model that has no price (runs/engine/calls/pricing.py), the step's
cost is NULL and the run's total is unknown: ``null`` in JSON (``rewind_run --json``,
``GET /api/runs/<run>``), "—" on pages (run page cost bar, inspector, admin), "unknown" in the
commands' text. A cached step really costs 0 and keeps its 0; the offline simulator keeps its
notional price. The unpriced answers come from the simulator served on 127.0.0.1 with
``substitute_model`` (what ``--substitute-model`` does): a real HTTP provider that asks for
``rewind-sim-1`` and answers as another model.
"""

from __future__ import annotations

import io
import json
import re
from decimal import Decimal
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from runs.engine.analysis.report import run_json
from runs.engine.calls.pricing import PER_MILLION, cost_usd, total_cost
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.providers.simulator import SIMULATOR_MODEL
from runs.models import Node, Run

UNPRICED = "some-unpriced-model"
LLM_NODES = ("plan", "critique", "revise", "compose")


# --- pricing ---------------------------------------------------------------------------------


def test_an_unpriced_model_has_an_unknown_cost_not_zero():
    assert UNPRICED not in PER_MILLION
    assert cost_usd(UNPRICED, 1200, 300) is None
    assert cost_usd(UNPRICED, 0, 0) is None
    assert cost_usd("", 10, 10) is None
    # ...while the offline simulator keeps its notional price
    assert cost_usd(SIMULATOR_MODEL, 1_000_000, 1_000_000) == Decimal("2.000000")
    assert cost_usd(SIMULATOR_MODEL, 1200, 300) > 0


def test_a_dated_snapshot_costs_what_its_model_costs_and_nothing_else_borrows_a_price():
    assert cost_usd("gpt-4o-mini-2024-07-18", 1000, 1000) == cost_usd("gpt-4o-mini", 1000, 1000)
    assert cost_usd("gpt-4.1-nano", 1000, 1000) is None  # not priced as gpt-4.1
    assert cost_usd("gpt-4o-mini-preview", 1000, 1000) is None


def test_a_total_is_unknown_when_any_part_is():
    assert total_cost([]) == 0
    assert total_cost([Decimal("0.1"), Decimal(0)]) == Decimal("0.1")
    assert total_cost([Decimal("0.1"), None, Decimal(0)]) is None


# --- a run answered by an unpriced model -----------------------------------------------------


def rewind_run(*args: str) -> str:
    out = io.StringIO()
    call_command("rewind_run", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def unpriced(serve_simulator, db):
    """The provider: the simulator on loopback, answering every call as ``UNPRICED``."""
    return serve_simulator(substitute_model=UNPRICED)


@pytest.fixture
def unpriced_run(unpriced) -> tuple[Run, dict[str, Any]]:
    data = json.loads(rewind_run("--json"))
    run = Run.objects.get(pk=data["run"])
    assert run.status == Run.Status.COMPLETED, run.error
    return run, data


def test_the_json_of_a_run_answered_by_an_unpriced_model_has_a_null_cost(unpriced_run, signed_in):
    run, data = unpriced_run

    assert data["totals"]["cost_usd"] is None
    assert data["totals"]["live_nodes"] == len(run.nodes.all())
    assert data["totals"]["total_tokens"] > 0  # tokens are still known
    for node in run.nodes.all():
        if node.name in LLM_NODES:
            assert node.model_answered == UNPRICED
            assert node.cost_usd is None, node.name
        else:
            assert node.cost_usd == 0, node.name  # a tool step costs no dollars
    response = signed_in.get(f"/api/runs/{run.pk}")
    assert response.status_code == 200
    assert b'"cost_usd": null' in response.content
    assert response.json()["totals"]["cost_usd"] is None


def test_a_forks_total_is_unknown_only_if_a_step_it_executed_is(unpriced_run, serve_simulator):
    run, _ = unpriced_run
    # An unchanged replay is served from the cache: every step really cost 0, a known 0.
    replay = execute_run(create_fork(run, "plan").pk)
    assert replay.status == Run.Status.COMPLETED, replay.error
    assert run_json(replay)["totals"] == {"total_tokens": 0, "cost_usd": 0.0, "live_nodes": 0}
    assert set(replay.nodes.values_list("cost_usd", flat=True)) == {0}

    # Downstream of analyse, the llm steps miss the cache and go live to an unpriced answer.
    unknown = execute_run(create_fork(run, "analyse", "args.cost_scale", "3").pk)
    assert unknown.status == Run.Status.COMPLETED, unknown.error
    assert run_json(unknown)["totals"]["cost_usd"] is None

    # The same fork against a provider that answers as the priced simulator: what this fork
    # executed is priced, so its total is known although its parent's is not.
    serve_simulator()
    known = execute_run(create_fork(run, "analyse", "args.cost_scale", "4").pk)
    assert known.status == Run.Status.COMPLETED, known.error
    assert known.nodes.filter(cache_source=Node.CacheSource.INHERITED).exists()
    totals = run_json(known)["totals"]
    assert totals["live_nodes"] > 0
    assert totals["cost_usd"] is not None and totals["cost_usd"] > 0


def totals_line(text: str) -> str:
    (line,) = [line for line in text.splitlines() if line.startswith("totals")]
    return line


def test_the_command_text_says_unknown_not_zero(serve_simulator, db):
    serve_simulator(substitute_model=UNPRICED)
    totals = totals_line(rewind_run())
    assert "cost unknown" in totals
    assert "$" not in totals

    serve_simulator()  # priced (and a new question, so the steps miss the cache): dollars
    totals = totals_line(rewind_run("--input", "question=Which region converts best?"))
    assert "unknown" not in totals
    assert re.search(r", \$0\.\d{6}, ", totals) and "$0.000000" not in totals


# --- pages -----------------------------------------------------------------------------------


def cost_section(page: str) -> str:
    """The totals line and the timeline's rows (each step's tokens, cost, duration)."""
    start = page.index('<p class="cost">')
    return page[start : page.index("</section>", page.index('<section id="run-timeline"'))]


def test_the_run_page_shows_a_dash_not_zero_dollars(unpriced_run, signed_in, serve_simulator):
    run, _ = unpriced_run

    response = signed_in.get(f"/runs/{run.pk}/")

    assert response.status_code == 200
    cost = cost_section(response.content.decode())
    summary = cost[: cost.index("</p>")]
    assert "cost —" in summary
    assert "$" not in summary
    for name in LLM_NODES:
        row = cost[cost.index(f'<span class="name">{name}</span>') :]
        row = row[: row.index("</li>")]
        assert ">—</span>" in row, row
        assert "0.000000" not in row, row

    serve_simulator()  # a run answered as the priced simulator still shows dollars
    data = json.loads(rewind_run("--json", "--input", "question=Which region converts best?"))
    assert data["totals"]["cost_usd"] > 0
    cost = cost_section(signed_in.get(f"/runs/{data['run']}/").content.decode())
    assert "—" not in cost
    assert re.search(r" · \$0\.\d{6} · ", cost) and "$0.000000 · " not in cost


def test_the_inspector_shows_a_dash_and_says_why(unpriced_run, signed_in):
    run, _ = unpriced_run
    plan = run.nodes.get(name="plan")

    page = signed_in.get(f"/runs/{run.pk}/nodes/{plan.sequence_id}/").content.decode()

    dd = page[page.index("<dt>cost</dt>") :]
    dd = dd[: dd.index("</dd>")]
    assert "—" in dd and "unknown" in dd and UNPRICED in dd
    assert "$0" not in dd


def test_the_admin_shows_an_unknown_cost_as_a_dash(unpriced_run, admin_client):
    run, _ = unpriced_run
    plan = run.nodes.get(name="plan")
    analyse = run.nodes.get(name="analyse")

    page = admin_client.get(reverse("admin:runs_node_change", args=[plan.pk])).content.decode()
    assert "— (unknown: the model has no price)" in page
    assert "$0.000000" not in page

    page = admin_client.get(reverse("admin:runs_node_change", args=[analyse.pk])).content.decode()
    assert "$0.000000" in page  # a tool step's zero is real


# --- rows written before costs could be unknown ----------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_migration_turns_the_old_zero_of_an_unpriced_answer_into_unknown():
    before, after = ("runs", "0002_provider_settings"), ("runs", "0003_node_cost_unknown")
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes("runs")
    executor.migrate([before])
    try:
        apps = executor.loader.project_state([before]).apps
        OldRun, OldNode = apps.get_model("runs", "Run"), apps.get_model("runs", "Node")
        run = OldRun.objects.create(pipeline="research", status="completed")
        common = {"run": run, "src_run": run, "status": "completed", "kind": "llm"}
        made = {
            "unpriced": {"model_answered": UNPRICED, "total_tokens": 40, "cache_source": "live"},
            "priced": {"model_answered": SIMULATOR_MODEL, "total_tokens": 0},
            "snapshot": {
                "model_answered": "gpt-4o-2024-08-06",
                "prompt_tokens": 1000,
                "completion_tokens": 100,
                "total_tokens": 1100,
            },
            "cached": {"model_answered": UNPRICED, "total_tokens": 0, "cache_source": "cache"},
            "refused": {"model_requested": UNPRICED, "total_tokens": 0},  # never answered
            "tool": {"kind": "tool", "total_tokens": 0},
        }
        ids = {}
        for seq, (name, fields) in enumerate(made.items()):
            values = {**common, "cache_source": "live", **fields}
            node = OldNode.objects.create(
                sequence_id=seq, src_sequence_id=seq, name=name, cost_usd=0, **values
            )
            ids[name] = node.pk

        executor = MigrationExecutor(connection)
        executor.migrate([after])

        costs = dict(Node.objects.filter(pk__in=ids.values()).values_list("name", "cost_usd"))
        assert costs == {
            "unpriced": None,
            "priced": 0,
            "snapshot": Decimal("0.003500"),  # 1000 x $2.50/M + 100 x $10/M
            "cached": 0,
            "refused": 0,
            "tool": 0,
        }
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(leaves)
