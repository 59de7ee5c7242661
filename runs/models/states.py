"""Burr's persister table: ``BurrState`` (the snapshot a ``Blob``)."""

from __future__ import annotations

from django.db import connections, models

from runs.models.blobs import Blob, StoresBlobs, StoresBlobsQuerySet


class BurrStateQuerySet(StoresBlobsQuerySet):
    VALUES = {"state": "state_blob"}

    def snapshot_hashes(self, partition_key: str, app_id: str) -> list[str]:
        """The blob hashes of an app's state snapshots: the statement
        ``filter(...).values_list("state_blob_id", flat=True)`` sends, sent as written here
        (every executed fork reads it; building it took eight times as long as running it)."""
        connection = connections[self.db]
        quote = connection.ops.quote_name
        sql = "SELECT {} FROM {} WHERE {} = %s AND {} = %s".format(
            quote("state_blob_id"), quote(BurrState._meta.db_table), quote("partition_key"),
            quote("app_id"),
        )  # fmt: skip
        with connection.cursor() as cursor:
            cursor.execute(sql, [partition_key, app_id])
            return [sha for (sha,) in cursor.fetchall()]


class BurrStateManager(models.Manager.from_queryset(BurrStateQuerySet)):
    def get_queryset(self) -> BurrStateQuerySet:
        return super().get_queryset().select_related("state_blob")


class BurrState(StoresBlobs):
    """Burr's persister table, written through the ORM by ``DjangoPersister``. The snapshot
    itself is a ``Blob`` (Burr's serialised state as ``stored_text`` writes it: the app's dict
    order), shared by every row that holds the same state — an unchanged replay's rows point at its parent's snapshots."""

    partition_key = models.CharField(max_length=100, default="")
    app_id = models.CharField(max_length=100)
    sequence_id = models.IntegerField()
    position = models.CharField(max_length=100)
    status = models.CharField(max_length=10)
    # Indexed in Meta (``burr_state_blob``): a prune deleting a blob checks this key.
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
        indexes = [
            models.Index(fields=["partition_key", "app_id", "-sequence_id"]),
            models.Index(fields=["state_blob"], name="burr_state_blob"),
        ]

    def __str__(self) -> str:
        return f"app {self.app_id} step {self.sequence_id} ({self.position}, {self.status})"

    @property
    def state(self) -> str:
        """The snapshot: Burr's serialised state as JSON text, in the app's dict order
        (``stored_text``; a row stored before that: canonical JSON)."""
        values = self.__dict__.setdefault("_stored_values", {})
        if "state" not in values:
            values["state"] = self.state_blob.body
        return values["state"]

    @state.setter
    def state(self, text: str) -> None:
        self.__dict__.setdefault("_stored_values", {})["state"] = text
        self.state_blob_id = self.keep_blob(text)
