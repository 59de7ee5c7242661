"""The admin of what-if grids: a grid's field and values, its forks inline (each linking to
its run), read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.utils import flatten_fieldsets
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from runs.admin.common import ReadOnlyAdmin, admin_link, pretty
from runs.models import Grid, GridRow, Run


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
