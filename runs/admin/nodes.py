"""The admin of nodes (a run's steps): how each ran (cache, model, numbers) and what it
consumed and produced (masked), read-only; a filter for the steps whose provider answered with another
model than the one requested."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.utils import flatten_fieldsets
from django.db.models import F, Q, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from runs.admin.common import SHORT_KEY_LENGTH, ReadOnlyAdmin, admin_link, pretty, shown_text
from runs.lib.model_names import substitution
from runs.models import Node, Run


class ModelSubstitutedFilter(admin.SimpleListFilter):
    """The provider answered with another model than the one requested — another family or
    size, not the dated snapshot of the alias asked for (``runs.lib.model_names``). The rule
    is Python's: it is applied to the distinct (requested, answered) pairs, a handful."""

    title = "model substituted"
    parameter_name = "model_substituted"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple]:
        return [("yes", "Yes"), ("no", "No")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet | None:
        if self.value() not in ("yes", "no"):
            return queryset
        differ = queryset.exclude(model_answered="").exclude(model_answered=F("model_requested"))
        pairs = differ.values_list("model_requested", "model_answered").distinct()
        substituted = Q(pk__in=[])
        for requested, answered in pairs:
            if substitution(requested, answered):
                substituted |= Q(model_requested=requested, model_answered=answered)
        if self.value() == "yes":
            return queryset.filter(substituted)
        if self.value() == "no":
            return queryset.exclude(substituted)
        return queryset


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
                    "shown_error",
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
                    "shown_raw_output",
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
    shown_error = shown_text("error")
    shown_raw_output = shown_text("raw_output")
