"""A run's steps and transitions: ``Node`` (its values in blobs) and ``Edge``.

Numbers that describe *how* a step ran (latency, tokens, cost) live on ``Node``; what a step
*produced* lives in Burr state (``BurrState``) and, hashed, on ``Node.output_sha256``.
"""

from __future__ import annotations

from django.db import models

from runs.lib.model_names import substitution
from runs.models.blobs import Blob, StoresBlobs, StoresBlobsQuerySet, stored_json
from runs.models.runs import Run


class NodeQuerySet(StoresBlobsQuerySet):
    VALUES = {"inputs": "inputs_blob", "output": "output_blob", "prompt": "prompt_blob"}


class NodeManager(models.Manager.from_queryset(NodeQuerySet)):
    def get_queryset(self) -> NodeQuerySet:
        # A step is read with its stored values, in the same query.
        return super().get_queryset().select_related(*NodeQuerySet.VALUES.values())


class Node(StoresBlobs):
    class Kind(models.TextChoices):
        LLM = "llm"  # made an LLM call
        TOOL = "tool"  # made calls, none to an LLM (or a declared tool node)
        CODE = "code"  # made no call: re-executed on replay

    class Status(models.TextChoices):
        COMPLETED = "completed"
        FAILED = "failed"

    class CacheSource(models.TextChoices):
        LIVE = "live"
        CACHE = "cache"
        TOOL_CACHE = "tool-cache"
        OVERRIDE = "override"
        RENDER_CACHE = "render-cache"
        INHERITED = "inherited"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="nodes")
    sequence_id = models.IntegerField()
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=4, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices)
    # What the step read, what it produced (hashed in ``output_sha256``; none when it failed)
    # and the exact messages it sent (llm steps), each stored once by content (``Blob``):
    # read and assign ``inputs``, ``output`` and ``prompt`` below.
    inputs_blob = models.ForeignKey(
        Blob, null=True, blank=True, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    output_blob = models.ForeignKey(
        Blob, null=True, blank=True, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    output_sha256 = models.CharField(max_length=64, blank=True)
    prompt_blob = models.ForeignKey(
        Blob, null=True, blank=True, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    model_requested = models.CharField(max_length=200, blank=True)
    model_answered = models.CharField(max_length=200, blank=True)
    temperature = models.FloatField(null=True, blank=True)
    latency_ms = models.FloatField(default=0)
    prompt_tokens = models.IntegerField(default=0)
    completion_tokens = models.IntegerField(default=0)
    total_tokens = models.IntegerField(default=0)
    # Dollars this step cost. 0 is a real zero (a cached, inherited or tool step paid nothing);
    # NULL means "unknown": the provider answered with a model that has no price in
    # runs/engine/calls/pricing.py. Never read NULL as 0: a run's total is unknown as soon as one
    # step it executed is.
    cost_usd = models.DecimalField(
        max_digits=12, decimal_places=6, default=0, null=True, blank=True
    )
    cache_source = models.CharField(max_length=12, choices=CacheSource.choices)
    cache_key = models.CharField(max_length=64, blank=True)
    # The cache entries this step's calls read or wrote, in call order, as "llm:<id>" or
    # "tool:<id>": a replay (any fork whose step makes the same call) reads these back.
    cache_entries = models.JSONField(default=list, blank=True)
    # The HTTP calls a step of a Burr app made (runs.engine.calls.capture.Call.as_json), in order.
    calls = models.JSONField(default=list, blank=True)
    # Why a cache lookup missed: the nearest entry and the component that differed.
    cache_note = models.CharField(max_length=300, blank=True)
    src_run = models.ForeignKey(Run, on_delete=models.PROTECT, related_name="+")
    src_sequence_id = models.IntegerField()
    error = models.TextField(blank=True)
    raw_output = models.TextField(blank=True)
    # The spans and attributes Burr's tracer logged inside the step (imported runs):
    # [{"id", "parent", "name", "start", "end", "attributes": {...}}], in the order begun.
    spans = models.JSONField(default=list, blank=True)
    # A hash of the action's source as Burr holds it (runs.engine.apps.versions; "" unknown), and
    # whether it differs from the source step's this step re-executed: then a different output
    # is the edit ("code changed"), never called non-deterministic.
    code_version = models.CharField(max_length=64, blank=True)
    code_changed = models.BooleanField(default=False)
    # What that version is made of (``versions.code_parts``: part name → short hash, a
    # distribution's version), so a change says why (``versions.step_changes``); {} for a step
    # recorded before parts were kept.
    code_parts = models.JSONField(default=dict, blank=True)
    # What the step's code read from the clock and randomness (runs.engine.calls.capture.values):
    # {"reads": {"thread|what|module:line": [value, ...]}, "not_replayed": [{"line", "what",
    # "thread", "reads"}]}; a replay of the step gives the same lines these values.
    values_read = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    inputs = stored_json("inputs", dict)
    output = stored_json("output")
    prompt = stored_json("prompt")

    objects = NodeManager()

    class Meta:
        ordering = ["run_id", "sequence_id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "sequence_id"], name="node_unique_step"),
        ]
        # The blob references, indexed so that deleting a blob (``rewind_prune``) checks its
        # foreign keys by an index rather than by a scan of every step (tens of ms a blob at a
        # few thousand runs, growing with the history); the constraint itself stays, since it
        # is what stops a prune from deleting a blob a run is writing a reference to.
        indexes = [
            models.Index(fields=["inputs_blob"], name="node_inputs_blob"),
            models.Index(fields=["output_blob"], name="node_output_blob"),
            models.Index(fields=["prompt_blob"], name="node_prompt_blob"),
        ]

    def __str__(self) -> str:
        return f"{self.name}#{self.sequence_id} of run {self.run_id}"

    @property
    def model_substituted(self) -> bool:
        return bool(self.model_substitution)

    @property
    def model_substitution(self) -> str:
        """How the answering model differs from the one asked for ("": the same model, or
        its dated snapshot — ``runs.lib.model_names``)."""
        return substitution(self.model_requested, self.model_answered)


class Edge(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="edges")
    sequence_id = models.IntegerField()  # the step the transition led to
    from_node = models.CharField(max_length=100)
    to_node = models.CharField(max_length=100)
    condition = models.CharField(max_length=200, default="default")

    class Meta:
        ordering = ["run_id", "sequence_id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "sequence_id"], name="edge_unique_step"),
        ]

    def __str__(self) -> str:
        return f"{self.from_node} → {self.to_node} ({self.condition})"
