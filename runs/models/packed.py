"""Values stored compressed when that pays, and sealed when they hold a secret: ``PackedText``
(a blob's body) and ``PackedJSON`` (a cache entry's request and answer). SQLite compresses
nothing itself and PostgreSQL only values over 2 KB; canonical JSON and chat transcripts shrink
2–10× under zlib. A value holding what looks like a secret (``runs.lib.secret_shapes``), or
handed over as ``Sealed``, is stored encrypted (``runs.lib.sealing``): kept exactly, never
readable in the database file. Python sees the value every way — the model, ``values_list``
through a join, annotations, fixtures."""

from __future__ import annotations

import json
import zlib
from typing import Any

from django.db import models

from runs.lib import sealing, secret_shapes

PACK_FROM = 128  # bytes: below this zlib's header and checksum eat what it saves
_ZLIB = b"\x78"  # the first byte of every zlib stream; no JSON text starts with "x"
_SEALED = b"\x00"  # then a Fernet token of the packed bytes; no text starts with U+0000


class Sealed(dict):
    """A JSON object to store sealed whatever it holds (an answer carrying a token an
    endpoint handed out: a credential by its name, not its shape)."""


class Scanned(dict):
    """A JSON object its writer has already scanned and found nothing to seal in: stored
    without a second scan."""


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


def pack(text: str, *, sealed: bool = False) -> bytes:
    """``text``'s bytes as stored: compressed when at least an eighth smaller; encrypted when
    ``sealed`` or when it holds what looks like a secret."""
    packed = _squeezed(text.encode("utf-8"))
    if sealed or secret_shapes.looks_secret(text):
        return _SEALED + sealing.seal(packed)
    return packed


def _squeezed(raw: bytes) -> bytes:
    if len(raw) < PACK_FROM:
        return raw
    # memLevel 4: a hash table of 4 KB to clear, not 64 KB — half the time on a value of a
    # few KB, the same ratio; the 32 KB window keeps the stream's first byte 0x78.
    squeeze = zlib.compressobj(6, zlib.DEFLATED, 15, 4)
    packed = squeeze.compress(raw) + squeeze.flush()
    return packed if len(packed) <= len(raw) - len(raw) // 8 else raw


def _column(text: str, connection: Any, *, sealed: bool = False) -> Any:
    """``text`` as the bytes column holds it, adapted for the driver."""
    return connection.Database.Binary(pack(text, sealed=sealed))


def unpack(data: bytes) -> str:
    if data[:1] == _SEALED:
        data = sealing.unseal(data[1:])
    return (zlib.decompress(data) if data[:1] == _ZLIB else data).decode("utf-8")


def is_sealed(data: bytes | memoryview | None) -> bool:
    """Whether a column's bytes are sealed."""
    return data is not None and bytes(data[:1]) == _SEALED


def resealed(data: bytes) -> bytes:
    """A sealed column's bytes under the first configured key (rotation); others as they are."""
    return _SEALED + sealing.reseal(data[1:]) if data[:1] == _SEALED else data


class PackedJSON(models.JSONField):
    """A ``JSONField`` whose JSON text is stored as ``PackedText`` stores it. Its value is
    read and written whole: no lookup into it (``field__key``) is made in SQL."""

    description = "JSON, compressed when that pays"

    get_internal_type = PackedText.get_internal_type

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if value is None and self.null:
            return None
        text = json.dumps(value, cls=self.encoder, ensure_ascii=False, separators=(",", ":"))
        if isinstance(value, Scanned):
            return connection.Database.Binary(_squeezed(text.encode("utf-8")))
        return _column(text, connection, sealed=isinstance(value, Sealed))

    def get_db_prep_save(self, value: Any, connection: Any) -> Any:
        if hasattr(value, "as_sql"):  # an expression: SQL's to give
            return value
        return self.get_db_prep_value(value, connection)

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if value is None:
            return None
        return json.loads(unpack(bytes(value)), cls=self.decoder)


def reseal_all(chunk: int = 500) -> dict[str, int]:
    """Every sealed value of every packed column encrypted again under the first configured key
    (``rewind_rekey``: rotation), a chunk of rows per transaction; per column, how many."""
    from django.apps import apps
    from django.db import connection, transaction

    done: dict[str, int] = {}
    quote = connection.ops.quote_name
    for model in apps.get_app_config("runs").get_models():
        for field in model._meta.concrete_fields:
            if not isinstance(field, PackedText | PackedJSON):
                continue
            table, pk = model._meta.db_table, model._meta.pk.column
            select = f"SELECT {quote(pk)}, {quote(field.column)} FROM {quote(table)}"
            update = f"UPDATE {quote(table)} SET {quote(field.column)} = %s WHERE {quote(pk)} = %s"
            count, after = 0, None
            while True:
                where = "" if after is None else f" WHERE {quote(pk)} > %s"
                with connection.cursor() as cursor:
                    cursor.execute(
                        f"{select}{where} ORDER BY {quote(pk)} LIMIT {int(chunk)}",
                        [] if after is None else [after],
                    )
                    rows = cursor.fetchall()
                if not rows:
                    break
                after = rows[-1][0]
                sealed = [(resealed(bytes(v)), k) for k, v in rows if is_sealed(v)]
                with transaction.atomic(), connection.cursor() as cursor:
                    for value, key in sealed:
                        cursor.execute(update, [connection.Database.Binary(value), key])
                count += len(sealed)
            done[f"{model.__name__}.{field.name}"] = count
    return done
