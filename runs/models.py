"""Rewind's data model (DESIGN.md, Data model).

Numbers that describe *how* a step ran (latency, tokens, cost) live on ``Node``; what a step
*produced* lives in Burr state (``BurrState``) and, hashed, on ``Node.output_sha256``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from runs.hashing import canonical_json, sha256_text
from runs.run_indexes import RUN_INDEXES


class BlobQuerySet(models.QuerySet):
    def store(self, blobs: Mapping[str, str], known: set[str] | None = None) -> list[str]:
        """Insert the blobs (hash → canonical JSON) not stored yet, in one statement — none at
        all when ``known``, hashes the caller has seen committed, holds every one. A blob
        already there is kept. Returns the hashes it inserted (or found there): the caller
        may count them known once its transaction has committed, not before."""
        new = [sha for sha in blobs if known is None or sha not in known]
        if new:
            self.bulk_create(
                [Blob(sha256=sha, body=blobs[sha]) for sha in new], ignore_conflicts=True
            )
        return new


class Blob(models.Model):
    """A value stored once, under the sha256 of its canonical JSON (DESIGN.md, rule 4): Burr
    state snapshots and the inputs, outputs and prompts of steps. Runs, steps and forks refer
    to blobs by hash, so an unchanged replay — whose states and outputs are its parent's —
    adds only its own step rows. Blobs are never rewritten and never deleted."""

    sha256 = models.CharField(max_length=64, primary_key=True)
    body = models.TextField()  # canonical JSON: sorted keys, compact separators, UTF-8

    objects = BlobQuerySet.as_manager()

    def __str__(self) -> str:
        return f"blob {self.sha256[:12]}… ({len(self.body)} chars)"

    @staticmethod
    def key(text: str) -> str:
        """The hash a blob of ``text`` (canonical JSON) is stored under."""
        return sha256_text(text)


def stored_json(name: str, default: Callable[[], Any] | None = None) -> property:
    """A model attribute whose JSON value lives in ``Blob``, through the foreign key
    ``<name>_blob``: read, it is decoded once per instance; assigned, its blob is made and
    kept aside until the row is saved (``StoresBlobs``). ``None`` is no blob at all."""
    fk = f"{name}_blob"

    def get(obj: models.Model) -> Any:
        values = obj.__dict__.setdefault("_stored_values", {})
        if name not in values:
            if getattr(obj, f"{fk}_id") is None:
                values[name] = default() if default else None
            else:
                values[name] = json.loads(getattr(obj, fk).body)
        return values[name]

    def put(obj: models.Model, value: Any) -> None:
        obj.__dict__.setdefault("_stored_values", {})[name] = value
        setattr(obj, f"{fk}_id", None if value is None else obj.keep_blob(canonical_json(value)))

    return property(get, put, doc=f"JSON value stored in Blob through {fk}")


class StoresBlobs(models.Model):
    """A model with values in blobs: saving a row stores the blobs it refers to first, in the
    same transaction."""

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        Blob.objects.store(self.take_new_blobs())
        super().save(*args, **kwargs)

    def keep_blob(self, text: str) -> str:
        """Keep the blob of ``text`` aside to be stored with the row; its hash."""
        sha = Blob.key(text)
        self.__dict__.setdefault("_new_blobs", {})[sha] = text
        return sha

    def refresh_from_db(self, *args: Any, **kwargs: Any) -> None:
        self.__dict__.pop("_stored_values", None)  # decoded values of the old row
        super().refresh_from_db(*args, **kwargs)

    def take_new_blobs(self) -> dict[str, str]:
        """The blobs (hash → text) assigned since the last save, handed over once (the caller
        stores them)."""
        return self.__dict__.pop("_new_blobs", {})


def _related_paths(tree: dict, prefix: str = "") -> Iterable[str]:
    for name, below in tree.items():
        if below:
            yield from _related_paths(below, f"{prefix}{name}__")
        else:
            yield f"{prefix}{name}"


class StoresBlobsQuerySet(models.QuerySet):
    """Rows whose manager joins their blobs (``select_related``), so reading a value costs no
    query. ``defer()`` takes the values' names too: deferring one leaves its join out (its
    hash is still loaded; reading the value then costs a query)."""

    VALUES: dict[str, str] = {}  # value attribute → its blob's foreign key

    def bulk_create(self, objs: Iterable[Any], *args: Any, **kwargs: Any) -> list[Any]:
        objs = list(objs)
        Blob.objects.store({k: v for obj in objs for k, v in obj.take_new_blobs().items()})
        return super().bulk_create(objs, *args, **kwargs)

    def defer(self, *fields: str | None) -> StoresBlobsQuerySet:
        if fields == (None,):  # nothing deferred any more: the values' joins come back
            return super().defer(None).select_related(*self.VALUES.values())
        blobs = {self.VALUES[f] for f in fields if f in self.VALUES}
        if not blobs:
            return super().defer(*fields)
        rest = [f for f in fields if f not in self.VALUES]
        queryset = self._without_joins(blobs)
        return super(StoresBlobsQuerySet, queryset).defer(*rest) if rest else queryset

    def only(self, *fields: str) -> StoresBlobsQuerySet:
        """``only("name", "output")``: the values named are loaded with their join, the
        others' joins are left out."""
        named = {f.split("__", 1)[0] for f in fields}
        wanted = {fk for value, fk in self.VALUES.items() if value in named or fk in named}
        queryset = self._without_joins(set(self.VALUES.values()) - wanted)
        if wanted:
            queryset = queryset.select_related(*wanted)
        fields = tuple(
            f"{self.VALUES[f]}__body" if f in self.VALUES else f for f in fields
        ) + tuple(f"{fk}__body" for fk in wanted)
        return super(StoresBlobsQuerySet, queryset).only(*dict.fromkeys(fields))

    def _without_joins(self, blobs: set[str]) -> StoresBlobsQuerySet:
        related = self.query.select_related
        keep = [
            path
            for path in (_related_paths(related) if isinstance(related, dict) else [])
            if path.split("__", 1)[0] not in blobs
        ]
        queryset = self.select_related(None)
        return queryset.select_related(*keep) if keep else queryset


