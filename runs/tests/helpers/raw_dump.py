"""The database as someone holding its file reads it: every row of every table through a raw
SQL cursor (no model, no field's ``from_db_value``), bytes included. What is merely encoded is
read too — a zlib stream inflated, a base64 run decoded — since neither protects anything;
only what is encrypted stays unreadable. ``runs/tests/sitewide/test_secrets.py``'s
``dump_database`` is the same without the decoding."""

from __future__ import annotations

import base64
import binascii
import re
import zlib

from django.db import connection

_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_\-]{16,}={0,2}")


def _readable(value: object) -> str:
    if isinstance(value, memoryview):
        value = bytes(value)
    if isinstance(value, bytes):
        if value[:1] == b"\x78":  # a zlib stream (runs.models.packed): compressed, not hidden
            try:
                value = zlib.decompress(value)
            except zlib.error:
                pass
        return value.decode("utf-8", "replace")
    return str(value)


def _decoded_runs(text: str) -> list[str]:
    """What each base64-looking run of ``text`` decodes to (standard and URL-safe alphabets)."""
    found = []
    for run in _BASE64_RUN.findall(text):
        padded = run + "=" * (-len(run) % 4)
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                found.append(decode(padded).decode("utf-8", "replace"))
            except (binascii.Error, ValueError):
                continue
    return found


def raw_values() -> list[tuple[str, str]]:
    """(table, value) for every value of every row of every table, readable as the file's
    holder reads it; a base64 run a value holds is one more value, decoded."""
    values: list[tuple[str, str]] = []
    with connection.cursor() as cursor:
        for table in sorted(connection.introspection.table_names()):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")  # noqa: S608
            for row in cursor.fetchall():
                for value in row:
                    if value is None:
                        continue
                    text = _readable(value)
                    values.append((table, text))
                    values.extend((f"{table} (base64)", d) for d in _decoded_runs(text))
    return values


def plaintext_found(needles: dict[str, str]) -> dict[str, list[str]]:
    """For each named needle the database holds readable, the tables that hold it."""
    found: dict[str, list[str]] = {}
    for table, text in raw_values():
        for name, needle in needles.items():
            if needle in text and table not in found.get(name, []):
                found.setdefault(name, []).append(table)
    return found
