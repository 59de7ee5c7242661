"""Content-addressed storage and the per-step write path (issue 10, deliverables 1 and 2).

States, inputs, outputs and prompts are stored once by the sha256 of their stored text (JSON in
the app's dict order, ``runs.models.stored_text``; ``runs.models.Blob``); an unchanged replay adds only its own rows; a cached step is one
transaction of three statements; the migration that moved existing rows keeps every value and
every hash. Counts, never timings.
"""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext

from runs.bench.replays import step_statements
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.forking.replays import create_replay
from runs.lib.hashing import canonical_json, content_sha256, sha256_text, trajectory_sha256
from runs.models import Blob, BurrState, Node, Run, stored_text

pytestmark = pytest.mark.django_db


def state_blobs(run: Run) -> list[str]:
    rows = BurrState.objects.filter(app_id=str(run.pk)).order_by("sequence_id")
    return list(rows.values_list("state_blob_id", flat=True))


def value_blobs(run: Run) -> list[tuple]:
    rows = run.nodes.order_by("sequence_id")
    return list(rows.values_list("inputs_blob_id", "output_blob_id", "prompt_blob_id"))


def blob(value) -> dict[str, str]:
    text = canonical_json(value)
    return {Blob.key(text): text}


def test_a_blob_is_keyed_by_the_sha256_of_its_canonical_json_and_stored_once():
    value = {"b": [1, 1.0, True, None], "a": "é"}
    ((key, text),) = blob(value).items()
    assert text == '{"a":"é","b":[1,1.0,true,null]}'
    assert key == sha256_text(text) == content_sha256(value)

    Blob.objects.store({**blob(value), **blob({"a": "é", "b": [1, 1.0, True, None]})})
    Blob.objects.store(blob(value))  # again: kept, not duplicated, no error
    assert Blob.objects.get(pk=key).body == text
    assert Blob.objects.count() == 1


def test_storing_what_is_known_to_be_stored_is_no_statement_at_all():
    known = set(blob([1]))
    Blob.objects.store(blob([1]))
    with CaptureQueriesContext(connection) as queries:
        Blob.objects.store(blob([1]), known=known)
    assert queries.captured_queries == []
    with CaptureQueriesContext(connection) as queries:
        stored = Blob.objects.store({**blob([2]), **blob([1]), **blob([3])}, known=known)
    assert len(queries.captured_queries) == 1  # one insert for both new ones
    assert set(stored) == {*blob([2]), *blob([3])}
    assert known == set(blob([1]))  # the caller adds them once its transaction is done


def test_an_assigned_value_reads_back_before_and_after_saving(research_run):
    step = research_run.nodes.first()
    step.output = {"new": [1.5, "ü"]}
    assert step.output == {"new": [1.5, "ü"]}
    assert step.output_blob_id == content_sha256({"new": [1.5, "ü"]})
    step.save()
    assert Node.objects.get(pk=step.pk).output == {"new": [1.5, "ü"]}
    step.output = None
    step.save()
    assert Node.objects.get(pk=step.pk).output is None


def test_a_step_reads_its_values_back_as_written_each_blob_keyed_by_its_own_text(
    research_run,
):
    # A blob holds a value in the app's dict order; the output hash is its canonical JSON's.
    for node in Node.objects.filter(run=research_run):
        assert node.output_sha256 == content_sha256(node.output)
        assert node.output_blob_id == Blob.key(stored_text(node.output))
        assert node.inputs_blob_id == Blob.key(stored_text(node.inputs))
        if node.kind == "llm":
            assert node.prompt_blob_id == Blob.key(stored_text(node.prompt))
            assert node.prompt[0]["role"] == "system"
    for row in BurrState.objects.filter(app_id=str(research_run.pk)):
        assert row.state_blob_id == sha256_text(row.state)
        assert json.loads(row.state)  # Burr's serialised state, as text


def test_an_unchanged_replay_adds_no_blob_and_shares_its_parents(research_run):
    before = Blob.objects.count()
    replay = execute_run(create_replay(research_run).pk)

    assert replay.trajectory_sha256 == research_run.trajectory_sha256
    assert Blob.objects.count() == before
    assert state_blobs(replay) == state_blobs(research_run)
    assert value_blobs(replay) == value_blobs(research_run)