def same_override(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    """Two stored overrides make the same change: the same node, field and value (canonical
    JSON, so key order never matters and a float stays a float)."""
    if not a or not b:
        return not a and not b
    keys = ("node", "field", "value")
    return canonical_json([a.get(k) for k in keys]) == canonical_json([b.get(k) for k in keys])


class RunQuerySet(models.QuerySet):
    """Every change of a run's status, each one conditional UPDATE: a run is claimed once,
    interrupted only while running, resumed only when interrupted, cancelled only while
    queued or running — and a cancelled run stays cancelled."""

    def claim(self, pk: int) -> bool:
        """queued → running; False when another process claimed it first."""
        now = timezone.now()
        return bool(
            self.filter(pk=pk, status=Run.Status.QUEUED).update(
                status=Run.Status.RUNNING, started_at=now, heartbeat_at=now
            )
        )

    def beat(self, pk: int) -> None:
        self.filter(pk=pk, status=Run.Status.RUNNING).update(heartbeat_at=timezone.now())

    def interrupt_stale(self, lease_seconds: int) -> list[int]:
        """Mark running runs whose heartbeat is older than the lease ``interrupted``."""
        cutoff = timezone.now() - timedelta(seconds=lease_seconds)
        ids = list(
            self.filter(status=Run.Status.RUNNING, heartbeat_at__lt=cutoff).values_list(
                "pk", flat=True
            )
        )
        if ids:
            self.filter(pk__in=ids, status=Run.Status.RUNNING).update(
                status=Run.Status.INTERRUPTED,
                finished_at=timezone.now(),
                error=f"the worker stopped (no heartbeat for over {lease_seconds} s); completed "
                "steps are kept: resume or fork the run",
            )
        return ids

    def interrupt(self, pks: list[int], reason: str) -> list[int]:
        """running → interrupted for runs whose worker is *known* to have stopped (a batch saw
        the process it started exit), without waiting for the lease; returns those changed."""
        changed = []
        for pk in pks:
            if self.filter(pk=pk, status=Run.Status.RUNNING).update(
                status=Run.Status.INTERRUPTED, finished_at=timezone.now(), error=reason
            ):
                changed.append(pk)
        return changed

    def withdraw(self, pks: list[int], reason: str) -> list[int]:
        """queued → cancelled (never started), leaving running and finished runs alone;
        returns those withdrawn. A batch stopped by Ctrl-C withdraws what no worker took."""
        withdrawn = []
        for pk in pks:
            if self.filter(pk=pk, status=Run.Status.QUEUED).update(
                status=Run.Status.CANCELLED, finished_at=timezone.now(), error=reason
            ):
                withdrawn.append(pk)
        return withdrawn

    def requeue(self, pk: int) -> bool:
        """interrupted → queued, to continue after its last completed step."""
        return bool(
            self.filter(pk=pk, status=Run.Status.INTERRUPTED).update(
                status=Run.Status.QUEUED, error="", finished_at=None
            )
        )

    def cancel(self, pk: int, reason: str) -> bool:
        """queued or running → cancelled, with ``reason`` as its error; False when the run
        had already finished. A queued run is never started; a running one stops waiting
        for its step at the executing worker's next status read (``leases.Heartbeat``)."""
        return bool(
            self.filter(pk=pk, status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).update(
                status=Run.Status.CANCELLED, finished_at=timezone.now(), error=reason
            )
        )

    def status_of(self, pk: int) -> tuple[str, str] | None:
        """The run's status and error (one query), or None when there is no such run."""
        return self.filter(pk=pk).values_list("status", "error").first()

    def finish(self, pk: int, status: str, **fields: object) -> None:
        """End an executed run — unless it was cancelled meanwhile: cancelled it stays."""
        self.filter(pk=pk).exclude(status=Run.Status.CANCELLED).update(
            status=status, finished_at=timezone.now(), **fields
        )

    def identical_fork(
        self,
        source: Run,
        sequence_id: int,
        override: dict[str, Any] | None,
        mode: str,
        statuses: Iterable[str],
    ) -> Run | None:
        """The newest run that forked ``source`` at step ``sequence_id`` with the same override
        (node, field and value compared as canonical JSON; None: an unchanged replay) in
        ``mode``, whose status is one of ``statuses`` — or None. Stability samples are not
        forks a person asked for and are never returned. Candidates are few (the forks of one
        run at one step), so the value is compared here rather than in SQL, where JSON
        equality differs between SQLite and PostgreSQL."""
        candidates = self.filter(
            parent=source,
            fork_sequence_id=sequence_id,
            mode=mode,
            status__in=list(statuses),
            sample_of__isnull=True,
        ).order_by("-created_at", "-id")
        if override is None:
            candidates = candidates.filter(override__isnull=True)
        else:
            candidates = candidates.filter(override__field=override.get("field"))
        return next((r for r in candidates if same_override(r.override, override)), None)

    def mark_samples(self, source: Run, samples: list[Run]) -> None:
        """Record ``samples`` (live forks of ``source``) as its stability samples, and count
        them on ``source`` — the count lets a diff know without a query whether to look for
        samples (runs.engine.analysis.noise)."""
        self.filter(pk__in=[s.pk for s in samples]).update(sample_of=source)
        self.filter(pk=source.pk).update(sample_count=models.F("sample_count") + len(samples))
        for sample in samples:
            sample.sample_of = source
        source.refresh_from_db(fields=["sample_count"])


class Run(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        COMPLETED = "completed"
        FAILED = "failed"
        INTERRUPTED = "interrupted"
        CANCELLED = "cancelled"

    # A run in one of these will not change by itself any more.
    FINISHED = frozenset({Status.COMPLETED, Status.FAILED, Status.INTERRUPTED, Status.CANCELLED})

    class Mode(models.TextChoices):
        CACHE = "cache"
        LIVE = "live"

    pipeline = models.CharField(max_length=100)
    inputs = models.JSONField(default=dict)
    # Model, temperature, preset and base URL at the time the run was created; never the key.
    provider = models.JSONField(default=dict)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="forks"
    )
    root = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="descendants"
    )
    fork_node = models.CharField(max_length=100, blank=True)
    fork_sequence_id = models.IntegerField(null=True, blank=True)
    # {"node", "field", "value"} or None for an unchanged replay / a fresh run.
    override = models.JSONField(null=True, blank=True)
    # Burr apps: the runtime inputs of each turn ([{"inputs": {...}}, …]; one turn runs until a
    # halt) and the halts ({"after": [...], "before": [...]}) — as app.run(inputs=, halt_after=).
    turns = models.JSONField(default=list, blank=True)
    halt = models.JSONField(default=dict, blank=True)
    mode = models.CharField(max_length=5, choices=Mode.choices, default=Mode.CACHE)
    # A replay may reach the network where it did not record a call (``--allow-network``);
    # by default it is hermetic (runs.engine.calls.capture.guard).
    allow_network = models.BooleanField(default=False)
    # What the capture could not see while the run's steps ran live (a connection opened
    # outside it: the replay of that step will not be hermetic), one sentence each.
    warnings = models.JSONField(default=list, blank=True)
    artifact_path = models.CharField(max_length=500, blank=True)
    artifact_sha256 = models.CharField(max_length=64, blank=True)
    trajectory_sha256 = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Written by the executing process while it works; a stale heartbeat on a running run
    # means its worker died (see runs.engine.execution.leases.mark_interrupted_runs).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # A stability sample: a live, unchanged fork of ``sample_of`` made to measure its jitter
    # (runs.engine.analysis.noise). ``sample_count`` on the sampled run counts them, so the diff knows
    # whether to look for samples without a query.
    sample_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="samples"
    )
    sample_count = models.PositiveIntegerField(default=0)
    # Who started the run from the dashboard or the API; null for a run made by a command or
    # recorded from a program (the operator's, never limited by a budget: runs.budgets).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,  # the index below leads with it: a user's runs of a day
    )
    # What the daily budget reserved for the run when it was queued (runs.budgets): counted
    # against the day until the run has finished, then its live steps count instead. Null: no
    # estimate (a new run of a pipeline with no history) or, for the cost, unknown.
    projected_tokens = models.IntegerField(null=True, blank=True)
    projected_cost_usd = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    # A run read from history Burr kept (runs.engine.imports): {"path", "project", "app_id"}
    # (the same app id may exist in two projects), null for a run Rewind made or recorded.
    # ``import_key`` names its source once (format, location, project, app id): importing the
    # same source again finds this run instead of making another.
    imported_from = models.JSONField(null=True, blank=True)
    import_key = models.CharField(max_length=64, blank=True, default="")
    # A sub-application (Burr's spawning_parent_pointer: a MapStates child, a spawned app)
    # is a run of its own, linked to the run and step that spawned it.
    spawned_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    spawned_sequence_id = models.IntegerField(null=True, blank=True)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = RUN_INDEXES
        constraints = [
            models.UniqueConstraint(
                fields=["import_key"], condition=~models.Q(import_key=""), name="run_unique_import"
            ),
        ]

    def __str__(self) -> str:
        return f"run {self.pk} ({self.pipeline}, {self.status})"

    @property
    def is_fork(self) -> bool:
        return self.parent_id is not None

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    @property
    def replays_parent(self) -> bool:
        """An unchanged replay of its parent: no override of its own (a replay of a fork
        carries the fork's override at the fork's own step). Reads ``parent``."""
        if self.parent_id is None:
            return False
        if not self.override:
            return True
        parent = self.parent
        return (
            parent.override is not None
            and parent.fork_sequence_id == self.fork_sequence_id
            and same_override(parent.override, self.override)
        )


