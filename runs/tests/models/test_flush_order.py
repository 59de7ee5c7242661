"""The order in which a transactional test's rows are deleted on SQLite (see flush_order)."""

from __future__ import annotations

import pytest
from django.apps import apps

from runs.models import Blob, BurrState, Node, Run
from runs.tests.helpers.flush_order import children_first, delete_children_first


def test_every_model_comes_after_every_model_that_references_it():
    order = children_first()
    position = {model: i for i, model in enumerate(order)}
    checked = 0
    for model in apps.get_models(include_auto_created=True):
        for field in model._meta.concrete_fields:
            target = field.related_model
            if target is None or target is model or not field.remote_field:
                continue
            assert position[model] < position[target], f"{model.__name__}.{field.name}"
            checked += 1
    assert checked > 10
    assert position[Node] < position[Blob] and position[BurrState] < position[Blob]
    assert position[Node] < position[Run]


@pytest.mark.django_db(transaction=True)
def test_it_deletes_every_row(research_run):
    assert Blob.objects.exists() and Node.objects.exists()
    delete_children_first()
    for model in children_first():
        assert not model._default_manager.exists(), model.__name__
