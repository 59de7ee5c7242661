"""``rewind_bench``'s recording figures against the anchor a user would really pick (issue 33):
what a program that wants its runs *with their LLM calls* installs instead of Rewind — Burr's
``LocalTrackingClient`` plus OpenTelemetry's openai instrumentation
(``opentelemetry-instrumentation-openai-v2``), its spans and its content events (the prompts
and answers, ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=EVENT_ONLY``: util-genai 1.x
reads ``true`` as no content) through the SDK's batch processors to JSON-lines files.

The anchor is the ``bench`` extra (``pip install -e '.[bench]'``), never a dependency of the
product; without it the rows say so and hold no verdict. The export is checked before any
figure is given: every instrumented call a span, and the file of events holding the prompt.

The method is ``recording``'s: the ``nine`` app (nine actions, one openai 3.x chat call each)
against the simulator served on loopback by a process of its own, built and run to its end
bare, with the tracker, with the anchor and with ``rewind_hooks``, the modes taking turns; the
best try of each counts. Overhead per step = (best with − best bare) / 9. The instrumentation
patches the ``openai`` classes, so it is switched on for the anchor's tries only; what its
batch processors hold is exported after each of them (their thread's work, which the program
does not wait for: untimed, reported, and never left to fall into another mode's try).
Rewind's writer, by contrast, is waited for at the end of every ``run`` call, so its work is in
Rewind's time — unless the program asks ``rewind_hooks(..., wait=False)``: that fifth mode is
measured as the anchor is, its writer flushed after each try, untimed (what a crash can lose
then is in the README).

On a FAIL the bench prints where the program's thread spends Rewind's time (``profile``, also
in the row): a pass of its own over a few recorded runs, sampled by pyinstrument (the ``bench``
extra), the top entries by cumulative time. The sampler's own cost inflates every entry (2–3× on
this app): the shares are what to read, not the milliseconds.
"""

from __future__ import annotations

import io
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from burr.core import ApplicationBuilder
from django.db import connection

from runs.bench.capture import _served_apart
from runs.bench.measure import figure
from runs.bench.recording import _openai_at
from runs.engine.apps.burr import BurrApp
from runs.engine.apps.registry import get_pipeline
from runs.models import Run

GOALS = {"postgresql": 1.5}  # the ratio's goal by database vendor; 1 elsewhere (SQLite)
WARMUP = 2
LATENCY_S = 0.02  # the simulator's answer time in the reported row: a quick model's
PROFILED_RUNS = 5
MISSING = "anchor not installed: pip install -e '.[bench]'"
PROMPT = "Say one thing about topic 0."  # the nine app's first prompt, looked for in the export
CONTENT = {
    "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "EVENT_ONLY",
}