class GridQuerySet(models.QuerySet):
    def record(
        self,
        source: Run,
        step: Node,
        field: str,
        values: list[str],
        forks: list[Run],
        created_by: object = None,
        *,
        cross_field: str = "",
        cross_values: list[str] | None = None,
        crossed: list[list[Run]] | None = None,
    ) -> Grid:
        """Store a grid over forks already made (one per value, in order); call it in the
        transaction that made them, so a grid never lacks a row.

        A crossed grid (``cross_field``) also has, for each value ``i``, the forks of
        ``forks[i]`` made once per cross value: ``crossed[i][j]`` for ``cross_values[j]``."""
        grid = self.create(
            source=source,
            node=step.name,
            sequence_id=step.sequence_id,
            field=field,
            values=list(values),
            cross_field=cross_field,
            cross_values=list(cross_values or []),
            created_by=created_by,
        )
        rows = [GridRow(grid=grid, position=i, run=fork) for i, fork in enumerate(forks)]
        for i, cells in enumerate(crossed or []):
            rows += [
                GridRow(grid=grid, position=i, cross_position=j, run=cell)
                for j, cell in enumerate(cells)
            ]
        GridRow.objects.bulk_create(rows)
        return grid


class Grid(models.Model):
    """A what-if grid: one fork of ``source`` at one step per value of one field, so a person
    reads side by side which steps each value changes. Its forks are its ``rows``."""

    source = models.ForeignKey(Run, on_delete=models.PROTECT, related_name="grids")
    node = models.CharField(max_length=100)  # the step's name
    sequence_id = models.IntegerField()  # the step of ``source`` every fork re-executes from
    field = models.CharField(max_length=200)
    values = models.JSONField(default=list)  # as typed, one per row, in row order
    # A crossed grid (issue 17, item 6) varies a second field of the same step: each cell
    # (value, cross value) is a fork of the value's fork (a fork changes one field). Blank: a
    # grid over one field.
    cross_field = models.CharField(max_length=200, blank=True, default="")
    cross_values = models.JSONField(default=list, blank=True)  # as typed, in order
    created_at = models.DateTimeField(auto_now_add=True)
    # Null for a grid made on the command line (rewind_grid).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    MAX_VALUES = 50  # forks one grid may make (a crossed grid: values × (1 + cross values))

    objects = GridQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        over = f"{self.field} × {self.cross_field}" if self.cross_field else self.field
        return f"grid {self.pk} over {over} at {self.node} of run {self.source_id}"

    @property
    def crossed(self) -> bool:
        return bool(self.cross_field)

    @staticmethod
    def fork_count(values: int, cross_values: int = 0) -> int:
        """The forks a grid makes: one per value, and per value one per cross value."""
        return values * (1 + cross_values)


