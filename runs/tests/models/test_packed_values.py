"""Blob bodies and cache entries' requests and answers are stored compressed when that pays
(issue 33, storage): the column holds the text's zlib stream or, for a short or
incompressible one, its UTF-8 bytes; every way of reading it — the model, ``values_list``
through a join, an annotation, a fixture — gives the value back; the migration packs the
values already there and unpacks them on the way back. Bytes are read straight from the
column, not through the field under test."""

from __future__ import annotations

import io
import json
import secrets
import zlib

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from runs.lib.hashing import canonical_json
from runs.models import Blob, LLMCacheEntry, Node, Run, ToolCacheEntry
from runs.models.packed import PACK_FROM, pack, unpack

pytestmark = pytest.mark.django_db

LONG = {
    "messages": [
        {"role": "user", "content": f'Ünïcode question {i}: what does \\n mean in "JSON"?'}
        for i in range(40)
    ]
}


def stored(sha, column: str = "body", table: str = "runs_blob", key: str = "sha256") -> bytes:
    """The column's bytes as the database holds them."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM {table} WHERE {key} = %s", [sha])
        return bytes(cursor.fetchone()[0])


def keep(value) -> tuple[str, str]:
    text = canonical_json(value)
    sha = Blob.key(text)
    Blob.objects.store({sha: text})
    return sha, text


def test_a_long_body_is_stored_as_its_zlib_stream_and_reads_back_as_text():
    sha, text = keep(LONG)
    column = stored(sha)
    assert column[:1] == b"x"
    assert zlib.decompress(column).decode() == text
    assert len(column) * 5 < len(text.encode())  # a chat history compresses well
    assert Blob.objects.get(pk=sha).body == text
    assert Blob.objects.values_list("body", flat=True).get(pk=sha) == text


def test_a_short_body_is_stored_as_its_text():
    short_sha, short = keep({"n": 1, "why": "ünïcode"})
    assert len(short.encode()) < PACK_FROM
    assert stored(short_sha) == short.encode()
    assert Blob.objects.get(pk=short_sha).body == short


def test_a_body_compression_barely_shrinks_is_stored_as_its_text():
    text = json.dumps(secrets.token_urlsafe(120))  # 162 random bytes of 64 kinds
    assert len(zlib.compress(text.encode())) > len(text) * 7 / 8
    assert pack(text) == text.encode()
    assert unpack(pack(text)) == text


def test_bodies_read_through_joins_and_annotations_are_text():
    from runs.views.listing import _source_value_json

    run = Run.objects.create(pipeline="research", status="completed")
    step = Node(run=run, sequence_id=0, name="plan", kind="llm", status="completed")
    step.src_run, step.src_sequence_id = run, 0
    step.output = LONG
    step.save()
    joined = Node.objects.filter(pk=step.pk).values_list("output_blob__body", flat=True).get()
    assert json.loads(joined) == LONG
    assert Node.objects.get(pk=step.pk).output == LONG
    # The runs list reads a fork's source value in the same SELECT, as an annotation.
    fork = Run.objects.create(
        pipeline="research",
        status="completed",
        parent=run,
        fork_node="plan",
        fork_sequence_id=0,
        override={"node": "plan", "field": "output", "value": "x" * 200},
    )
    from django.db.models import Value

    listed = (
        Run.objects.filter(pk=fork.pk)
        .annotate(override_chars=Value(10_000))
        .annotate(source_value_json=_source_value_json())
        .get()
    )
    assert json.loads(listed.source_value_json) == LONG


def test_a_fixture_holds_the_text_and_loads_back(tmp_path):
    sha, text = keep(LONG)
    out = io.StringIO()
    call_command("dumpdata", "runs.blob", stdout=out)
    rows = json.loads(out.getvalue())
    assert [r["fields"]["body"] for r in rows if r["pk"] == sha] == [text]
    Blob.objects.filter(pk=sha).delete()
    fixture = tmp_path / "blobs.json"
    fixture.write_text(json.dumps(rows))
    call_command("loaddata", str(fixture), verbosity=0)
    assert Blob.objects.get(pk=sha).body == text
    assert stored(sha)[:1] == b"x"


def llm_entry(**fields) -> LLMCacheEntry:
    return LLMCacheEntry.objects.create(
        key="k" * 64, node_name="plan", model_requested="m", **fields
    )


def test_a_cache_entrys_request_and_answer_are_packed_and_read_back_as_json():
    answer = {"content": "Ünïcode " * 60, "refusal": None}
    entry = llm_entry(request=LONG, response=answer, usage={"total_tokens": 3})
    tool = ToolCacheEntry.objects.create(
        key="t" * 64, tool="search", tool_version="1", args={"q": 1}, result=None
    )
    assert stored(entry.pk, "request", "runs_llmcacheentry", "id")[:1] == b"x"
    assert stored(entry.pk, "response", "runs_llmcacheentry", "id")[:1] == b"x"
    assert stored(tool.pk, "result", "runs_toolcacheentry", "id") == b"null"  # JSON null
    again = LLMCacheEntry.objects.get(pk=entry.pk)
    assert (again.request, again.response) == (LONG, answer)
    assert list(LLMCacheEntry.objects.filter(pk=entry.pk).values_list("response", flat=True)) == [
        answer
    ]
    assert ToolCacheEntry.objects.get(pk=tool.pk).result is None


@pytest.mark.django_db(transaction=True)
def test_the_migration_packs_the_bodies_there_and_unpacks_them_back():
    executor = MigrationExecutor(connection)
    before = [("runs", "0024_blob_reference_indexes")]
    latest = executor.loader.graph.leaf_nodes("runs")
    texts = {
        "a" * 64: canonical_json(LONG),
        "b" * 64: canonical_json({"n": 1}),
        "c" * 64: canonical_json({"path": "C:\\temp\\new", "quote": '"\\u00e9"'}),
    }
    executor.migrate(before)
    try:
        old = MigrationExecutor(connection).loader.project_state(before).apps
        OldBlob = old.get_model("runs", "Blob")
        OldBlob.objects.bulk_create(OldBlob(sha256=k, body=v) for k, v in texts.items())
        OldEntry = old.get_model("runs", "LLMCacheEntry")
        answer = {"content": 'a "quoted" \\ answer ' * 20}
        entry = OldEntry.objects.create(
            key="k" * 64, node_name="plan", model_requested="m", request=LONG, response=answer
        )
        OldTool = old.get_model("runs", "ToolCacheEntry")
        tool = OldTool.objects.create(
            key="t" * 64, tool="search", tool_version="1", args={}, result=[1, 1.0, True]
        )

        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(latest)
        assert {k: Blob.objects.get(pk=k).body for k in texts} == texts
        assert stored("a" * 64)[:1] == b"x"
        assert stored("c" * 64) == texts["c" * 64].encode()  # backslashes kept as they are
        moved = LLMCacheEntry.objects.get(pk=entry.pk)
        assert (moved.request, moved.response) == (LONG, answer)
        assert stored(entry.pk, "request", "runs_llmcacheentry", "id")[:1] == b"x"
        assert ToolCacheEntry.objects.get(pk=tool.pk).result == [1, 1.0, True]
        assert repr(ToolCacheEntry.objects.get(pk=tool.pk).result) == "[1, 1.0, True]"

        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(before)
        old = MigrationExecutor(connection).loader.project_state(before).apps
        back = old.get_model("runs", "Blob").objects.filter(pk__in=texts)
        assert {b.sha256: b.body for b in back} == texts
        entry_back = old.get_model("runs", "LLMCacheEntry").objects.get(pk=entry.pk)
        assert (entry_back.request, entry_back.response) == (LONG, answer)
        tool_back = old.get_model("runs", "ToolCacheEntry").objects.get(pk=tool.pk)
        assert repr(tool_back.result) == "[1, 1.0, True]"
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(latest)
