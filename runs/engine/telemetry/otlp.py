"""Finished runs sent to an OpenTelemetry collector over OTLP/HTTP (protobuf), by the
OpenTelemetry SDK and its OTLP exporter.

With ``REWIND_OTLP_ENDPOINT`` unset, ``export_run`` returns at once: nothing of the SDK is
imported, no thread is started. Set, the first export makes one ``TracerProvider`` for the
process (its own, never the global one an application may have set up) with a
``BatchSpanProcessor`` whose thread sends spans to ``<endpoint>/v1/traces``; ``export_run``
only reads the run (a few queries) and hands its spans to that queue, so a run never waits on
the network. A command run from a shell flushes it at its end (``close``), before the
interpreter's shutdown begins, so a short command like ``rewind_run`` delivers its trace before
it exits; at interpreter exit whatever is left is flushed too (there the exporter may not start
a thread — Python 3.12+ — so the flush runs in the exiting thread, bounded by the timeout).

An export never fails a run: any error is caught and logged once per process on
``rewind.otlp``; a collector that cannot be reached (or refuses the traces) is logged once,
with the SDK's own retry messages kept out of the log, and later batches are still tried.

Ids are derived from the run (``spans.stable_id``): exporting a run again (a program run ends
once per turn) sends the same trace and span ids, which a collector folds together.
"""

from __future__ import annotations

import atexit
import contextvars
import logging
import threading
import time
from typing import Any

from django.conf import settings

from runs.engine.calls.capture.redaction import redact_text, redact_url
from runs.engine.telemetry.spans import Planned, plan_run, stable_id

logger = logging.getLogger("rewind.otlp")

TRACES_PATH = "/v1/traces"
EXPORT_TIMEOUT_SECONDS = 5.0  # one POST and its retries; OTEL_EXPORTER_OTLP_TRACES_TIMEOUT wins
SDK_LOGGERS = (
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    "opentelemetry.exporter.otlp.common.http",
    "opentelemetry.exporter.http.transport",
)

_lock = threading.Lock()
_pipeline: _Pipeline | None = None
_logged: set[str] = set()  # what was logged already: "unreachable", "error"


def export_run(run_id: int) -> None:
    """Send run ``run_id`` (finished: executed, forked, replayed, recorded or imported) to the
    collector named by ``REWIND_OTLP_ENDPOINT`` as one trace. Costs nothing when the setting
    is unset; never raises and never waits on the network."""
    endpoint = getattr(settings, "REWIND_OTLP_ENDPOINT", "")
    if not endpoint:
        return
    try:
        planned = plan_run(run_id, content=bool(getattr(settings, "REWIND_OTLP_CONTENT", False)))
        if planned is not None:
            _pipeline_for(endpoint).emit(planned)
    except Exception as exc:  # noqa: BLE001 — an export must never fail the run it describes
        log_once("error", "OpenTelemetry export of run %s failed (%s: %s); runs are unaffected",
                 run_id, type(exc).__name__, exc)  # fmt: skip


def flush(timeout_seconds: float = EXPORT_TIMEOUT_SECONDS) -> bool:
    """Send whatever is queued now (tests; exit). False when nothing could be sent."""
    pipeline = _pipeline
    return pipeline.flush(timeout_seconds) if pipeline is not None else True


def close() -> None:
    """Send what is queued and stop the exporter (a command's end): the trace leaves while
    the process can still start the threads a flush needs. A later run starts it again."""
    global _pipeline
    with _lock:
        pipeline, _pipeline = _pipeline, None
    if pipeline is not None:
        pipeline.shutdown()


def reset() -> None:
    """Shut the process's pipeline down and forget what was logged (tests change endpoints)."""
    global _pipeline
    with _lock:
        pipeline, _pipeline = _pipeline, None
        _logged.clear()
    _SDK_FILTER.clear()
    if pipeline is not None:
        pipeline.shutdown()


def log_once(what: str, message: str, *args: Any) -> None:
    with _lock:
        if what in _logged:
            return
        _logged.add(what)
    logger.warning(message, *args)


def _pipeline_for(endpoint: str) -> _Pipeline:
    global _pipeline
    with _lock:
        if _pipeline is None or _pipeline.endpoint != endpoint:
            if _pipeline is not None:
                _pipeline.shutdown()
            # An empty context: the SDK's thread must not inherit a running step's capture
            # context (calls.capture.threads copies it into threads a step starts).
            _pipeline = contextvars.Context().run(_Pipeline, endpoint)
        return _pipeline


