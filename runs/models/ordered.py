"""JSON columns a person or an app typed into: ``SealedLeaves`` and ``OrderedJSON``.

``SealedLeaves`` (a run's override, inputs and turns): a string in the value that looks like a
secret (``runs.lib.secret_shapes``) is stored as ``{"__sealed__": <Fernet token>}`` and read
back exactly; the rest of the value stays plain JSON, so a lookup into its other keys still
works in SQL (the same fork twice is found by its override's field).

``OrderedJSON`` (a run's inputs and turns) also keeps the value as it was written, object keys
in their order, on both databases. PostgreSQL's ``jsonb`` (Django's JSONField) stores an
object with its keys sorted by length and name, so a run's inputs came back to the app in
another order than it was given them — a prompt built by iterating them differed from the one
recorded (DESIGN.md, "Exact and private"). Its ``json`` type keeps the text as written; SQLite
keeps text anyway. ``json`` has no equality: a lookup into it goes through a cast to jsonb.
"""

from __future__ import annotations

import json
from typing import Any

from django.db import models

from runs.lib import sealing, secret_shapes

SEALED = "__sealed__"


def seal_leaves(value: Any) -> Any:
    """``value`` with each string that looks like a secret sealed where it stands."""
    if value is None or not secret_shapes.looks_secret(json.dumps(value, ensure_ascii=False)):
        return value
    return _sealed(value)


def _sealed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sealed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_sealed(v) for v in value]
    if isinstance(value, str) and secret_shapes.looks_secret(value):
        return {SEALED: sealing.seal(value.encode("utf-8")).decode("ascii")}
    return value


def open_leaves(value: Any) -> Any:
    """What ``seal_leaves`` was given."""
    if isinstance(value, dict):
        if len(value) == 1 and isinstance(value.get(SEALED), str):
            return sealing.unseal(value[SEALED].encode("ascii")).decode("utf-8")
        return {k: open_leaves(v) for k, v in value.items()}
    if isinstance(value, list):
        return [open_leaves(v) for v in value]
    return value


class SealedLeaves(models.JSONField):
    description = "JSON, what looks like a secret in it sealed"

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if not hasattr(value, "as_sql"):
            value = seal_leaves(value)
        return super().get_db_prep_value(value, connection, prepared)

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if isinstance(value, str | bytes):
            if SEALED not in (value if isinstance(value, str) else value.decode()):
                return super().from_db_value(value, expression, connection)
            value = super().from_db_value(value, expression, connection)
        return open_leaves(value)


class OrderedJSON(SealedLeaves):
    description = "JSON, object keys kept in the order written"

    def db_type(self, connection: Any) -> str | None:
        if connection.vendor == "postgresql":
            return "json"
        return super().db_type(connection)

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if connection.vendor != "postgresql" or hasattr(value, "as_sql"):
            return super().get_db_prep_value(value, connection, prepared)
        if not prepared:
            value = self.get_prep_value(seal_leaves(value))
        from psycopg.types.json import Json  # json, not Jsonb: no cast that sorts the keys

        return Json(value, dumps=lambda v: json.dumps(v, cls=self.encoder))
