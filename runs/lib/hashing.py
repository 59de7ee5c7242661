"""Canonical JSON and content hashes (DESIGN.md, determinism rules 2 and 4).

Every hash in Rewind is taken over canonical JSON — sorted keys, compact separators, UTF-8 —
so that the order a dict happened to be built in never changes a hash, and over *content*
only: run ids, paths and timestamps are recorded on the run, never inside a hashed value.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

FRAMEWORK_PREFIX = "__"


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_sha256(value: Any) -> str:
    """The output hash of a node: sha256 of the canonical JSON of its output."""
    return sha256_text(canonical_json(value))


def semantic_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """State without Burr's own keys (``__SEQUENCE_ID``, ``__PRIOR_STEP``).

    A fork's sequence ids differ from its parent's by construction, so these keys must never
    reach a prompt, a hash or a diff.
    """
    return {k: v for k, v in state.items() if not k.startswith(FRAMEWORK_PREFIX)}


def length_prefixed(parts: Iterable[str]) -> str:
    """``len:part|len:part…`` — a concatenation in which no two part lists can collide."""
    return "|".join(f"{len(part.encode('utf-8'))}:{part}" for part in parts)


def trajectory_sha256(output_hashes: Iterable[str]) -> str:
    """One hash over a run's ordered node output hashes: sha256 of their ``length_prefixed``
    text, fed a part at a time (a long run's hashes may come from a database cursor)."""
    digest = hashlib.sha256()
    for i, part in enumerate(output_hashes):
        encoded = part.encode("utf-8")
        digest.update(b"%s%d:%s" % (b"|" if i else b"", len(encoded), encoded))
    return digest.hexdigest()
