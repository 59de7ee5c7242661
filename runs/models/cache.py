"""The answers calls got: ``LLMCacheEntry`` and ``ToolCacheEntry``."""

from __future__ import annotations

from django.db import models

from runs.models.packed import PackedJSON


class CacheEntry(models.Model):
    key = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    hit_count = models.PositiveIntegerField(default=0)
    last_hit_at = models.DateTimeField(null=True, blank=True)
    # What a failed attempt got (a 429, a 5xx: status and body), kept so that a replay gives
    # the attempt the same failure and the client's retry takes the same path. Read only by
    # the runs that pinned it; a new lookup never takes a failure for an answer.
    failed = models.BooleanField(default=False)

    class Meta:
        abstract = True


class LLMCacheEntry(CacheEntry):
    """One answer a call got. The same call made twice in one run is stored per occurrence
    (DESIGN.md, cache key), and every *different* answer a (key, occurrence) ever got — live
    runs, stability samples at temperature > 0 — is kept as its own entry. A new lookup takes
    the first (lowest id); each Node pins the entries it used (``Node.cache_entries``), so a
    replay of a run reads exactly the answers that run received."""

    class Provider(models.TextChoices):
        SIMULATOR = "simulator", "offline simulator"
        ENDPOINT = "endpoint", "model endpoint"

    occurrence = models.PositiveIntegerField(default=0)
    node_name = models.CharField(max_length=100, db_index=True)
    # What answered: part of the key of a declared node's call (runs.engine.calls.keys); for
    # a captured call, what the answer said it came from. Blank: captured before 0012.
    provider = models.CharField(max_length=10, choices=Provider.choices, blank=True)
    model_requested = models.CharField(max_length=200)
    model_answered = models.CharField(max_length=200, blank=True)
    # The key's components (messages, model, …) so a miss can name what differed.
    request = PackedJSON()  # compressed when that pays, as the answer (runs.models.packed)
    response = PackedJSON()  # {"content": ...} — the text the model answered
    # sha256 of the canonical response: one entry per distinct answer of a (key, occurrence).
    response_sha256 = models.CharField(max_length=64, default="")
    usage = models.JSONField(default=dict)

    class Meta:
        verbose_name = "LLM cache entry"
        verbose_name_plural = "LLM cache entries"
        constraints = [
            models.UniqueConstraint(
                fields=["key", "occurrence", "response_sha256"], name="llm_cache_unique_answer"
            ),
        ]
        indexes = [models.Index(fields=["key", "occurrence", "id"])]

    def __str__(self) -> str:
        return f"{self.key[:12]}…#{self.occurrence}"


class ToolCacheEntry(CacheEntry):
    """A tool's result: a declared tool node's computation, or an HTTP call a step made to
    anything but an LLM (``tool_version`` "http"). Kept like LLM answers: per occurrence
    within a step, one entry per distinct result, pinned by the steps that used it."""

    occurrence = models.PositiveIntegerField(default=0)
    tool = models.CharField(max_length=100, db_index=True)
    tool_version = models.CharField(max_length=50)
    args = models.JSONField()
    result = PackedJSON()
    result_sha256 = models.CharField(max_length=64, default="")

    class Meta:
        verbose_name = "tool cache entry"
        verbose_name_plural = "tool cache entries"
        constraints = [
            models.UniqueConstraint(
                fields=["key", "occurrence", "result_sha256"], name="tool_cache_unique_result"
            )
        ]
        indexes = [models.Index(fields=["key", "occurrence", "id"])]

    def __str__(self) -> str:
        return f"{self.tool} {self.key[:12]}…"
