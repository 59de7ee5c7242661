"""The Django admin: a read-only window on runs, nodes, Burr state, the two caches and the
what-if grids, a module per kind of row (as ``runs/models/``).

Everything here is for looking, not editing: runs and nodes are a recorded history that
forks and verification depend on, so no admin page adds, changes or deletes them. The one
write is deleting a cache entry, which is how a team invalidates a bad cached answer (the
next run that needs it calls the model or tool again and stores a fresh one).

- ``common``  the read-only base, the paginator that counts at most a cap, the changelist
              that defers big columns, the sampled filter, pretty JSON and admin links
- ``runs``    Run
- ``nodes``   Node (and the "model substituted" filter)
- ``cache``   LLMCacheEntry, ToolCacheEntry (deletable)
- ``states``  BurrState
- ``grids``   Grid, its rows inline

Django autodiscovers ``runs.admin``: importing the modules below registers every
``ModelAdmin`` (``@admin.register``), in the order they were declared when they were one
module.

May import: Django, ``runs.models``, ``runs.admin.common`` and ``runs.pages.masking`` (what
recorded content is shown as); never the engine, a view or another page.
"""

# isort: off
# In the order the admins were declared when they were one module (the registry's order).
from runs.admin.common import (
    SHORT_KEY_LENGTH,
    CappedCountPaginator,
    DeferringChangeList,
    ReadOnlyAdmin,
    RecentValuesFilter,
    admin_link,
    pretty,
    pretty_html,
    shown_text,
)
from runs.admin.runs import RunAdmin
from runs.admin.nodes import ModelSubstitutedFilter, NodeAdmin
from runs.admin.cache import (
    CacheEntryAdmin,
    LLMCacheEntryAdmin,
    ModelRequestedFilter,
    ToolCacheEntryAdmin,
    ToolFilter,
)
from runs.admin.states import BurrStateAdmin, BurrStatusFilter
from runs.admin.grids import GridAdmin, GridRowInline
# isort: on

__all__ = [
    "SHORT_KEY_LENGTH",
    "BurrStateAdmin",
    "BurrStatusFilter",
    "CacheEntryAdmin",
    "CappedCountPaginator",
    "DeferringChangeList",
    "GridAdmin",
    "GridRowInline",
    "LLMCacheEntryAdmin",
    "ModelRequestedFilter",
    "ModelSubstitutedFilter",
    "NodeAdmin",
    "ReadOnlyAdmin",
    "RecentValuesFilter",
    "RunAdmin",
    "ToolCacheEntryAdmin",
    "ToolFilter",
    "admin_link",
    "pretty",
    "pretty_html",
    "shown_text",
]
