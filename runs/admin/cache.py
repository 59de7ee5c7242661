"""The admin of the two caches (LLM answers, tool results): read-only, except that staff
with the delete permission may delete an entry. That is how a team invalidates a bad cached
answer: the next run that needs it calls the model or tool again and stores a fresh one. A
request and an answer are shown masked (``runs.pages.masking``), as stored they stay exact."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.utils import flatten_fieldsets

from runs.admin.common import SHORT_KEY_LENGTH, ReadOnlyAdmin, RecentValuesFilter, pretty
from runs.lib.model_names import substitution
from runs.models import LLMCacheEntry, ToolCacheEntry
from runs.pages.masking import masked_stored


class ModelRequestedFilter(RecentValuesFilter):
    title = "model requested"
    parameter_name = field_name = "model_requested"


class ToolFilter(RecentValuesFilter):
    title = "tool"
    parameter_name = field_name = "tool"


class CacheEntryAdmin(ReadOnlyAdmin):
    """Cache entries are read-only too, but staff with the delete permission may delete
    one: that is how a bad cached answer is invalidated."""

    deletable = True
    ordering = ("-pk",)

    @admin.display(description="key", ordering="key")
    def short_key(self, obj: LLMCacheEntry | ToolCacheEntry) -> str:
        return obj.key[:SHORT_KEY_LENGTH]


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
        "failed",
        "hit_count",
        "last_hit_at",
        "created_at",
    )
    list_filter = ("provider", "failed", ModelRequestedFilter)
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
                    "failed",
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
        return bool(substitution(obj.model_requested, obj.model_answered))

    pretty_request = pretty("request")
    pretty_response = pretty("response", masked_stored)  # a captured answer's body: its fields too
    pretty_usage = pretty("usage")


@admin.register(ToolCacheEntry)
class ToolCacheEntryAdmin(CacheEntryAdmin):
    list_display = (
        "short_key", "tool", "tool_version", "failed", "hit_count", "last_hit_at", "created_at",
    )  # fmt: skip
    list_filter = ("failed", ToolFilter)
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
                    "failed",
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
    pretty_result = pretty("result", masked_stored)