class _Pipeline:
    """The SDK objects of one endpoint: provider, batch processor, exporter."""

    def __init__(self, endpoint: str) -> None:
        import os

        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import SpanLimits, TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        self.endpoint = endpoint
        self.shown = redact_url(endpoint.rstrip("/") + TRACES_PATH)
        self.ids = _run_ids()
        timeout = (
            None if os.environ.get("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") else EXPORT_TIMEOUT_SECONDS
        )
        exporter = OTLPSpanExporter(endpoint=endpoint.rstrip("/") + TRACES_PATH, timeout=timeout)
        self.exporter = _Quiet(exporter, self)
        self.provider = TracerProvider(
            resource=Resource.create({"service.name": "rewind"}),
            id_generator=self.ids,
            span_limits=SpanLimits(max_span_attributes=4096),
            shutdown_on_exit=False,  # ours (below) does not wait on a collector known down
        )
        # A 10,000-step run is one queue's worth; a fuller queue drops (the SDK says so once).
        self.provider.add_span_processor(BatchSpanProcessor(self.exporter, max_queue_size=65536))
        self.tracer = self.provider.get_tracer("rewind")
        self.failed = False
        for name in SDK_LOGGERS:
            logging.getLogger(name).addFilter(_SDK_FILTER)
        atexit.register(self.shutdown)

    def emit(self, root: Planned) -> None:
        from opentelemetry import trace
        from opentelemetry.context import Context
        from opentelemetry.trace import Status, StatusCode

        trace_id = stable_id(root.key, 128)

        def emit(planned: Planned, parent: Any) -> None:
            self.ids.next(trace_id, stable_id(planned.key, 64))
            context = trace.set_span_in_context(parent) if parent is not None else Context()
            span = self.tracer.start_span(
                planned.name, context=context, attributes=planned.attributes,
                start_time=planned.start_ns,
            )  # fmt: skip
            if planned.error:
                span.set_status(Status(StatusCode.ERROR, planned.error[:2000]))
            for child in planned.children:
                emit(child, span)
            span.end(end_time=max(planned.end_ns, planned.start_ns))

        with self.ids.lock:
            emit(root, None)

    def flush(self, timeout_seconds: float) -> bool:
        return self.provider.force_flush(int(timeout_seconds * 1000))

    def shutdown(self) -> None:
        """Flush, then stop the SDK's thread; safe to call twice. The flush is waited on until
        it ends, the collector shows trouble (the exporter's first retry) or the export timeout
        passes — a collector that is down must not hold a command's exit for its back-off."""
        atexit.unregister(self.shutdown)
        try:
            if not self.failed:
                flushing = threading.Thread(target=self.provider.force_flush, daemon=True)
                try:
                    contextvars.Context().run(flushing.start)
                except RuntimeError:  # at interpreter shutdown (3.12+): flush here, bounded
                    self.provider.force_flush(int(EXPORT_TIMEOUT_SECONDS * 1000))
                deadline = time.monotonic() + EXPORT_TIMEOUT_SECONDS
                while flushing.is_alive() and not _SDK_FILTER.trouble.is_set():
                    if time.monotonic() > deadline:
                        break
                    flushing.join(0.05)
            self.exporter.abort()
            self.provider.shutdown()
        except Exception as exc:  # noqa: BLE001 — exiting must not fail on a collector
            log_once("error", "OpenTelemetry exporter did not shut down cleanly (%s)", exc)
        if _SDK_FILTER.trouble.is_set() or self.failed:
            self.exporter.report()


def _run_ids() -> Any:
    """The SDK's id generator, told the ids of the span about to start (``next``): derived from
    the run, so not random (``is_trace_id_random``); random if asked outside ``emit``."""
    from opentelemetry.sdk.trace.id_generator import IdGenerator, RandomIdGenerator

    class RunIds(IdGenerator):
        def __init__(self) -> None:
            self.random = RandomIdGenerator()
            self.lock = threading.Lock()
            self.trace_id: int | None = None
            self.span_id: int | None = None

        def next(self, trace_id: int, span_id: int) -> None:
            self.trace_id, self.span_id = trace_id, span_id

        def generate_trace_id(self) -> int:
            return self.trace_id or self.random.generate_trace_id()

        def generate_span_id(self) -> int:
            span_id, self.span_id = self.span_id, None
            return span_id or self.random.generate_span_id()

        def is_trace_id_random(self) -> bool:
            return False

    return RunIds()


class _Quiet:
    """The OTLP exporter, whose failures are logged once (``rewind.otlp``) instead of a retry
    message per batch, and which never raises into the SDK's thread (that would log a
    traceback per batch)."""

    def __init__(self, exporter: Any, pipeline: _Pipeline) -> None:
        self.exporter = exporter
        self.pipeline = pipeline

    def export(self, spans: Any) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        try:
            result = self.exporter.export(spans)
        except Exception:  # noqa: BLE001
            result = SpanExportResult.FAILURE
        if result != SpanExportResult.SUCCESS:
            self.pipeline.failed = True
            self.report()
        else:
            self.pipeline.failed = False
            _SDK_FILTER.clear()
        return result

    def report(self) -> None:
        log_once("unreachable", "OpenTelemetry collector at %s could not be reached or refused "
                 "the traces (%s); runs are unaffected, later traces are still tried and this "
                 "is not logged again", self.pipeline.shown, _SDK_FILTER.first or "no answer")  # fmt: skip

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True

    def abort(self) -> None:
        """Stop retrying at once (the exporter's shutdown interrupts its back-off)."""
        self.exporter.shutdown()

    def shutdown(self) -> None:
        if not getattr(self.exporter, "_shutdown", False):
            self.exporter.shutdown()


class _SdkFilter(logging.Filter):
    """Keeps the exporter's per-attempt messages out of the log; remembers the first reason
    since the last success, and that there was trouble (``shutdown`` stops waiting on it)."""

    def __init__(self) -> None:
        super().__init__()
        self.first = ""
        self.trouble = threading.Event()

    def clear(self) -> None:
        self.first = ""
        self.trouble.clear()

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.first:
            try:
                message = record.getMessage().split(" encountered while", 1)[0]
                self.first = redact_text(message)[:300]
            except Exception:  # noqa: BLE001
                self.first = "unreadable"
        self.trouble.set()
        return False


_SDK_FILTER = _SdkFilter()
