"""What leaves Rewind for an observability tool (DESIGN.md, "Imported runs and OpenTelemetry").

- ``spans``  a finished run read from the database as a tree of planned spans: the run, a
             span per step, a child span per captured call — GenAI semantic-convention and
             ``rewind.*`` attributes, content only when asked, never a credential
- ``otlp``   ``export_run(run_id)``: that tree sent over OTLP/HTTP by the OpenTelemetry SDK
             (one ``TracerProvider`` per process, made on first use, batched in a thread of
             the SDK's own, flushed at exit); a no-op when ``REWIND_OTLP_ENDPOINT`` is unset

``execution.runner.finish_run`` calls ``export_run`` for every run it ends (executed, forked,
replayed, recorded from a program); an importer calls it for each run it imports.

May import: ``runs.models``, ``runs.lib.hashing`` and ``calls.capture.redaction`` (what is a
credential). Nothing here imports ``opentelemetry`` until an export is asked for.
"""

from runs.engine.telemetry.otlp import export_run

__all__ = ["export_run"]
