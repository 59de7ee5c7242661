"""The Django admin: a read-only window on runs, nodes, Burr state and the two caches.

Everything here is for looking, not editing: runs and nodes are a recorded history that
forks and verification depend on, so no admin page adds, changes or deletes them. The one
write is deleting a cache entry, which is how a team invalidates a bad cached answer (the
next run that needs it calls the model or tool again and stores a fresh one).

The cache and node tables grow to millions of rows, so every changelist follows
healthchecks' ``hc/api/admin.py``: no full-table ``COUNT(*)`` (``show_full_result_count =
False`` and ``CappedCountPaginator``), foreign keys joined in the list query
(``list_select_related``) and big JSON/text columns left out of it (``changelist_defer``),
so a page costs the same few queries whatever its size or the table's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.contrib import admin
from django.contrib.admin.utils import flatten_fieldsets
from django.contrib.admin.views.main import ChangeList
from django.core.paginator import Paginator
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import F, Q, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.functional import cached_property
from django.utils.html import format_html
from django.utils.safestring import SafeString

from runs.models import BurrState, Grid, GridRow, LLMCacheEntry, Node, Run, ToolCacheEntry

SHORT_KEY_LENGTH = 12


class CappedCountPaginator(Paginator):
    """A paginator that counts at most ``cap`` rows.

    Django's paginator runs ``SELECT COUNT(*)`` over the whole filtered queryset on every
    changelist page, which on a table of millions of rows costs a full scan. healthchecks
    answers with a constant (``99999``) or, on PostgreSQL, the planner's ``reltuples``
    estimate. We count ``SELECT COUNT(*) FROM (SELECT … LIMIT cap)`` instead, because:

    - it works the same on SQLite and PostgreSQL (no ``pg_class`` query);
    - it is exact whenever fewer than ``cap`` rows match, which is the common case once a
      search or filter is applied (a key-prefix search says "1 result", not "99999"), so
      there are no phantom empty pages;
    - its cost is bounded: the scan stops after ``cap`` rows, ordering dropped.

    When the cap is hit the count reads ``cap`` (a floor, not the total) and the last page
    link stops there; narrow the list with search or a filter to reach older rows.
    """

    cap = 10_000

    @cached_property
    def count(self) -> int:
        object_list = self.object_list
        if isinstance(object_list, QuerySet):
            return object_list.order_by()[: self.cap].count()
        return super().count


class DeferringChangeList(ChangeList):
    """A changelist whose query skips the model admin's ``changelist_defer`` columns.

    Deferring in ``get_queryset()`` would also hit the detail page, which shows those
    columns and would then load each one with a query of its own.
    """

    def get_queryset(self, request: HttpRequest, exclude_parameters: Any = None) -> QuerySet:
        queryset = super().get_queryset(request, exclude_parameters)
        defer = getattr(self.model_admin, "changelist_defer", ())
        queryset = queryset.defer(*defer) if defer else queryset
        # Django applies list_select_related only to a query that joins nothing yet; a model
        # whose manager joins its blobs (runs.models.StoresBlobs) joins them.
        related = self.list_select_related
        if related and related is not True:
            queryset = queryset.select_related(*related)
        return queryset


class RecentValuesFilter(admin.SimpleListFilter):
    """Choices from the newest ``sample_size`` rows instead of ``SELECT DISTINCT`` over all.

    Django's default filter for a plain column (``AllValuesFieldListFilter``) scans the
    whole table on every changelist page to list its distinct values. Sampling the newest
    rows by primary key is bounded; a value only found in older rows still filters when put
    in the URL, and the selected value is always offered.
    """

    field_name: str
    sample_size = 2_000

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple]:
        recent = (
            model_admin.get_queryset(request)
            .order_by("-pk")
            .values_list(self.field_name, flat=True)[: self.sample_size]
        )
        values = set(recent)
        if self.value():
            values.add(self.value())
        return [(value, value) for value in sorted(v for v in values if v)]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet | None:
        if self.value():
            return queryset.filter(**{self.field_name: self.value()})
        return queryset


class ModelRequestedFilter(RecentValuesFilter):
    title = "model requested"
    parameter_name = field_name = "model_requested"


class ToolFilter(RecentValuesFilter):
    title = "tool"
    parameter_name = field_name = "tool"


class BurrStatusFilter(RecentValuesFilter):
    title = "status"
    parameter_name = field_name = "status"


class ModelSubstitutedFilter(admin.SimpleListFilter):
    """The provider answered with a different model than the one requested."""

    title = "model substituted"
    parameter_name = "model_substituted"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple]:
        return [("yes", "Yes"), ("no", "No")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet | None:
        substituted = ~Q(model_answered="") & ~Q(model_answered=F("model_requested"))
        if self.value() == "yes":
            return queryset.filter(substituted)
        if self.value() == "no":
            return queryset.exclude(substituted)
        return queryset


def pretty_json(value: Any) -> SafeString | None:
    """``value`` as indented JSON with sorted keys in a ``<pre>``, escaped.

    ``None`` (an SQL NULL) shows as the admin's empty value. Cached answers and prompts are
    model output: anything in them (``<script>`` included) must reach the page as text.
    """
    if value is None:
        return None
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, cls=DjangoJSONEncoder)
    return format_html('<pre style="white-space: pre-wrap; margin: 0">{}</pre>', text)


def pretty(field: str) -> Callable[[Any, Any], SafeString | None]:
    """A read-only admin column showing the JSON field ``field`` pretty-printed."""

    @admin.display(description=field)
    def show(self: Any, obj: Any) -> SafeString | None:
        return pretty_json(getattr(obj, field))

    return show


def admin_link(model: type, pk: int | str | None, label: object) -> SafeString | None:
    if pk is None:
        return None
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[pk])
    return format_html('<a href="{}">{}</a>', url, label)


class ReadOnlyAdmin(admin.ModelAdmin):
    """View-only: no add, no change, no delete unless a subclass allows it.

    With ``has_change_permission`` False Django renders the change page as a view page;
    ``readonly_fields`` is also every field of ``fieldsets`` (set per subclass with
    ``flatten_fieldsets``) so it stays read-only if someone grants change later.
    """

    paginator = CappedCountPaginator
    show_full_result_count = False
    list_per_page = 50
    changelist_defer: tuple[str, ...] = ()
    deletable = False

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return DeferringChangeList

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Still subject to the user's own "delete" permission when a subclass allows it.
        return self.deletable and super().has_delete_permission(request, obj)


class CacheEntryAdmin(ReadOnlyAdmin):
    """Cache entries are read-only too, but staff with the delete permission may delete
    one: that is how a bad cached answer is invalidated."""

    deletable = True
    ordering = ("-pk",)

    @admin.display(description="key", ordering="key")
    def short_key(self, obj: LLMCacheEntry | ToolCacheEntry) -> str:
        return obj.key[:SHORT_KEY_LENGTH]


@admin.register(Run)
class RunAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "pipeline",
        "status",
        "mode",
        "parent_link",
        "fork_node",
        "created_at",
        "finished_at",
    )
    list_display_links = ("id",)
    list_filter = ("status", "pipeline", "mode")
    # id__exact, not "=id": Django skips a non-numeric term for it instead of casting the
    # column to text, so searching "research" still matches the pipeline by its index.
    search_fields = ("id__exact", "^pipeline", "fork_node")
    # parent is shown by id (parent_link), so the list needs no join.
    list_select_related = False
    changelist_defer = ("inputs", "provider", "override", "error")
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "id",
                    "pipeline",
                    "status",
                    "mode",
                    "error",
                    "app_link",
                    "nodes_link",
                )
            },
        ),
        ("Inputs", {"fields": ("pretty_inputs", "pretty_provider")}),
        (
            "Fork",
            {
                "fields": (
                    "parent_link",
                    "root_link",
                    "fork_node",
                    "fork_sequence_id",
                    "pretty_override",
                    "sample_of_link",
                    "sample_count",
                )
            },
        ),
        (
            "Artifact",
            {"fields": ("artifact_path", "artifact_sha256", "trajectory_sha256")},
        ),
        (
            "Times",
            {"fields": ("created_at", "started_at", "finished_at", "heartbeat_at")},
        ),
        # Who started it (none: a command or a program) and what the daily budget reserved.
        ("Budget", {"fields": ("created_by", "projected_tokens", "projected_cost_usd")}),
    )
    readonly_fields = flatten_fieldsets(fieldsets)

    @admin.display(description="parent", ordering="parent_id")
    def parent_link(self, obj: Run) -> SafeString | None:
        return admin_link(Run, obj.parent_id, f"run {obj.parent_id}")

    @admin.display(description="stability sample of")
    def sample_of_link(self, obj: Run) -> SafeString | None:
        return admin_link(Run, obj.sample_of_id, f"run {obj.sample_of_id}")

    @admin.display(description="root")
    def root_link(self, obj: Run) -> SafeString | None:
        return admin_link(Run, obj.root_id, f"run {obj.root_id}")

    @admin.display(description="in Rewind")
    def app_link(self, obj: Run) -> SafeString:
        url = reverse("run-detail", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, url)

    @admin.display(description="nodes")
    def nodes_link(self, obj: Run) -> SafeString:
        url = reverse("admin:runs_node_changelist")
        return format_html(
            '<a href="{}?run__id__exact={}">nodes of run {}</a>', url, obj.pk, obj.pk
        )

    pretty_inputs = pretty("inputs")
    pretty_provider = pretty("provider")  # model, temperature, base URL: never the key
    pretty_override = pretty("override")


@admin.register(Node)
class NodeAdmin(ReadOnlyAdmin):
    list_display = (
        "__str__",
        "run_link",
        "sequence_id",
        "name",
        "kind",
        "status",
        "cache_source",
        "short_key",
        "model_requested",
        "model_answered",
        "model_substituted",
        "src_run_link",
        "latency_ms",
        "total_tokens",
        "created_at",
    )
    list_filter = ("cache_source", "kind", "status", ModelSubstitutedFilter)
    search_fields = ("name", "cache_key__startswith", "run__id__exact")
    # run_link shows the run's pipeline; src_run_link only needs src_run_id.
    list_select_related = ("run",)
    changelist_defer = (
        "inputs",
        "output",
        "prompt",
        "raw_output",
        "error",
        "run__inputs",
        "run__provider",
        "run__override",
        "run__error",
    )
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "run_link",
                    "sequence_id",
                    "name",
                    "kind",
                    "status",
                    "error",
                    "app_link",
                    "created_at",
                )
            },
        ),
        (
            "Cache",
            {
                "fields": (
                    "cache_source",
                    "cache_key",
                    "cache_note",
                    "src_run_link",
                    "src_sequence_id",
                )
            },
        ),
        (
            "Model",
            {
                "fields": (
                    "model_requested",
                    "model_answered",
                    "model_substituted",
                    "temperature",
                )
            },
        ),
        (
            "Numbers",
            {
                "fields": (
                    "latency_ms",
                    "prompt_tokens",
                    "completion_tokens",
                    "total_tokens",
                    "cost",
                )
            },
        ),
        (
            "Content",
            {
                "fields": (
                    "pretty_inputs",
                    "pretty_prompt",
                    "pretty_output",
                    "output_sha256",
                    "raw_output",
                )
            },
        ),
    )
    readonly_fields = flatten_fieldsets(fieldsets)

    @admin.display(description="cost (USD)")
    def cost(self, obj: Node) -> str:
        """NULL is an unknown cost, never shown as 0 (runs/engine/calls/pricing.py)."""
        if obj.cost_usd is None:
            return "— (unknown: the model has no price)"
        return f"${obj.cost_usd:.6f}"

    @admin.display(description="run", ordering="run_id")
    def run_link(self, obj: Node) -> SafeString | None:
        return admin_link(Run, obj.run_id, f"run {obj.run_id} · {obj.run.pipeline}")

    @admin.display(description="source run", ordering="src_run_id")
    def src_run_link(self, obj: Node) -> SafeString | None:
        return admin_link(Run, obj.src_run_id, f"run {obj.src_run_id} #{obj.src_sequence_id}")

    @admin.display(description="in Rewind")
    def app_link(self, obj: Node) -> SafeString:
        url = reverse("node-detail", args=[obj.run_id, obj.sequence_id])
        return format_html('<a href="{}">{}</a>', url, url)

    @admin.display(description="key", ordering="cache_key")
    def short_key(self, obj: Node) -> str:
        return obj.cache_key[:SHORT_KEY_LENGTH]

    @admin.display(description="substituted", boolean=True)
    def model_substituted(self, obj: Node) -> bool:
        return obj.model_substituted

    pretty_inputs = pretty("inputs")
    pretty_prompt = pretty("prompt")
    pretty_output = pretty("output")


@admin.register(LLMCacheEntry)
class LLMCacheEntryAdmin(CacheEntryAdmin):
    list_display = (
        "short_key",
        "occurrence",
        "node_name",
        "provider",
        "model_requested",
        "model_answered",
        "model_substituted",
        "hit_count",
        "last_hit_at",
        "created_at",
    )
    list_filter = ("provider", ModelRequestedFilter)
    # Keys are lowercase hex: a case-sensitive prefix (a full key is a prefix of itself)
    # keeps the LIKE index-friendly; names are matched anywhere in the string.
    search_fields = ("key__startswith", "node_name", "model_requested", "model_answered")
    changelist_defer = ("request", "response", "usage")
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "key",
                    "occurrence",
                    "node_name",
                    "provider",
                    "model_requested",
                    "model_answered",
                    "model_substituted",
                    "hit_count",
                    "last_hit_at",
                    "created_at",
                )
            },
        ),
        ("Content", {"fields": ("pretty_request", "pretty_response", "pretty_usage")}),
    )
    readonly_fields = flatten_fieldsets(fieldsets)

    @admin.display(description="substituted", boolean=True)
    def model_substituted(self, obj: LLMCacheEntry) -> bool:
        return bool(obj.model_answered) and obj.model_answered != obj.model_requested

    pretty_request = pretty("request")
    pretty_response = pretty("response")
    pretty_usage = pretty("usage")


@admin.register(ToolCacheEntry)
class ToolCacheEntryAdmin(CacheEntryAdmin):
    list_display = ("short_key", "tool", "tool_version", "hit_count", "last_hit_at", "created_at")
    list_filter = (ToolFilter,)
    search_fields = ("key__startswith", "tool")
    changelist_defer = ("args", "result")
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "key",
                    "tool",
                    "tool_version",
                    "hit_count",
                    "last_hit_at",
                    "created_at",
                )
            },
        ),
        ("Content", {"fields": ("pretty_args", "pretty_result")}),
    )
    readonly_fields = flatten_fieldsets(fieldsets)

    pretty_args = pretty("args")
    pretty_result = pretty("result")


@admin.register(BurrState)
class BurrStateAdmin(ReadOnlyAdmin):
    """Burr's persisted steps; forks load from them, so nothing here deletes one."""

    list_display = ("app_id", "sequence_id", "position", "status", "partition_key", "created_at")
    list_filter = (BurrStatusFilter,)
    # app_id is the run's id as text.
    search_fields = ("app_id__exact", "position")
    ordering = ("-pk",)
    changelist_defer = ("state",)
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "partition_key",
                    "app_id",
                    "sequence_id",
                    "position",
                    "status",
                    "created_at",
                )
            },
        ),
        ("State", {"fields": ("pretty_state",)}),
    )
    readonly_fields = flatten_fieldsets(fieldsets)

    @admin.display(description="state")
    def pretty_state(self, obj: BurrState) -> SafeString | None:
        try:
            value = json.loads(obj.state)
        except ValueError:
            # Not JSON after all: show the text as stored, still escaped.
            return format_html('<pre style="white-space: pre-wrap; margin: 0">{}</pre>', obj.state)
        return pretty_json(value)


