from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from runs.engine.analysis.diff import diff_runs
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.forking.replays import create_replay
from runs.lib.hashing import content_sha256, sha256_bytes
from runs.management.base import RewindCommand
from runs.models import Node, Run

FORK_STEP = 2  # "node 3", counted from 1: analyse in the research pipeline
FORK_FIELD = "args.cost_scale"
FORK_VALUE = "3"


class Command(RewindCommand):
    help = (
        "End-to-end self-check on the research pipeline: run, fork at node 3, diff, unchanged "
        "replay. Prints one line per check; exits 0 only if every check holds. The runs it "
        "makes stay in the database for inspection."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--pipeline", default="research", help="pipeline to check")

    def record(self, ok: bool, label: str, detail: str = "") -> bool:
        mark = self.style.SUCCESS("PASS") if ok else self.style.ERROR("FAIL")
        self.stdout.write(f"{mark}  {label}" + (f"  ({detail})" if detail else ""))
        self.results.append(ok)
        return ok

    def handle(self, *args: Any, **options: Any) -> None:
        self.results: list[bool] = []
        run = execute_run(create_run(options["pipeline"]).pk)
        nodes = list(run.nodes.order_by("sequence_id"))
        self.record(run.status == Run.Status.COMPLETED, f"run {run.pk} completed", run.error)
        self.record(len(nodes) >= 7, "run has at least 7 nodes", f"{len(nodes)} nodes")
        self.record(
            all(n.output_sha256 and n.output_sha256 == content_sha256(n.output) for n in nodes),
            "every node output is hashed and the hash matches its content",
        )
        artifact = Path(run.artifact_path) if run.artifact_path else None
        on_disk = sha256_bytes(artifact.read_bytes()) if artifact and artifact.is_file() else None
        self.record(
            on_disk is not None and on_disk == run.artifact_sha256,
            "artifact file exists and its sha256 matches the record",
            str(artifact),
        )
        if run.status != Run.Status.COMPLETED:
            raise CommandError(f"run {run.pk} {run.status}: {run.error}")
        if len(nodes) <= FORK_STEP:
            raise CommandError("the pipeline is too short to fork at node 3")
        target = nodes[FORK_STEP]
        fork = execute_run(create_fork(run, str(target.sequence_id), FORK_FIELD, FORK_VALUE).pk)
        fork_nodes = list(fork.nodes.order_by("sequence_id"))
        inherited = [n for n in fork_nodes if n.cache_source == Node.CacheSource.INHERITED]
        self.record(
            fork.status == Run.Status.COMPLETED, f"fork {fork.pk} at node 3 completed", fork.error
        )
        self.record(
            [n.sequence_id for n in inherited] == [n.sequence_id for n in nodes[:FORK_STEP]]
            and all(n.src_run_id == run.pk for n in inherited),
            "nodes 1-2 inherited from the parent, with provenance",
        )
        self.record(
            len(fork_nodes) == len(nodes)
            and all(n.cache_source != Node.CacheSource.INHERITED for n in fork_nodes[FORK_STEP:]),
            "nodes 3+ re-executed",
        )
        diff = diff_runs(run, fork)
        first = diff.first_divergence or {}
        paths = [f["path"] for f in first.get("fields", [])]
        self.record(
            first.get("node") == target.name and any("cost_scale" in p for p in paths),
            "diff names node 3 and the changed field",
            f"{first.get('node')}: {', '.join(paths[:3])}…" if paths else "no divergence",
        )
        self.record(
            bool(fork.artifact_sha256) and fork.artifact_sha256 != run.artifact_sha256,
            "the fork's artifact differs from the parent's",
        )
        replay = execute_run(create_replay(run).pk)
        executed = [n for n in replay.nodes.all() if n.cache_source != Node.CacheSource.INHERITED]
        hits = [n for n in executed if n.cache_source != Node.CacheSource.LIVE]
        self.record(
            replay.status == Run.Status.COMPLETED and len(hits) == len(executed) == len(nodes),
            "unchanged replay: 100% cache hits",
            f"{len(hits)}/{len(executed)}",
        )
        tokens = sum(n.total_tokens for n in executed)
        self.record(tokens == 0, "unchanged replay: 0 tokens", f"{tokens} tokens")
        self.record(
            bool(run.trajectory_sha256) and replay.trajectory_sha256 == run.trajectory_sha256,
            "unchanged replay: identical trajectory hash",
        )
        same_bytes = (
            bool(replay.artifact_path)
            and Path(replay.artifact_path).read_bytes() == artifact.read_bytes()
        )
        self.record(same_bytes, "unchanged replay: byte-identical artifact")
        passed = sum(self.results)
        self.stdout.write(
            f"{passed}/{len(self.results)} checks passed (runs {run.pk}, {fork.pk}, {replay.pk})"
        )
        if passed != len(self.results):
            raise CommandError(f"{len(self.results) - passed} check(s) failed")
