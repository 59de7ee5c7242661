"""The admin of Burr's persisted state (``BurrState``): the snapshot of each step, shown as
JSON (masked); forks load from them, so nothing here deletes one."""

from __future__ import annotations

import json

from django.contrib import admin
from django.contrib.admin.utils import flatten_fieldsets
from django.utils.html import format_html
from django.utils.safestring import SafeString

from runs.admin.common import PRE, ReadOnlyAdmin, RecentValuesFilter, pretty_html
from runs.models import BurrState
from runs.pages.masking import masked


class BurrStatusFilter(RecentValuesFilter):
    title = "status"
    parameter_name = field_name = "status"


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
            # Not JSON after all: show the text as stored (masked), still escaped.
            return format_html(PRE, masked(obj.state))
        return pretty_html(value)
