"""Retention (issue 33): a history that stays bounded.

- ``plan``   ``PruneRequest``, ``plan_prune``: which lineage groups (a root with every run made
             of it, and the sub-applications it spawned), batches and grids a prune removes —
             decided before anything is deleted
- ``prune``  ``prune``: removes them in short transactions, then the cache entries and blobs
             nothing refers to any more; a ``Prune`` row says what went

Reads and writes ``runs.models``; nothing else in the engine imports it.
"""

from runs.engine.retention.plan import PrunePlan, PruneRequest, plan_prune
from runs.engine.retention.prune import PruneReport, prune

__all__ = ["PrunePlan", "PruneReport", "PruneRequest", "plan_prune", "prune"]
