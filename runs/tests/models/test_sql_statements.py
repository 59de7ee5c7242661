"""The statements a run sends every time, written rather than built by the ORM per call
(``runs.models.sql`` and the managers that use it): each must do exactly what the ORM
statement it stands for does, on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest
from django.db import connection
from django.utils import timezone

from runs.bench.replays import Statements
from runs.engine.calls.cache import count_hits
from runs.models import Blob, BurrState, Edge, LLMCacheEntry, Node, Run, ToolCacheEntry
from runs.models.sql import _statement, insert_all, insert_new, update_where

pytestmark = pytest.mark.django_db


def test_insert_all_writes_what_bulk_create_writes_in_one_statement_keys_in_order(
    run_row, node_row
):
    run = run_row()
    steps = [
        Node(
            run=run,
            sequence_id=i,
            name=f"step{i}",
            kind=Node.Kind.TOOL,
            status=Node.Status.COMPLETED,
            output={"n": i, "text": "é" * i},
            output_sha256=f"{i:064x}",
            cost_usd=Decimal("0.000125") if i else None,
            cache_entries=[f"tool:{i}"] if i % 2 else [],
            src_run=run,
            src_sequence_id=i,
            latency_ms=1.5 * i,
        )  # fmt: skip
        for i in range(5)
    ]
    expected = [
        Node(**{f.attname: getattr(node, f.attname) for f in Node._meta.concrete_fields})
        for node in steps
    ]
    Blob.objects.store({k: v for node in steps for k, v in node.take_new_blobs().items()})
    with Statements() as sent:
        insert_all(steps)
    assert len(sent.data) == 1, sent.data
    if connection.vendor == "postgresql":
        # One array a column: as many parameters as columns, whatever the rows.
        assert "UNNEST(" in sent.data[0]
        assert sent.data[0].count("%s") == len(_statement(Node, "postgresql")[1])
    assert [n.pk for n in steps] == sorted(n.pk for n in steps)
    stored = {n.pk: n for n in Node.objects.filter(run=run)}
    assert set(stored) == {n.pk for n in steps}
    for node, want in zip(steps, expected, strict=True):
        row = stored[node.pk]
        assert row.sequence_id == want.sequence_id and row.name == want.name
        assert row.output == {"n": want.sequence_id, "text": "é" * want.sequence_id}
        assert row.cost_usd == want.cost_usd
        assert row.cache_entries == want.cache_entries
        assert row.latency_ms == want.latency_ms
        assert row.created_at is not None


def test_insert_all_of_one_row_and_of_none(run_row):
    run = run_row()
    insert_all([])
    edge = Edge(run=run, sequence_id=1, from_node="a", to_node="b", condition="")
    insert_all([edge])
    assert Edge.objects.get(pk=edge.pk).to_node == "b"


def test_update_where_changes_only_the_rows_it_names_and_never_those_it_excludes(run_row):
    running = run_row(status=Run.Status.RUNNING)
    cancelled = run_row(status=Run.Status.CANCELLED)
    other = run_row(status=Run.Status.RUNNING)
    now = timezone.now()
    values = {"status": Run.Status.COMPLETED, "finished_at": now, "warnings": ["w"]}
    unless = {"status": Run.Status.CANCELLED}

    assert update_where(Run, values, {"id": running.pk}, unless=unless) == 1
    assert update_where(Run, values, {"id": cancelled.pk}, unless=unless) == 0

    running.refresh_from_db()
    cancelled.refresh_from_db()
    other.refresh_from_db()
    assert (running.status, running.finished_at, running.warnings) == ("completed", now, ["w"])
    assert cancelled.status == Run.Status.CANCELLED and cancelled.finished_at is None
    assert other.status == Run.Status.RUNNING


def test_claim_takes_a_queued_run_once(run_row):
    run = run_row(status=Run.Status.QUEUED)
    assert Run.objects.claim(run.pk) is True
    assert Run.objects.claim(run.pk) is False
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING
    assert run.started_at is not None and run.started_at == run.heartbeat_at


def test_finish_returns_what_it_wrote_and_none_for_a_cancelled_run(run_row):
    run = run_row(status=Run.Status.RUNNING)
    written = Run.objects.finish(run.pk, Run.Status.COMPLETED, trajectory_sha256="t" * 64)
    assert written is not None and written["status"] == Run.Status.COMPLETED
    run.refresh_from_db()
    assert run.finished_at == written["finished_at"] and run.trajectory_sha256 == "t" * 64

    cancelled = run_row(status=Run.Status.CANCELLED)
    assert Run.objects.finish(cancelled.pk, Run.Status.COMPLETED) is None
    cancelled.refresh_from_db()
    assert cancelled.status == Run.Status.CANCELLED


def test_with_parent_loads_the_run_and_its_parent_in_one_query(run_row, django_assert_num_queries):
    root = run_row(override=None)
    fork = run_row(parent=root, fork_sequence_id=2, override={"node": "a", "field": "f"})
    with django_assert_num_queries(1):
        loaded = Run.objects.with_parent(fork.pk)
        assert loaded.parent.pk == root.pk
        assert loaded.parent.inputs == root.inputs
    assert loaded.override == {"node": "a", "field": "f"}
    assert loaded.provider == fork.provider and loaded.created_at == fork.created_at
    with django_assert_num_queries(1):
        alone = Run.objects.with_parent(root.pk)
        assert alone.parent is None
    with pytest.raises(Run.DoesNotExist):
        Run.objects.with_parent(root.pk + fork.pk + 1000)


def test_snapshot_hashes_are_the_app_s_state_blobs(research_run):
    expected = BurrState.objects.filter(partition_key="", app_id=str(research_run.pk))
    hashes = BurrState.objects.snapshot_hashes("", str(research_run.pk))
    assert sorted(hashes) == sorted(expected.values_list("state_blob_id", flat=True))
    assert len(hashes) == research_run.nodes.count() > 0
    assert BurrState.objects.snapshot_hashes("", "no such app") == []


def test_count_hits_adds_each_entry_s_hits_and_stamps_them(research_run):
    llm = list(LLMCacheEntry.objects.order_by("pk")[:2])
    tool = ToolCacheEntry.objects.order_by("pk").first()
    before = {e.pk: e.hit_count for e in [*llm, tool]}
    untouched = LLMCacheEntry.objects.exclude(pk__in=[e.pk for e in llm]).first()
    count_hits(Counter({f"llm:{llm[0].pk}": 2, f"llm:{llm[1].pk}": 1, f"tool:{tool.pk}": 3}))
    assert LLMCacheEntry.objects.get(pk=llm[0].pk).hit_count == before[llm[0].pk] + 2
    assert LLMCacheEntry.objects.get(pk=llm[1].pk).hit_count == before[llm[1].pk] + 1
    stamped = ToolCacheEntry.objects.get(pk=tool.pk)
    assert stamped.hit_count == before[tool.pk] + 3 and stamped.last_hit_at is not None
    if untouched is not None:
        assert LLMCacheEntry.objects.get(pk=untouched.pk).hit_count == untouched.hit_count


def test_insert_new_adds_the_rows_not_there_and_keeps_those_that_are():
    Blob.objects.store({"a" * 64: '"old"'})
    with Statements() as sent:
        insert_new([Blob(sha256="a" * 64, body='"new"'), Blob(sha256="b" * 64, body='"b"')])
    assert len(sent.data) == 1, sent.data
    assert Blob.objects.get(pk="a" * 64).body == '"old"'  # never rewritten
    assert Blob.objects.get(pk="b" * 64).body == '"b"'
    insert_new([])


def test_keep_all_stores_each_answer_once_in_two_statements_and_names_the_entry_that_holds_it():
    from runs.engine.calls.cache import keep_all, put_llm, put_tool

    def llm(key: str, text: str, occurrence: int = 0) -> dict:
        return {"key": key, "occurrence": occurrence, "node_name": "ask", "provider": "simulator",
                "request": {"q": key}, "response": {"text": text}, "usage": {"total_tokens": 3}}  # fmt: skip

    known = put_llm(**llm("k1", "old answer"))
    known_tool = put_tool(key="t1", tool="GET /x", args={"q": 1}, result={"r": 1})
    rows = [
        llm("k1", "old answer"),  # kept before: its entry
        llm("k1", "a new answer"),  # the same key, another answer: an entry of its own
        llm("k2", "first"),
        llm("k2", "first"),  # the same answer twice in one batch: one entry
        llm("k2", "first", occurrence=1),  # another occurrence: another entry
    ]
    tools = [
        {"key": "t1", "tool": "GET /x", "args": {"q": 1}, "result": {"r": 1}},
        {"key": "t2", "tool": "GET /y", "args": {"q": 2}, "result": {"r": 2}},
    ]
    before = LLMCacheEntry.objects.count()
    with Statements() as sent:
        kept = keep_all(rows, tools)
    # Per kind: one INSERT, then one SELECT for the answers that were already there.
    assert len(sent.data) == 4, sent.data
    assert [sql.split()[0] for sql in sent.data] == ["INSERT", "SELECT", "INSERT", "SELECT"]
    assert LLMCacheEntry.objects.count() == before + 3
    assert kept[0].pk == known.pk and kept[5].pk == known_tool.pk
    assert kept[2].pk == kept[3].pk != kept[4].pk
    assert len({kept[0].pk, kept[1].pk, kept[2].pk, kept[4].pk}) == 4
    for entry, fields in zip(kept, [*rows, *tools], strict=True):
        stored = type(entry).objects.get(pk=entry.pk)
        assert stored.key == fields["key"] and stored.occurrence == fields.get("occurrence", 0)
        value = fields["response"] if "response" in fields else fields["result"]
        assert (stored.response if "response" in fields else stored.result) == value
    with Statements() as sent:
        assert keep_all([], []) == []
    assert sent.data == []
