"""rewind_bench's import figures (issue 18): a tracker log of 10,000 steps imports in the
memory a log of 1,000 steps needs: the log is read a line at a time and written in batches."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from runs.bench.measure import figure, peak_memory
from runs.engine.imports.service import import_path
from runs.models import Run

SMALL, LARGE = 1_000, 10_000


def write_log(root: Path, app_id: str, steps: int) -> Path:
    """A counter app's tracker directory of ``steps`` steps, in the format Burr's
    ``LocalTrackingClient`` writes: a begin and end entry, a span and an attribute a step."""
    app = root / "bench_import" / app_id
    app.mkdir(parents=True)
    (app / "metadata.json").write_text(json.dumps({"type": "application_metadata"}))
    action = {"type": "action", "name": "counter", "reads": ["counter"],
              "writes": ["counter", "note"]}  # fmt: skip
    (app / "graph.json").write_text(json.dumps({
        "type": "application", "entrypoint": "counter", "actions": [action],
        "transitions": [{"type": "transition", "from_": "counter", "to": "counter",
                         "condition": "default"}],
    }))  # fmt: skip
    with open(app / "log.jsonl", "w") as log:
        for i in range(steps):
            at = f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}.000000"
            state = {"counter": i + 1, "note": f"step {i} of a long loop", "__SEQUENCE_ID": i,
                     "__PRIOR_STEP": "counter"}  # fmt: skip
            for entry in (
                {"type": "begin_entry", "start_time": at, "action": "counter",
                 "inputs": {}, "sequence_id": i},
                {"type": "begin_span", "start_time": at, "action_sequence_id": i,
                 "span_id": f"{i}:0.0", "span_name": "count", "parent_span_id": f"{i}:0",
                 "span_dependencies": []},
                {"type": "attribute", "key": "counter", "action_sequence_id": i,
                 "span_id": f"{i}:0.0", "value": i + 1, "tags": {}},
                {"type": "end_span", "end_time": at, "action_sequence_id": i,
                 "span_id": f"{i}:0.0"},
                {"type": "end_entry", "end_time": at, "action": "counter",
                 "result": None, "exception": None, "state": state, "sequence_id": i},
            ):  # fmt: skip
                log.write(json.dumps(entry) + "\n")
    return app


def import_figures() -> list[dict[str, Any]]:
    """Peak memory importing 10,000 steps ÷ importing 1,000 (goal ≤ 1.5×: memory does not
    grow with the log)."""
    with tempfile.TemporaryDirectory(prefix="rewind-bench-import-") as tmp:
        small = write_log(Path(tmp) / "small", f"small-{time.time_ns()}", SMALL)
        large = write_log(Path(tmp) / "large", f"large-{time.time_ns()}", LARGE)
        small_peak = peak_memory(lambda: import_path(small))
        large_peak = peak_memory(lambda: import_path(large))
        imported = Run.objects.get(imported_from__app_id=large.name)
        if imported.nodes.count() != LARGE:
            raise RuntimeError(f"bench: the {LARGE}-step import has {imported.nodes.count()}")
    return [
        figure(
            f"import: peak memory of a {LARGE:,}-step tracker log ÷ a {SMALL:,}-step one",
            large_peak,
            small_peak,
            1.5,
        )  # fmt: skip
    ]