class GridRow(models.Model):
    grid = models.ForeignKey(Grid, on_delete=models.CASCADE, related_name="rows")
    position = models.PositiveIntegerField()  # index into ``grid.values``
    # Index into ``grid.cross_values`` for a crossed cell (a fork of the row at ``position``
    # without one); null for the fork of the value alone.
    cross_position = models.PositiveIntegerField(null=True, blank=True)
    run = models.OneToOneField(Run, on_delete=models.PROTECT, related_name="grid_row")

    class Meta:
        ordering = ["grid_id", "position", models.F("cross_position").asc(nulls_first=True)]
        constraints = [
            # NULLs are distinct in a unique index: one constraint per kind of row.
            models.UniqueConstraint(
                fields=["grid", "position"],
                condition=models.Q(cross_position__isnull=True),
                name="grid_row_unique_position",
            ),
            models.UniqueConstraint(
                fields=["grid", "position", "cross_position"],
                condition=models.Q(cross_position__isnull=False),
                name="grid_row_unique_cell",
            ),
        ]

    def __str__(self) -> str:
        cell = "" if self.cross_position is None else f" × {self.cross_position}"
        return f"row {self.position}{cell} of grid {self.grid_id}: run {self.run_id}"


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

    def __str__(self) -> str:
        return f"{self.name}#{self.sequence_id} of run {self.run_id}"

    @property
    def model_substituted(self) -> bool:
        return bool(self.model_answered) and self.model_answered != self.model_requested


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


