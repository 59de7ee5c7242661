"""The rows of a batch counterfactual (issue 17, item 2): ``Batch`` and ``BatchSource``."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from runs.models.runs import Run


class BatchQuerySet(models.QuerySet):
    def with_counts(self) -> BatchQuerySet:
        """Each batch with ``row_count`` (its source rows) and ``forks_finished`` (rows whose
        fork has finished), for the list: one query for a page of batches."""
        return self.annotate(
            row_count=models.Count("sources"),
            forks_finished=models.Count(
                "sources", filter=models.Q(sources__fork__status__in=list(Run.FINISHED))
            ),
        )


class Batch(models.Model):
    """A batch counterfactual (issue 17): one change — a step, a field and one or more values —
    applied to each of a selection of recorded runs, each fork an ordinary fork, and, with
    ``samples``, each source sampled that many times so every flip is judged against the
    source's own noise. Outcomes are never stored here: they are read from the runs
    (runs.engine.analysis.batches)."""

    pipeline = models.CharField(max_length=100)
    # How the sources were chosen, for reading: {"runs": [...]} or {"pipeline", "where"}.
    selection = models.JSONField(default=dict)
    node = models.CharField(max_length=100)  # as given: a name, name#k or step number
    field = models.CharField(max_length=200)
    values = models.JSONField(default=list)  # as typed, in order
    samples = models.PositiveIntegerField(default=0)  # per source run
    # A regression replay (``rewind_regress``): the change is the app's code as it was when
    # the batch was made — its version (``versions.app_version``: a hash of the app's action
    # sources and of the files that hold them) and, when those live in a git work tree, the
    # commit (with "+dirty" when they differ from it). "" for a batch of one field's change.
    code_version = models.CharField(max_length=64, blank=True, default="")
    code_commit = models.CharField(max_length=80, blank=True, default="")
    # Its parts (``AppVersion.parts``), so a process refused for running other code names what
    # changed (``versions.check_version``).
    code_parts = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Null for a batch made on the command line (rewind_batch).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    MAX_SOURCES = 5000
    MAX_VALUES = 10

    objects = BatchQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"batch {self.pk}: {self.change} over {self.pipeline}"

    @property
    def is_regression(self) -> bool:
        return bool(self.code_version)

    @property
    def code_label(self) -> str:
        """The code a regression replay ran, as people read it: ``3f2a9c01d4e5 (git 959e440)``."""
        if not self.code_version:
            return ""
        short = self.code_version[:12]
        return f"{short} (git {self.code_commit})" if self.code_commit else short

    @property
    def change(self) -> str:
        """What the batch changed: "the code at <version>", or the field at the step."""
        if self.is_regression:
            return f"the code at {self.code_label}"
        return f"{self.field} at {self.node}"


class BatchSource(models.Model):
    """One source run of a batch under one of its values: the fork made for it (null when the
    change could not apply to that run: ``error`` says why) and, on the row of the first
    value, the source's samples taken by the batch."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="sources")
    position = models.PositiveIntegerField()  # order of the rows: source, then value
    source = models.ForeignKey("runs.Run", on_delete=models.PROTECT, related_name="+")
    value_index = models.PositiveIntegerField(default=0)  # index into ``batch.values``
    fork = models.OneToOneField(
        "runs.Run", null=True, blank=True, on_delete=models.PROTECT, related_name="batch_source"
    )
    samples = models.JSONField(default=list, blank=True)  # run ids of the batch's samples
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["batch_id", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["batch", "position"], name="batch_source_unique_position"
            ),
        ]

    def __str__(self) -> str:
        return f"row {self.position} of batch {self.batch_id}: run {self.source_id}"
