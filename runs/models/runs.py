"""Runs: ``Run``, every change of its status (``RunQuerySet``) and ``same_override``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connections, models
from django.utils import timezone

from runs.lib.hashing import canonical_json
from runs.models.indexes import RUN_INDEXES
from runs.models.ordered import OrderedJSON, SealedLeaves
from runs.models.sql import update_where


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
        changed = update_where(
            Run,
            {"status": Run.Status.RUNNING, "started_at": now, "heartbeat_at": now},
            {"id": pk, "status": Run.Status.QUEUED},
        )
        return changed == 1

    def make_root(self, run: Run) -> None:
        """``run`` is its own root — a new run, a recorded program's, an imported app without
        a parent — in one UPDATE (its id exists only once it is inserted); the instance says
        so too."""
        update_where(Run, {"root": run.pk}, {"id": run.pk})
        run.root = run

    def with_parent(self, pk: int) -> Run:
        """The run ``pk`` with its parent (``run.parent`` costs no query), in one statement
        the ORM does not build: every run executed is loaded this way, and building
        ``select_related("parent").get(pk=pk)`` took longer than the query. Raises
        ``Run.DoesNotExist`` when there is no such run."""
        quote = connections[self.db].ops.quote_name
        table, key, parent = quote(Run._meta.db_table), quote("id"), quote("parent_id")
        sql = f"SELECT * FROM {table} WHERE {key} = %s OR {key} = "
        sql += f"(SELECT {parent} FROM {table} WHERE {key} = %s)"
        found = {run.pk: run for run in self.raw(sql, [pk, pk])}
        if pk not in found:
            raise Run.DoesNotExist(f"no run {pk}")
        run = found[pk]
        if run.parent_id is not None:
            run.parent = found[run.parent_id]
        return run

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

    def give_up(self, pks: list[int], reason: str) -> list[int]:
        """queued or running → failed, with ``reason`` as its error, for runs the process that
        was to execute them will not (a regression batch's interpreter refused its code, or
        died); returns those changed. Finished runs are left alone."""
        changed = []
        for pk in pks:
            if self.filter(pk=pk, status__in=(Run.Status.QUEUED, Run.Status.RUNNING)).update(
                status=Run.Status.FAILED, finished_at=timezone.now(), error=reason
            ):
                changed.append(pk)
        return changed

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

    def finish(self, pk: int, status: str, **fields: object) -> dict[str, object] | None:
        """End an executed run — unless it was cancelled meanwhile: cancelled it stays. The
        values written (with ``status`` and ``finished_at``), or None when nothing was."""
        fields = {"status": status, "finished_at": timezone.now(), **fields}
        updated = update_where(Run, fields, {"id": pk}, unless={"status": Run.Status.CANCELLED})
        return fields if updated else None

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
        forks a person asked for and are never returned, nor are regression runs. Candidates are few (the forks of one
        run at one step), so the value is compared here rather than in SQL, where JSON
        equality differs between SQLite and PostgreSQL."""
        candidates = self.filter(
            parent=source,
            fork_sequence_id=sequence_id,
            mode=mode,
            status__in=list(statuses),
            sample_of__isnull=True,
            regression_code="",
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
    inputs = OrderedJSON(default=dict)  # in the order given: the app iterates them
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
    override = SealedLeaves(null=True, blank=True)
    # Burr apps: the runtime inputs of each turn ([{"inputs": {...}}, …]; one turn runs until a
    # halt) and the halts ({"after": [...], "before": [...]}) — as app.run(inputs=, halt_after=);
    # an imported run whose last turn no halt ends (a loop its program stepped) also has
    # "steps": its forks stop after as many steps as it ran.
    turns = OrderedJSON(default=list, blank=True)
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
    # A regression run (``rewind_regress``): its parent re-run from the first step with the
    # app's code as it is now — the app version it must run (``versions.app_version``); ""
    # for every other run. Unlike an unchanged replay it is not hermetic: a call whose request
    # the new code changed goes to the provider; a worker running other code refuses it.
    regression_code = models.CharField(max_length=64, blank=True, default="")
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
        if self.parent_id is None or self.regression_code:
            return False
        if not self.override:
            return True
        parent = self.parent
        return (
            parent.override is not None
            and parent.fork_sequence_id == self.fork_sequence_id
            and same_override(parent.override, self.override)
        )
