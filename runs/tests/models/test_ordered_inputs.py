"""A run's inputs and turns come back in the order they were given (issue 40, item 6): on
PostgreSQL a ``jsonb`` column sorted an object's keys, so the app was handed its inputs in
another order than the one it was started with — and a prompt built by iterating them was not
the one it would have built."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from runs.models import Run

pytestmark = pytest.mark.django_db

GIVEN = {"zulu": {"yankee": 1, "alpha": [2, {"mike": 3, "bravo": 4}]}, "alpha": "a", "mike": None}
TURNS = [{"inputs": {"zulu": "last", "alpha": "first"}}]


def test_a_runs_inputs_and_turns_come_back_in_the_order_given():
    run = Run.objects.create(pipeline="research", inputs=GIVEN, turns=TURNS)
    again = Run.objects.get(pk=run.pk)
    assert json.dumps(again.inputs) == json.dumps(GIVEN)  # keys in order, nested too
    assert list(again.turns[0]["inputs"]) == ["zulu", "alpha"]
    assert list(Run.objects.values_list("inputs", flat=True).get(pk=run.pk)) == list(GIVEN)


def test_the_column_holds_the_text_as_written():
    run = Run.objects.create(pipeline="research", inputs=GIVEN)
    with connection.cursor() as cursor:
        cursor.execute("SELECT inputs FROM runs_run WHERE id = %s", [run.pk])
        (stored,) = cursor.fetchone()
    text = stored if isinstance(stored, str) else json.dumps(stored)
    assert text.index("zulu") < text.index('"alpha": "a"') < text.index('mike": null')


def test_a_secret_typed_into_an_override_or_an_input_is_sealed_and_read_back_exactly():
    from runs.tests.models.test_sealed_values import private_key

    secret = private_key()
    override = {"node": "plan", "field": "prompt", "value": f"What is this?\n{secret}"}
    run = Run.objects.create(
        pipeline="research", inputs={"zeta": secret, "alpha": "plain"}, override=override
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT inputs, override FROM runs_run WHERE id = %s", [run.pk])
        raw = " ".join(v if isinstance(v, str) else json.dumps(v) for v in cursor.fetchone())
    assert "BEGIN RSA" not in raw and secret.splitlines()[1] not in raw and "plain" in raw
    again = Run.objects.get(pk=run.pk)
    assert again.override == override and again.inputs == {"zeta": secret, "alpha": "plain"}
    assert list(again.inputs) == ["zeta", "alpha"]
    # Its other keys are still looked into in SQL: the same fork twice is found by its field.
    assert Run.objects.filter(override__field="prompt").get() == run