def test_a_fork_stores_only_the_values_that_changed(research_run):
    before = set(Blob.objects.values_list("pk", flat=True))
    fork = execute_run(create_fork(research_run, "analyse", "args.cost_scale", "2.5").pk)
    added = set(Blob.objects.values_list("pk", flat=True)) - before

    assert fork.status == Run.Status.COMPLETED, fork.error
    inherited = fork.nodes.filter(cache_source=Node.CacheSource.INHERITED)
    assert inherited.exists()
    for step in inherited:  # inherited steps point at the very same blobs
        source = research_run.nodes.get(sequence_id=step.sequence_id)
        assert (step.inputs_blob_id, step.output_blob_id, step.prompt_blob_id) == (
            source.inputs_blob_id,
            source.output_blob_id,
            source.prompt_blob_id,
        )
    changed = fork.nodes.get(name="analyse")
    assert changed.output_blob_id in added
    assert changed.output_blob_id not in set(
        research_run.nodes.values_list("output_blob", flat=True)
    )
    # Nothing the fork stored was there already.
    assert added.isdisjoint(before)


def test_cached_steps_are_written_together_with_no_cache_read(rewind_settings):
    """A replay answered whole by the cache holds its steps and writes them together (issue 19:
    a fully cached replay in a few transactions): never more than three rows a step, far fewer
    commits than steps, and no cache entry read step by step."""
    source = execute_run(create_run("loop", {}).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    replay = create_replay(source)
    with CaptureQueriesContext(connection) as queries:
        replay = execute_run(replay.pk)
    assert replay.trajectory_sha256 == source.trajectory_sha256

    sql = [q["sql"] for q in queries.captured_queries]
    steps = replay.nodes.count()
    assert steps >= 20
    counted = step_statements(sql)
    # Held steps go in by the hundred (or every half second on a slow machine), each kind of
    # row in one multi-row INSERT: a handful of commits, not one a step.
    assert counted["commits"] <= steps // 5
    assert counted["statements"] <= 3 * steps - 1
    writes = [t.split('"')[1] for t in sql if t.startswith("INSERT INTO")]
    assert set(writes) == {"runs_burrstate", "runs_node", "runs_edge"}
    assert len(writes) < steps  # multi-row INSERTs, not a statement a row
    # The answers pinned by the source are loaded with the run, not read step by step.
    cache_reads = [t for t in sql if t.startswith("SELECT") and "cacheentry" in t]
    assert len(cache_reads) <= 2
    # A bounded number of statements around the steps, whatever the run's length.
    assert counted["fixed"] <= 25


def test_deferring_a_value_leaves_its_join_out_and_it_still_reads(research_run):
    with CaptureQueriesContext(connection) as queries:
        steps = list(research_run.nodes.defer("inputs", "prompt").order_by("sequence_id"))
        outputs = [s.output for s in steps]
    assert len(queries.captured_queries) == 1
    assert 'JOIN "runs_blob"' in queries.captured_queries[0]["sql"]
    assert outputs[0] is not None
    with CaptureQueriesContext(connection) as queries:
        assert steps[0].inputs is not None  # deferred: one query to read
    assert len(queries.captured_queries) == 1


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_every_value_into_blobs_and_keeps_every_hash():
    """Rows written before content-addressed storage read the same after it, and back."""
    executor = MigrationExecutor(connection)
    before_blobs = [("runs", "0007_live_notify")]
    latest = executor.loader.graph.leaf_nodes("runs")
    executor.migrate(before_blobs)
    try:
        old = MigrationExecutor(connection).loader.project_state(before_blobs).apps
        OldRun, OldNode, OldState = (
            old.get_model("runs", name) for name in ("Run", "Node", "BurrState")
        )
        run = OldRun.objects.create(pipeline="research", status="completed")
        outputs = [{"summary": "ünïcode", "n": 1.0}, {"flag": True, "items": [1, 2]}, None]
        for seq, output in enumerate(outputs):
            OldNode.objects.create(
                run=run,
                sequence_id=seq,
                name=f"step{seq}",
                kind="llm",
                status="completed" if output is not None else "failed",
                inputs={"reads": {"q": "why?"}, "seq": seq},
                output=output,
                output_sha256=content_sha256(output) if output is not None else "",
                prompt=[{"role": "system", "content": "be brief"}] if seq == 0 else None,
                cache_source="live",
                src_run=run,
                src_sequence_id=seq,
            )
            OldState.objects.create(
                app_id=str(run.pk),
                sequence_id=seq,
                position=f"step{seq}",
                status="completed",
                state=canonical_json({"q": "why?", "seq": seq, "__SEQUENCE_ID": seq}),
            )
        hashes = [content_sha256(o) if o is not None else "" for o in outputs]
        run.trajectory_sha256 = trajectory_sha256(hashes)
        run.save()

        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(latest)

        moved = Run.objects.get(pk=run.pk)
        steps = list(moved.nodes.order_by("sequence_id"))
        assert [s.output for s in steps] == outputs
        assert [s.inputs for s in steps] == [{"reads": {"q": "why?"}, "seq": i} for i in range(3)]
        assert steps[0].prompt == [{"role": "system", "content": "be brief"}]
        assert steps[1].prompt is None and steps[2].output_blob_id is None
        assert [s.output_sha256 for s in steps] == hashes
        assert [s.output_blob_id for s in steps[:2]] == hashes[:2]
        assert moved.trajectory_sha256 == trajectory_sha256(s.output_sha256 for s in steps)
        states = BurrState.objects.filter(app_id=str(run.pk)).order_by("sequence_id")
        assert [json.loads(s.state)["seq"] for s in states] == [0, 1, 2]

        # And back: the inline columns get their values again.
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(before_blobs)
        old = MigrationExecutor(connection).loader.project_state(before_blobs).apps
        back = old.get_model("runs", "Node").objects.filter(run_id=run.pk).order_by("sequence_id")
        assert [n.output for n in back] == outputs
        state_model = old.get_model("runs", "BurrState")
        texts = state_model.objects.filter(app_id=str(run.pk)).order_by("sequence_id")
        assert [json.loads(s.state)["seq"] for s in texts] == [0, 1, 2]
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(latest)


def test_only_loads_the_values_it_names_with_their_join_and_no_other(research_run):
    with CaptureQueriesContext(connection) as queries:
        steps = list(research_run.nodes.only("sequence_id", "name", "output"))
        outputs = [s.output for s in steps]
    assert len(queries.captured_queries) == 1
    sql = queries.captured_queries[0]["sql"]
    assert sql.count('JOIN "runs_blob"') == 1 and "inputs_blob" not in sql
    assert outputs == [s.output for s in research_run.nodes.all()]
    bare = list(research_run.nodes.only("sequence_id", "name"))
    assert len(bare) == len(steps)


def test_a_step_whose_transaction_failed_leaves_no_hash_counted_as_stored(
    rewind_settings, monkeypatch
):
    """What a run counts as stored (and so never stores again) is stored: a step that rolled
    back must not leave its blobs' hashes behind for a later step to skip."""
    from runs.engine.execution import recorder
    from runs.engine.execution import runner as execution

    contexts = []
    real_context, real_insert = execution._context, recorder.insert_all

    def keep_context(*args, **kwargs):
        contexts.append(real_context(*args, **kwargs))
        return contexts[-1]

    def failing_insert(objs):
        if any(isinstance(obj, Node) and obj.sequence_id == 3 for obj in objs):
            raise RuntimeError("disk full")
        return real_insert(objs)

    monkeypatch.setattr(execution, "_context", keep_context)
    monkeypatch.setattr(recorder, "insert_all", failing_insert)
    run = execute_run(create_run("loop", {}).pk)

    assert run.status == Run.Status.FAILED
    known = contexts[-1].known_blobs
    assert len(known) >= 3  # the steps before it stored theirs
    assert set(Blob.objects.filter(pk__in=known).values_list("pk", flat=True)) == known


def test_values_deferred_then_undeferred_come_back_with_their_joins(research_run):
    steps = research_run.nodes.defer("output").defer(None)
    with CaptureQueriesContext(connection) as queries:
        outputs = [s.output for s in steps]
    assert len(queries.captured_queries) == 1 and all(o is not None for o in outputs)
    bare = research_run.nodes.select_related(None).only("sequence_id", "output")
    with CaptureQueriesContext(connection) as queries:
        assert [s.output for s in bare] == outputs
    assert len(queries.captured_queries) == 1


def test_refreshing_a_step_reads_its_stored_values_again(research_run):
    step = research_run.nodes.first()
    assert step.output is not None
    Node.objects.filter(pk=step.pk).update(output_blob=None, output_sha256="")
    step.refresh_from_db()
    assert step.output is None


@pytest.mark.django_db(transaction=True)
def test_rows_written_between_the_fill_and_the_drop_keep_their_values():
    """A worker still on the previous version may write while 0009 runs: 0010 fills those
    rows before it drops the inline columns."""
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes("runs")
    filled = [("runs", "0009_fill_blobs")]
    executor.migrate(filled)
    try:
        old = MigrationExecutor(connection).loader.project_state(filled).apps
        run = old.get_model("runs", "Run").objects.create(pipeline="research", status="completed")
        old.get_model("runs", "Node").objects.create(
            run=run,
            sequence_id=0,
            name="late",
            kind="tool",
            status="completed",
            inputs={"late": True},
            output={"answer": 42},
            output_sha256=content_sha256({"answer": 42}),
            cache_source="live",
            src_run=run,
            src_sequence_id=0,
        )
        old.get_model("runs", "BurrState").objects.create(
            app_id=str(run.pk), sequence_id=0, position="late", status="completed", state='{"n":1}'
        )
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(latest)

        step = Node.objects.get(run_id=run.pk)
        assert (step.inputs, step.output) == ({"late": True}, {"answer": 42})
        assert BurrState.objects.get(app_id=str(run.pk)).state == '{"n":1}'
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(latest)
