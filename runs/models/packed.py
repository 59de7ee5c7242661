"""Values stored compressed when that pays: ``PackedText`` (a blob's body) and ``PackedJSON``
(a cache entry's request and answer). SQLite compresses nothing itself and PostgreSQL only
values over 2 KB; canonical JSON and chat transcripts shrink 2–10× under zlib. Python sees
the value both ways — the model, ``values_list`` through a join, annotations, fixtures."""

from __future__ import annotations

import json
import zlib
from typing import Any

from django.db import models

PACK_FROM = 128  # bytes: below this zlib's header and checksum eat what it saves
_ZLIB = b"\x78"  # the first byte of every zlib stream; no JSON text starts with "x"


class PackedText(models.Field):
    """Text stored as bytes: the column holds its UTF-8 text as it is or its zlib stream,
    told apart by the stream's first byte (0x78, an ``x``, which no JSON text starts with).
    Python sees ``str``."""

    description = "Text, compressed when that pays"

    def get_internal_type(self) -> str:
        return "BinaryField"  # BLOB on SQLite, bytea on PostgreSQL

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        return None if value is None else _column(value, connection)

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> str | None:
        return None if value is None else unpack(bytes(value))

    def to_python(self, value: Any) -> str | None:
        if value is None or isinstance(value, str):
            return value
        return unpack(bytes(value))

    def value_to_string(self, obj: models.Model) -> str:
        return self.value_from_object(obj)  # fixtures hold the text, as before


def pack(text: str) -> bytes:
    """``text``'s bytes as stored: compressed when at least an eighth smaller."""
    raw = text.encode("utf-8")
    if len(raw) < PACK_FROM:
        return raw
    # memLevel 4: a hash table of 4 KB to clear, not 64 KB — half the time on a value of a
    # few KB, the same ratio; the 32 KB window keeps the stream's first byte 0x78.
    squeeze = zlib.compressobj(6, zlib.DEFLATED, 15, 4)
    packed = squeeze.compress(raw) + squeeze.flush()
    return packed if len(packed) <= len(raw) - len(raw) // 8 else raw


def _column(text: str, connection: Any) -> Any:
    """``text`` as the bytes column holds it, adapted for the driver."""
    return connection.Database.Binary(pack(text))


def unpack(data: bytes) -> str:
    return (zlib.decompress(data) if data[:1] == _ZLIB else data).decode("utf-8")


class PackedJSON(models.JSONField):
    """A ``JSONField`` whose JSON text is stored as ``PackedText`` stores it. Its value is
    read and written whole: no lookup into it (``field__key``) is made in SQL."""

    description = "JSON, compressed when that pays"

    get_internal_type = PackedText.get_internal_type

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if value is None and self.null:
            return None
        text = json.dumps(value, cls=self.encoder, ensure_ascii=False, separators=(",", ":"))
        return _column(text, connection)

    def get_db_prep_save(self, value: Any, connection: Any) -> Any:
        if hasattr(value, "as_sql"):  # an expression: SQL's to give
            return value
        return self.get_db_prep_value(value, connection)

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if value is None:
            return None
        return json.loads(unpack(bytes(value)), cls=self.decoder)