class CacheEntry(models.Model):
    key = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    hit_count = models.PositiveIntegerField(default=0)
    last_hit_at = models.DateTimeField(null=True, blank=True)

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
    request = models.JSONField()
    response = models.JSONField()  # {"content": ...} — the text the model answered
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
    result = models.JSONField()
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


class BurrStateQuerySet(StoresBlobsQuerySet):
    VALUES = {"state": "state_blob"}


class BurrStateManager(models.Manager.from_queryset(BurrStateQuerySet)):
    def get_queryset(self) -> BurrStateQuerySet:
        return super().get_queryset().select_related("state_blob")


class BurrState(StoresBlobs):
    """Burr's persister table, written through the ORM by ``DjangoPersister``. The snapshot
    itself is a ``Blob`` (canonical JSON of Burr's serialised state), shared by every row
    that holds the same state — an unchanged replay's rows point at its parent's snapshots."""

    partition_key = models.CharField(max_length=100, default="")
    app_id = models.CharField(max_length=100)
    sequence_id = models.IntegerField()
    position = models.CharField(max_length=100)
    status = models.CharField(max_length=10)
    # Not indexed: nothing looks a state row up by its snapshot, and blobs are never deleted.
    state_blob = models.ForeignKey(Blob, on_delete=models.PROTECT, related_name="+", db_index=False)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = BurrStateManager()

    class Meta:
        verbose_name = "Burr state row"
        constraints = [
            models.UniqueConstraint(
                fields=["partition_key", "app_id", "sequence_id", "position"],
                name="burr_state_unique_row",
            ),
        ]
        indexes = [models.Index(fields=["partition_key", "app_id", "-sequence_id"])]

    def __str__(self) -> str:
        return f"app {self.app_id} step {self.sequence_id} ({self.position}, {self.status})"

    @property
    def state(self) -> str:
        """The snapshot: canonical JSON of Burr's serialised state."""
        values = self.__dict__.setdefault("_stored_values", {})
        if "state" not in values:
            values["state"] = self.state_blob.body
        return values["state"]

    @state.setter
    def state(self, text: str) -> None:
        self.__dict__.setdefault("_stored_values", {})["state"] = text
        self.state_blob_id = self.keep_blob(text)


class ProviderSettings(models.Model):
    """Provider defaults and the daily budget saved from the settings page; blank provider
    fields fall back to the environment. One row. The API key is never here: it only ever comes from the environment."""

    preset = models.CharField(max_length=20, blank=True)
    base_url = models.CharField(max_length=500, blank=True)
    model = models.CharField(max_length=200, blank=True)
    temperature = models.FloatField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.CharField(max_length=150, blank=True)
    # What each non-staff user may spend a day (runs.budgets), in tokens and/or dollars of
    # live LLM calls; null is no limit.
    daily_tokens = models.PositiveIntegerField(null=True, blank=True)
    daily_usd = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)

    class Meta:
        verbose_name = "provider settings"
        verbose_name_plural = "provider settings"

    def __str__(self) -> str:
        return "provider settings"

    @classmethod
    def load(cls) -> ProviderSettings:
        return cls.objects.filter(pk=1).first() or cls(pk=1)


# The dashboard's outcomes and batch counterfactuals' rows live in modules of their own (this one
# stays readable); importing them here is what makes them this app's models.
from runs.batch_rows import Batch, BatchQuerySet, BatchSource  # noqa: E402, F401
from runs.outcome_rows import Outcome  # noqa: E402, F401
