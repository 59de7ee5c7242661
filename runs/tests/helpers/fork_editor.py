"""The fork editor's fields as a browser submits them untouched (``current``). Used by
``views/test_node_fork_view.py`` and ``engine/calls/test_provider_identity.py``."""

from __future__ import annotations

from runs.engine.apps.registry import get_pipeline
from runs.engine.forking.overrides import current_fields
from runs.forms import field_text
from runs.models import Run


def current(run: Run, sequence_id: int) -> dict[str, str]:
    """Every field of the editor as a browser submits it untouched: the pre-filled values."""
    node = run.nodes.get(sequence_id=sequence_id)
    spec = get_pipeline(run.pipeline).node(node.name)
    return {name: field_text(value) for name, value in current_fields(spec, node).items()}
