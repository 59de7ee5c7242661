"""Blobs: values stored once by the sha256 of their stored text (DESIGN.md, rule 4), and
what lets a row keep its values there (``stored_text``, ``stored_json``, ``StoresBlobs``,
``StoresBlobsQuerySet``).

A value is stored as the app had it, dict order included (``stored_text``: compact JSON, keys
in insertion order), so what a fork or a replay reads back is exactly what the step had — a
prompt built by iterating a dict is the recorded prompt. Canonical JSON (sorted keys) is for
hashes only (``runs.lib.hashing``): two values that differ only in order have one output hash
and two blobs, neither losing its order. Blobs stored as canonical JSON before stay valid: a
blob's key is the sha256 of its own text, whichever order that text has."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.db import models

from runs.lib.hashing import sha256_text
from runs.models.packed import PackedText
from runs.models.sql import insert_new


def stored_text(value: Any) -> str:
    """``value`` as a blob stores it: compact JSON, its dicts' keys in the order they hold
    them (not sorted: canonical JSON is for hashes), non-ASCII kept as it is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class BlobQuerySet(models.QuerySet):
    def store(self, blobs: Mapping[str, str], known: set[str] | None = None) -> list[str]:
        """Insert the blobs (hash → stored text) not stored yet, in one statement — none at
        all when ``known``, hashes the caller has seen committed, holds every one. A blob
        already there is kept. Returns the hashes it inserted (or found there): the caller
        may count them known once its transaction has committed, not before."""
        new = [sha for sha in blobs if known is None or sha not in known]
        insert_new([Blob(sha256=sha, body=blobs[sha]) for sha in new])
        return new


class Blob(models.Model):
    """A value stored once, under the sha256 of its text (``stored_text``: the app's dict
    order; DESIGN.md, rule 4): Burr state snapshots and the inputs, outputs and prompts of
    steps. Runs, steps and forks refer to blobs by hash, so an unchanged replay — whose
    states and outputs are its parent's, in the same order — adds only its own step rows. Blobs are never rewritten; one is deleted only by a prune
    (``runs.engine.retention``), once no step or state refers to it."""

    sha256 = models.CharField(max_length=64, primary_key=True)
    body = PackedText()  # JSON in the app's dict order (older rows: sorted), zlib'd if it pays

    objects = BlobQuerySet.as_manager()

    def __str__(self) -> str:
        return f"blob {self.sha256[:12]}… ({len(self.body)} chars)"

    @staticmethod
    def key(text: str) -> str:
        """The hash a blob of ``text`` (``stored_text``) is stored under: its own sha256."""
        return sha256_text(text)


def stored_json(name: str, default: Callable[[], Any] | None = None) -> property:
    """A model attribute whose JSON value lives in ``Blob``, through the foreign key
    ``<name>_blob``: read, it is decoded once per instance; assigned, its blob is made and
    kept aside until the row is saved (``StoresBlobs``). ``None`` is no blob at all."""
    fk = f"{name}_blob"

    def get(obj: models.Model) -> Any:
        values = obj.__dict__.setdefault("_stored_values", {})
        if name not in values:
            if getattr(obj, f"{fk}_id") is None:
                values[name] = default() if default else None
            else:
                values[name] = json.loads(getattr(obj, fk).body)
        return values[name]

    def put(obj: models.Model, value: Any) -> None:
        obj.__dict__.setdefault("_stored_values", {})[name] = value
        setattr(obj, f"{fk}_id", None if value is None else obj.keep_blob(stored_text(value)))

    return property(get, put, doc=f"JSON value stored in Blob through {fk}")


class StoresBlobs(models.Model):
    """A model with values in blobs: saving a row stores the blobs it refers to first, in the
    same transaction."""

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        Blob.objects.store(self.take_new_blobs())
        super().save(*args, **kwargs)

    def keep_blob(self, text: str) -> str:
        """Keep the blob of ``text`` aside to be stored with the row; its hash."""
        sha = Blob.key(text)
        self.__dict__.setdefault("_new_blobs", {})[sha] = text
        return sha

    def refresh_from_db(self, *args: Any, **kwargs: Any) -> None:
        self.__dict__.pop("_stored_values", None)  # decoded values of the old row
        super().refresh_from_db(*args, **kwargs)

    def take_new_blobs(self) -> dict[str, str]:
        """The blobs (hash → text) assigned since the last save, handed over once (the caller
        stores them)."""
        return self.__dict__.pop("_new_blobs", {})


def _related_paths(tree: dict, prefix: str = "") -> Iterable[str]:
    for name, below in tree.items():
        if below:
            yield from _related_paths(below, f"{prefix}{name}__")
        else:
            yield f"{prefix}{name}"


class StoresBlobsQuerySet(models.QuerySet):
    """Rows whose manager joins their blobs (``select_related``), so reading a value costs no
    query. ``defer()`` takes the values' names too: deferring one leaves its join out (its
    hash is still loaded; reading the value then costs a query)."""

    VALUES: dict[str, str] = {}  # value attribute → its blob's foreign key

    def bulk_create(self, objs: Iterable[Any], *args: Any, **kwargs: Any) -> list[Any]:
        objs = list(objs)
        Blob.objects.store({k: v for obj in objs for k, v in obj.take_new_blobs().items()})
        return super().bulk_create(objs, *args, **kwargs)

    def defer(self, *fields: str | None) -> StoresBlobsQuerySet:
        if fields == (None,):  # nothing deferred any more: the values' joins come back
            return super().defer(None).select_related(*self.VALUES.values())
        blobs = {self.VALUES[f] for f in fields if f in self.VALUES}
        if not blobs:
            return super().defer(*fields)
        rest = [f for f in fields if f not in self.VALUES]
        queryset = self._without_joins(blobs)
        return super(StoresBlobsQuerySet, queryset).defer(*rest) if rest else queryset

    def only(self, *fields: str) -> StoresBlobsQuerySet:
        """``only("name", "output")``: the values named are loaded with their join, the
        others' joins are left out."""
        named = {f.split("__", 1)[0] for f in fields}
        wanted = {fk for value, fk in self.VALUES.items() if value in named or fk in named}
        queryset = self._without_joins(set(self.VALUES.values()) - wanted)
        if wanted:
            queryset = queryset.select_related(*wanted)
        fields = tuple(
            f"{self.VALUES[f]}__body" if f in self.VALUES else f for f in fields
        ) + tuple(f"{fk}__body" for fk in wanted)
        return super(StoresBlobsQuerySet, queryset).only(*dict.fromkeys(fields))

    def _without_joins(self, blobs: set[str]) -> StoresBlobsQuerySet:
        related = self.query.select_related
        keep = [
            path
            for path in (_related_paths(related) if isinstance(related, dict) else [])
            if path.split("__", 1)[0] not in blobs
        ]
        queryset = self.select_related(None)
        return queryset.select_related(*keep) if keep else queryset