class GridRowInline(admin.TabularInline):
    """A grid's forks, read-only, each linking to its run."""

    model = GridRow
    fields = ("position", "value", "cross_value", "run_link", "status")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        # Each value's fork, then its crossed cells (the model's ordering: nulls first).
        return super().get_queryset(request).select_related("grid", "run")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="value")
    def value(self, obj: GridRow) -> str:
        values = obj.grid.values
        return values[obj.position] if obj.position < len(values) else ""

    @admin.display(description="crossed with")
    def cross_value(self, obj: GridRow) -> str:
        """A crossed cell's second value (``cross_field``); blank for a value's own fork."""
        values = obj.grid.cross_values or []
        if obj.cross_position is None or obj.cross_position >= len(values):
            return ""
        return f"{obj.grid.cross_field} = {values[obj.cross_position]}"

    @admin.display(description="fork")
    def run_link(self, obj: GridRow) -> SafeString | None:
        return admin_link(Run, obj.run_id, f"run {obj.run_id}")

    @admin.display(description="status")
    def status(self, obj: GridRow) -> str:
        return obj.run.status


@admin.register(Grid)
class GridAdmin(ReadOnlyAdmin):
    """What-if grids: one fork of a run per value of one field (the dashboard's /grids/)."""

    list_display = ("id", "source_link", "node", "field", "value_count", "created_at", "created_by")
    list_display_links = ("id",)
    search_fields = ("id__exact", "source__id__exact", "node", "field")
    list_select_related = ("created_by",)
    ordering = ("-pk",)
    inlines = (GridRowInline,)
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "id",
                    "source_link",
                    "node",
                    "sequence_id",
                    "field",
                    "pretty_values",
                    "cross_field",
                    "pretty_cross_values",
                    "created_at",
                    "created_by",
                    "app_link",
                )
            },
        ),
    )
    readonly_fields = flatten_fieldsets(fieldsets)

    @admin.display(description="source run", ordering="source_id")
    def source_link(self, obj: Grid) -> SafeString | None:
        return admin_link(Run, obj.source_id, f"run {obj.source_id}")

    @admin.display(description="values")
    def value_count(self, obj: Grid) -> int:
        return len(obj.values or [])

    @admin.display(description="in Rewind")
    def app_link(self, obj: Grid) -> SafeString:
        url = reverse("grid-detail", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, url)

    pretty_values = pretty("values")
    pretty_cross_values = pretty("cross_values")
