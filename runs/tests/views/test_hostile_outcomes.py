"""No outcome a user types can take a pipeline's pages down (issue 34, item 1): a JSON schema
that refers to itself without end (``{"$ref": "#"}``) or to nothing is refused when declared,
naming the problem; one already stored (added before the check existed) is shown marked
``error`` with the reason, never evaluated, and can be removed; and a check that fails to evaluate marks its outcome ``error``, never the page."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from runs.engine.analysis.outcomes import Outcome
from runs.engine.analysis.outcomes.checks import Check, _validator_class
from runs.engine.analysis.outcomes.values import evaluate
from runs.engine.errors import OutcomeError
from runs.models import Outcome as OutcomeRow
from runs.models import Run

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
SELF = {"$ref": "#"}
CYCLE = {"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}
NOWHERE = {"$ref": "#/$defs/missing"}


@pytest.mark.parametrize("schema", [SELF, CYCLE, NOWHERE], ids=["self", "cycle", "nowhere"])
def test_a_schema_that_cannot_be_evaluated_is_refused_when_declared(schema):
    with pytest.raises(OutcomeError) as refused:
        Check.parse("json_schema", schema)
    assert "json_schema" in str(refused.value)


def test_a_recursive_schema_that_ends_is_still_taken():
    tree = {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}}
    check = Check.parse("json_schema", tree)
    assert check.judge({"children": [{"children": []}]}) == (True, "")
    assert check.judge({"children": [5]})[0] is False


@pytest.mark.parametrize("schema", [SELF, CYCLE], ids=["self", "cycle"])
def test_a_non_staff_user_adding_one_gets_a_400_and_nothing_is_written(
    signed_in, research_run, schema
):
    data = {
        "name": "hostile",
        "path": "analyse.best_group",
        "check": "json_schema",
        "argument": json.dumps(schema),
    }
    response = signed_in.post(f"/runs/{research_run.pk}/outcomes/", data, headers=HTMX)
    assert response.status_code == 400
    assert "refers to itself without end" in response.content.decode()
    assert not OutcomeRow.objects.exists()


def test_a_hostile_row_stored_before_the_check_leaves_every_page_working(
    signed_in, research_run, run_fork
):
    OutcomeRow.objects.create(
        pipeline="research",
        name="hostile",
        path="analyse.best_group",
        check_kind="json_schema",
        check_argument=SELF,
    )
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")
    step = research_run.nodes.get(name="analyse").sequence_id
    for url in (
        f"/runs/{research_run.pk}/",
        f"/runs/{research_run.pk}/nodes/{step}/",
        f"/compare/{research_run.pk}/{fork.pk}/",
        f"/api/runs/{research_run.pk}",
        "/runs/",
    ):
        assert signed_in.get(url).status_code == 200, url
    out = io.StringIO()
    call_command("rewind_show", str(research_run.pk), "--json", stdout=out)
    shown = json.loads(out.getvalue())
    assert shown["run"] == research_run.pk
    # Shown, marked error with the reason, never evaluated — and removable from the page.
    (hostile,) = [o for o in shown["outcomes"] if o["name"] == "hostile"]
    assert hostile["error"] is True and hostile["pass"] is None
    assert "the check is refused: outcome 'hostile': json_schema refers to itself" in hostile["why"]
    page = signed_in.get(f"/runs/{research_run.pk}/").content.decode()
    assert 'data-outcome="hostile"' in page and "outcome-error" in page
    assert "remove the outcome hostile of research" in page


def test_a_check_that_fails_to_evaluate_marks_its_outcome_error(research_run):
    # Built past the declaration's checks, as a row stored before them would have been.
    hostile = Check("json_schema", SELF, _validator_class(SELF)(SELF))
    outcome = Outcome("hostile", "analyse.best_group", hostile)
    steps = list(research_run.nodes.order_by("sequence_id"))
    (value,) = evaluate(research_run, steps, outcomes=[outcome])
    assert value.error and value.passed is None
    assert "could not be evaluated (RecursionError)" in value.why
    assert value.as_json()["error"] is True
    assert research_run.status == Run.Status.COMPLETED