@contextmanager
def _environ(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class Anchor:
    """OpenTelemetry's openai instrumentation as a user sets it up: a tracer and a logger
    provider of their own, each with a batch processor exporting to a JSON-lines file."""

    def __init__(self, folder: str) -> None:
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import (
            BatchLogRecordProcessor,
            ConsoleLogRecordExporter,
        )
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

        self.spans = Path(folder) / "spans.jsonl"
        self.events = Path(folder) / "events.jsonl"
        self._files = [self.spans.open("w"), self.events.open("w")]
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(
            BatchSpanProcessor(
                ConsoleSpanExporter(
                    out=self._files[0], formatter=lambda span: span.to_json(indent=None) + "\n"
                )
            )
        )
        self.logger_provider = LoggerProvider()
        self.logger_provider.add_log_record_processor(
            BatchLogRecordProcessor(
                ConsoleLogRecordExporter(
                    out=self._files[1], formatter=lambda record: record.to_json(indent=None) + "\n"
                )
            )
        )
        self.instrumentor = OpenAIInstrumentor()

    def on(self) -> None:
        self.instrumentor.instrument(
            tracer_provider=self.tracer_provider,
            logger_provider=self.logger_provider,
            skip_dep_check=True,
        )

    def off(self) -> None:
        self.instrumentor.uninstrument()

    def settle(self) -> float:
        """Export what the batch processors hold (their thread's work, which a program does not
        wait for), so that none of it falls into another mode's try; the seconds it took."""
        started = time.perf_counter()
        self.tracer_provider.force_flush()
        self.logger_provider.force_flush()
        return time.perf_counter() - started

    def exported(self) -> tuple[int, int, bool]:
        """Spans and events in the files so far, and whether the events hold the prompt."""
        self.settle()
        spans = [json.loads(line) for line in self.spans.read_text().splitlines() if line]
        events = self.events.read_text()
        chat = sum(1 for span in spans if span.get("name", "").startswith("chat"))
        return chat, len(events.splitlines()), PROMPT in events

    def close(self) -> None:
        self.tracer_provider.shutdown()
        self.logger_provider.shutdown()
        for file in self._files:
            file.close()


def anchor_figures(repeat: int, say: Callable[[str], Any] | None = None) -> list[dict]:
    """The anchor rows; ``say`` is handed the profile when the per-step figure fails."""
    from runs.engine.execution import writer

    vendor = connection.vendor
    names = (
        "recording a Burr program with rewind_hooks: per-step overhead ÷ LocalTrackingClient + "
        f"OpenTelemetry openai instrumentation with message content ({vendor})",
        f"recording a Burr program with rewind_hooks: the whole step, Rewind ÷ anchor ({vendor})",
        "recording a Burr program with rewind_hooks(wait=False): per-step overhead ÷ the same "
        f"anchor ({vendor})",
    )
    try:
        import opentelemetry.instrumentation.openai_v2  # noqa: F401
        import opentelemetry.sdk._logs  # noqa: F401
    except ImportError as exc:  # the bench extra is not installed (or a broken pin of it)
        return [
            {"figure": name, "value": None, "pass": None, "note": f"{MISSING} ({exc})"}
            for name in names
        ]
    app = get_pipeline("nine")
    if not isinstance(app, BurrApp):
        raise TypeError("the recording figure runs a Burr app; 'nine' is declared")
    before = set(Run.objects.filter(pipeline="nine").values_list("pk", flat=True))
    with (
        _served_apart() as base,
        _openai_at(base),
        _environ(CONTENT),
        tempfile.TemporaryDirectory() as folder,
    ):
        anchor = Anchor(folder)
        try:
            measured = _measure(app, anchor, folder, tries=max(8, 8 * repeat))
            with _served_apart(LATENCY_S) as slow, _openai_at(slow):
                slowed = _measure(app, anchor, folder, tries=max(8, 4 * repeat), profile=False)
        finally:
            writer.shared().close()  # its connection too
            anchor.close()
    runs = Run.objects.filter(pipeline="nine").exclude(pk__in=before)
    steps = measured["steps"]
    measured["recorded"] = runs.count()
    measured["complete"] = sum(
        1 for run in runs if run.status == Run.Status.COMPLETED and run.nodes.count() == steps
    )
    rows = [*_rows(names, measured, GOALS.get(vendor, 1.0)), _latency_row(vendor, slowed)]
    if rows[0]["pass"] is False and "profile" in rows[0] and say is not None:
        say(f"{names[0]}: FAIL; the program's thread with rewind_hooks:\n{rows[0]['profile']}")
    return rows


def _measure(
    app: BurrApp, anchor: Anchor, folder: str, tries: int, profile: bool = True
) -> dict[str, Any]:
    """The modes in turns (the best of ``tries`` each counts), the anchor's export checked
    after its first try and at the end, then Rewind's profile."""
    from burr.tracking import LocalTrackingClient

    from runs.engine.execution import writer
    from runs.recording import rewind_hooks

    last = app.graph.actions[-1].name

    def builder() -> ApplicationBuilder:
        return (
            ApplicationBuilder()
            .with_graph(app.graph)
            .with_state(**app.state)
            .with_entrypoint(app.entrypoint)
        )

    def tracked() -> ApplicationBuilder:
        return builder().with_tracker(LocalTrackingClient(project="bench", storage_dir=folder))

    modes: dict[str, Callable[[], Any]] = {
        "bare": lambda: builder().build(),
        "tracker": lambda: tracked().build(),
        "anchor": lambda: tracked().build(),
        "rewind": lambda: builder().with_hooks(*rewind_hooks("nine")).build(),
        "nowait": lambda: builder().with_hooks(*rewind_hooks("nine", wait=False)).build(),
    }
    out: dict[str, Any] = {
        "steps": len(app.graph.actions),
        "times": {mode: [] for mode in modes},
        "anchored": 0,
        "exporting": 0.0,
        "writing": 0.0,  # the writer's work after wait=False's tries, untimed
        "tries": tries,
    }
    for turn in range(WARMUP + tries):
        for mode, build in modes.items():
            if mode == "anchor":
                anchor.on()
            try:
                started = time.perf_counter()
                build().run(halt_after=[last])
                took = time.perf_counter() - started
            finally:
                if mode == "anchor":
                    anchor.off()
                    out["anchored"] += 1
                    out["exporting"] += anchor.settle()
                elif mode == "nowait":
                    out["writing"] += _settled(writer.shared())
            if turn >= WARMUP:
                out["times"][mode].append(took)
        if turn == 0 and not anchor.exported()[2]:
            break  # no content exported: no anchor to compare with, and no time wasted on it
    out["spans"], out["events"], out["content"] = anchor.exported()
    if profile and out["content"] and all(out["times"].values()):
        out["profile"] = _profile(lambda: modes["rewind"]().run(halt_after=[last]), out["steps"])
    return out


def _latency_row(vendor: str, measured: dict[str, Any]) -> dict:
    """The same modes with the simulator answering after ``LATENCY_S``, as a model does: the
    writer's transaction then goes on while the program waits for the next answer, and what
    is left is the work on the program's thread and the last step's write. Reported."""
    name = (
        "recording a Burr program with rewind_hooks, the simulator answering after "
        f"{LATENCY_S * 1000:.0f} ms: per-step overhead ÷ the anchor ({vendor})"
    )
    steps, times = measured["steps"], measured["times"]
    if not measured["content"] or not all(times.values()):
        return {"figure": name, "value": None, "pass": None, "note": "the anchor not exporting"}
    best = {mode: min(seconds) for mode, seconds in times.items()}
    added = {mode: (seconds - best["bare"]) / steps for mode, seconds in best.items()}
    note = (
        f"a step takes {best['bare'] / steps * 1000:.2f} ms bare; added: tracker "
        f"{added['tracker'] * 1000:.3f} ms, anchor {added['anchor'] * 1000:.3f} ms, "
        f"rewind_hooks {added['rewind'] * 1000:.3f} ms, rewind_hooks(wait=False) "
        f"{added['nowait'] * 1000:.3f} ms; best of {measured['tries']} turns (reported: a "
        "difference of a few tenths of a millisecond on a step of tens is near the noise)"
    )
    if added["anchor"] <= 0:
        return {"figure": name, "value": None, "pass": None, "note": f"not measured: {note}"}
    row = figure(name, added["rewind"], added["anchor"], GOALS.get(vendor, 1.0))
    return {**row, "pass": None, "note": note}


def _settled(shared: Any) -> float:
    started = time.perf_counter()
    shared.flush()
    return time.perf_counter() - started


def _rows(names: tuple[str, ...], measured: dict[str, Any], goal: float) -> list[dict]:
    steps, times, anchored = measured["steps"], measured["times"], measured["anchored"]
    calls = anchored * steps
    exported = (
        f"the anchor exported {measured['spans']} chat spans for {calls} calls and "
        f"{measured['events']} events, {'with' if measured['content'] else 'WITHOUT'} the "
        f"prompt text"
    )
    if not measured["content"] or measured["spans"] < calls or not all(times.values()):
        # No fair anchor (an instrumentation that drops the content is cheaper than the one a
        # user would pick): no figure against it, and the row says why.
        note = (
            f"not measured, the anchor is not exporting: {exported} "
            "(OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?)"
        )
        return [{"figure": name, "value": None, "pass": None, "note": note} for name in names]
    best = {mode: min(seconds) for mode, seconds in times.items()}
    per_step = {mode: (seconds - best["bare"]) / steps for mode, seconds in best.items()}
    rounds = [
        (rewind - bare) / (anchor - bare)
        for bare, anchor, rewind in zip(
            times["bare"], times["anchor"], times["rewind"], strict=True
        )
        if anchor > bare
    ]
    note = (
        f"bare {best['bare'] / steps * 1000:.3f} ms a step; added: tracker "
        f"{per_step['tracker'] * 1000:.3f} ms, anchor (tracker + OpenTelemetry) "
        f"{per_step['anchor'] * 1000:.3f} ms, rewind_hooks {per_step['rewind'] * 1000:.3f} ms; "
        f"best of {measured['tries']} turns; per turn "
        + (
            f"{min(rounds):.2f}–{max(rounds):.2f} (median {statistics.median(rounds):.2f})"
            if rounds
            else "no ratio"
        )
        + f"; {exported}, their batch processors' export "
        f"{measured['exporting'] / calls * 1000:.3f} ms a step (their thread's: untimed); "
        f"{measured['complete']} of {measured['recorded']} recorded runs complete with all "
        f"{steps} steps"
    )
    if per_step["anchor"] <= 0:  # the anchor's cost drowned in the noise: no ratio to give
        return [{"figure": names[0], "value": None, "pass": None, "note": f"not measured: {note}"}]
    row = {**figure(names[0], per_step["rewind"], per_step["anchor"], goal), "note": note}
    row["pass"] = row["pass"] and measured["complete"] == measured["recorded"]  # no step lost
    row["profile"] = measured.get("profile", "")
    whole = figure(names[1], best["rewind"] / steps, best["anchor"] / steps, goal)
    whole["pass"] = None  # reported beside the overhead, not held to a goal
    whole["note"] = (
        f"a step: Rewind {best['rewind'] / steps * 1000:.3f} ms, anchor "
        f"{best['anchor'] / steps * 1000:.3f} ms, bare {best['bare'] / steps * 1000:.3f} ms"
    )
    nowait = {**figure(names[2], per_step["nowait"], per_step["anchor"], goal)}
    nowait["pass"] = nowait["pass"] and measured["complete"] == measured["recorded"]
    nowait["note"] = (
        f"rewind_hooks(wait=False) {per_step['nowait'] * 1000:.3f} ms a step added, the anchor "
        f"{per_step['anchor'] * 1000:.3f}; its writer's work after each try (untimed, as the "
        f"anchor's export) {measured['writing'] / (len(times['nowait']) + WARMUP) / steps * 1000:.3f}"
        " ms a step; a kill -9 can then lose what the last quarter second handed over"
    )
    return [row, whole, nowait]


def _profile(run_once: Callable[[], Any], steps: int, top: int = 10) -> str:
    """Where the program's thread is in Rewind's code over ``PROFILED_RUNS`` recorded runs:
    pyinstrument's samples of that thread alone (its wall time, waits for the writer
    included; cProfile would mix in the writer's thread), less the samples in the call itself
    (the socket and the HTTP client's own send, beneath Rewind's capture): the total a step
    and at the end of the ``run`` call, then Rewind's functions by cumulative time."""
    try:
        from pyinstrument import Profiler
    except ImportError:
        return f"no profile: pyinstrument is not installed ({MISSING})\n"

    profiler = Profiler(interval=0.0002, async_mode="disabled")
    profiler.start()
    try:
        for _ in range(PROFILED_RUNS):
            run_once()
    finally:
        session = profiler.stop()
    cumulative: dict[str, float] = {}
    total = at_end = 0.0
    for stack, seconds in session.frame_records:
        frames = [_frame(identifier) for identifier in stack]
        ours = [i for i, (_, where) in enumerate(frames) if _rewinds(where)]
        if not ours or (ours[-1] + 1 < len(frames) and _network(*frames[ours[-1] + 1])):
            continue
        total += seconds
        if any(function == "post_run_execute_call" for function, _ in frames):
            at_end += seconds
        for name in {f"{frames[i][1]}({frames[i][0]})" for i in ours}:
            cumulative[name] = cumulative.get(name, 0.0) + seconds
    runs = PROFILED_RUNS
    out = io.StringIO()
    out.write(
        f"Rewind on the program's thread: {total / runs / steps * 1000:.3f} ms a step "
        f"({total / runs * 1000:.3f} ms a run, of which {at_end / runs * 1000:.3f} ms at the "
        f"end of the run call); {session.sample_count} samples of {runs} runs\n"
        f"{'ms/step':>8} {'ms/run':>8}  function (cumulative)\n"
    )
    for name, seconds in sorted(cumulative.items(), key=lambda item: -item[1])[:top]:
        out.write(f"{seconds / runs / steps * 1000:8.3f} {seconds / runs * 1000:8.3f}  {name}\n")
    return out.getvalue()


def _frame(identifier: str) -> tuple[str, str]:
    """(function, file) of a pyinstrument frame identifier, the file from the project's root or
    from site-packages."""
    function, _, rest = identifier.partition("\x00")
    path = rest.partition("\x00")[0]
    for root in ("/site-packages/", f"{Path(__file__).resolve().parents[2]}/"):
        if root in path:
            path = path[path.rindex(root) + len(root) :]
    return function, path


def _rewinds(path: str) -> bool:
    return path.startswith("runs/") and not path.startswith(("runs/bench/", "runs/tests/"))


def _network(function: str, path: str) -> bool:
    """Whether a frame right beneath Rewind's is the call itself: the HTTP client's own send
    (Rewind's capture wraps it), a socket's read or write, a name looked up."""
    return (
        function.startswith("socket.")
        or (function == "send" and path.startswith(("httpx2/", "httpx/")))
        or path.endswith(("/socket.py", "/ssl.py", "/selectors.py"))
    )
