"""``OrderedJSON``: a JSON value kept as it was written, object keys in their order, on both
databases. PostgreSQL's ``jsonb`` (Django's JSONField) stores an object with its keys sorted by
length and name, so a run's inputs came back to the app in another order than it was given them
— a prompt built by iterating them differed from the one recorded (DESIGN.md, "Exact and
private"). Its ``json`` type keeps the text as written; SQLite keeps text anyway. For a column
read and written whole: ``json`` has no equality, so no lookup into it is made in SQL."""

from __future__ import annotations

import json
from typing import Any

from django.db import models


class OrderedJSON(models.JSONField):
    description = "JSON, object keys kept in the order written"

    def db_type(self, connection: Any) -> str | None:
        if connection.vendor == "postgresql":
            return "json"
        return super().db_type(connection)

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if connection.vendor != "postgresql" or hasattr(value, "as_sql"):
            return super().get_db_prep_value(value, connection, prepared)
        if not prepared:
            value = self.get_prep_value(value)
        from psycopg.types.json import Json  # json, not Jsonb: no cast that sorts the keys

        return Json(value, dumps=lambda v: json.dumps(v, cls=self.encoder))

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if value is None or not isinstance(value, str | bytes):
            return value  # psycopg parsed the json column itself, keys in order
        return super().from_db_value(value, expression, connection)
