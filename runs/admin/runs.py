"""The admin of runs: every field of a run, read-only (recorded values masked), with links to its parent, root and
stability source, to its nodes and to its page in Rewind."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.utils import flatten_fieldsets
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from runs.admin.common import ReadOnlyAdmin, admin_link, pretty, shown_text
from runs.models import Run


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
                    "shown_error",
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
    shown_error = shown_text("error")
