"""Rewind's data model (DESIGN.md, Data model), a module per kind of row; every name is
importable from here (``from runs.models import Run``).

Numbers that describe *how* a step ran (latency, tokens, cost) live on ``Node``; what a step
*produced* lives in Burr state (``BurrState``) and, hashed, on ``Node.output_sha256``.

Beside the rows, how rows are written and found: ``sql`` (the statements every run sends,
written once rather than built by the ORM per call), ``search`` (finding runs through an
index), ``lineage`` (a page of roots with their newest descendants, bounded by the page) and
``indexes`` (the runs table's indexes). These are not re-exported: import them by module.

May import: Django and ``runs.lib``; never the engine, a view or a page.
"""

# isort: off
# In the order the models were declared when they were one module (the app registry's order).
from runs.models.blobs import (
    Blob,
    BlobQuerySet,
    StoresBlobs,
    StoresBlobsQuerySet,
    stored_json,
    stored_text,
)
from runs.models.runs import Run, RunQuerySet, same_override
from runs.models.grids import Grid, GridQuerySet, GridRow
from runs.models.nodes import Edge, Node, NodeManager, NodeQuerySet
from runs.models.cache import CacheEntry, LLMCacheEntry, ToolCacheEntry
from runs.models.states import BurrState, BurrStateManager, BurrStateQuerySet
from runs.models.provider_settings import ProviderSettings
from runs.models.batches import Batch, BatchQuerySet, BatchSource
from runs.models.outcomes import Outcome
from runs.models.prunes import Prune
from runs.models.judge_calls import JudgeCall
# isort: on

__all__ = [
    "Batch",
    "BatchQuerySet",
    "BatchSource",
    "Blob",
    "BlobQuerySet",
    "BurrState",
    "BurrStateManager",
    "BurrStateQuerySet",
    "CacheEntry",
    "Edge",
    "Grid",
    "GridQuerySet",
    "GridRow",
    "JudgeCall",
    "LLMCacheEntry",
    "Node",
    "NodeManager",
    "NodeQuerySet",
    "Outcome",
    "ProviderSettings",
    "Prune",
    "Run",
    "RunQuerySet",
    "StoresBlobs",
    "StoresBlobsQuerySet",
    "ToolCacheEntry",
    "same_override",
    "stored_json",
    "stored_text",
]
