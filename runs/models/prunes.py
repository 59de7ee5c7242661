"""What a prune removed (``rewind_prune``, runs.engine.retention): one row per prune, shown on
the settings page and the runs list, so history that is gone is said to be gone."""

from __future__ import annotations

from django.db import models


class Prune(models.Model):
    """One prune: what it was asked (``older_than_days``, ``keep_outcome_failures``) and what
    it removed. A dry run is not recorded."""

    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    older_than_days = models.FloatField()
    cutoff = models.DateTimeField()  # runs created before this were eligible
    keep_outcome_failures = models.BooleanField(default=False)
    # Removed: runs (with their steps, edges and Burr state rows), batches and grids made of
    # them, cache entries and blobs no remaining run refers to.
    runs = models.PositiveIntegerField(default=0)
    lineages = models.PositiveIntegerField(default=0)
    steps = models.PositiveIntegerField(default=0)
    states = models.PositiveIntegerField(default=0)
    batches = models.PositiveIntegerField(default=0)
    grids = models.PositiveIntegerField(default=0)
    cache_entries = models.PositiveIntegerField(default=0)
    blobs = models.PositiveIntegerField(default=0)
    blob_bytes = models.PositiveBigIntegerField(default=0)
    # Lineages kept although old enough: a run in them failed an outcome (with
    # keep_outcome_failures), or a newer batch or grid refers to them.
    kept = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"prune {self.pk}: {self.runs} runs older than {self.older_than_days:g} days"
