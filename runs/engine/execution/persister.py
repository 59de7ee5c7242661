"""Burr's state persister, written through the Django ORM.

Burr calls ``load`` when a fork initialises from a prior row. ``save`` is called by
``runs.engine.execution.recorder.StepRecorder`` (through ``row``) inside the same transaction that
writes the step's Node row, so a state row never exists without its node row (or the
reverse), on SQLite and PostgreSQL alike. The state is stored as JSON in the app's dict order
(``stored_text``: a fork's ``load`` hands the app its dicts as it built them, so a prompt it
builds by iterating one is the recorded prompt) in a ``Blob``, once per distinct state: rows
holding the same state share it. Values go through
Burr's serde (``runs.engine.apps.state``), so ``load`` gives back their types.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from burr.core import State
from burr.core.persistence import BaseStatePersister, PersistedStateData

from runs.engine.apps.state import stored_state
from runs.models import BurrState, stored_text

PARTITION_KEY = ""


class DjangoPersister(BaseStatePersister):
    def is_initialized(self) -> bool:
        return True  # the table is created by migrations

    def list_app_ids(self, partition_key: str | None, **kwargs: Any) -> list[str]:
        rows = BurrState.objects.filter(partition_key=partition_key or PARTITION_KEY)
        return list(rows.order_by("app_id").values_list("app_id", flat=True).distinct())

    def load(
        self,
        partition_key: str | None,
        app_id: str | None,
        sequence_id: int | None = None,
        **kwargs: Any,
    ) -> PersistedStateData | None:
        rows = BurrState.objects.filter(partition_key=partition_key or PARTITION_KEY)
        if app_id is None:
            row = rows.order_by("-created_at", "-id").first()
        elif sequence_id is None:
            row = rows.filter(app_id=app_id).order_by("-sequence_id", "-id").first()
        else:
            row = rows.filter(app_id=app_id, sequence_id=sequence_id).order_by("-id").first()
        if row is None:
            return None
        return {
            "partition_key": row.partition_key,
            "app_id": row.app_id,
            "sequence_id": row.sequence_id,
            "position": row.position,
            "state": State.deserialize(json.loads(row.state)),
            "created_at": row.created_at.isoformat(),
            "status": row.status,
        }

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Burr's ``save``: writes ``row``'s row (with its snapshot's blob)."""
        self.row(*args, **kwargs).save()

    def row(
        self,
        partition_key: str | None,
        app_id: str,
        sequence_id: int,
        position: str,
        state: State,
        status: Literal["completed", "failed"],
        **future: Any,
    ) -> BurrState:
        """The state row ``save`` would write, unsaved: the recorder writes it with the step."""
        return BurrState(
            partition_key=partition_key or PARTITION_KEY,
            app_id=app_id,
            sequence_id=sequence_id,
            position=position,
            status=status,
            state=stored_text(stored_state(state, framework=True)),
        )
