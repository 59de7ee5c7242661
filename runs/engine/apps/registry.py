"""The registry: pipelines by name, from ``settings.REWIND_PIPELINES`` (name → dotted path).

The demo ``research`` pipeline goes through it exactly like a user's own app; nothing else in
the engine names a pipeline. The capture's guard is in place before a pipeline's module is
imported (``capture.install_guard``): a connection the app opens at import is known.
"""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.utils.module_loading import import_string

from runs.engine.apps.burr import BurrApp, burr_app
from runs.engine.apps.specs import Pipeline
from runs.engine.apps.versions import remember_files
from runs.engine.calls import capture
from runs.engine.errors import PipelineError


@cache
def _load(name: str, dotted_path: str) -> Pipeline | BurrApp:
    """A registered pipeline: Rewind's own declaration, or a Burr app brought unchanged.
    Dotted paths may hold hyphenated module names (``burr.examples.multi-modal-chatbot…``)."""
    capture.install_guard()  # before the app's import: what it connects there is known
    obj = import_string(dotted_path)
    app = obj if isinstance(obj, Pipeline) else burr_app(name, obj, dotted_path)
    remember_files(name, app)  # an edit after this is code this process does not run
    return app


def pipeline_names() -> list[str]:
    return sorted(settings.REWIND_PIPELINES)


def load_all() -> dict[str, str]:
    """Import every registered pipeline now (``rewind_serve`` does, beside the server), so the
    first page that needs one does not pay for its imports — a Burr app's SDKs took the first
    run page after a restart 2.5 s. Returns what could not be loaded: name → why."""
    failed = {}
    for name in pipeline_names():
        try:
            get_pipeline(name)
        except PipelineError as exc:
            failed[name] = str(exc)
    return failed


def get_pipeline(name: str) -> Pipeline | BurrApp:
    try:
        dotted_path = settings.REWIND_PIPELINES[name]
    except KeyError:
        raise PipelineError(
            f"unknown pipeline {name!r}; registered: {', '.join(pipeline_names()) or 'none'}"
        ) from None
    try:
        return _load(name, dotted_path)
    except ImportError as exc:
        raise PipelineError(
            f"pipeline {name!r} cannot be imported from {dotted_path}: {exc}"
        ) from None
    except PipelineError:
        raise
    except Exception as exc:  # noqa: BLE001 — the user's module raised while it was imported
        raise PipelineError(
            f"pipeline {name!r} cannot be imported from {dotted_path}: "
            f"{type(exc).__name__}: {exc}{_hint(exc)}"
        ) from None


def _hint(exc: Exception) -> str:
    """What to do about an error Burr raises where it did not before. apache-burr (0.42 on)
    checks, when an action is defined, that it declares every state key its function reads;
    an app written for the old ``burr`` package (0.40) may not: Burr refuses it outside Rewind
    too, with the same message."""
    if "reads undeclared state keys" in str(exc):
        return (
            " (apache-burr checks that an action declares every state key it reads, when the "
            "action is defined: add the keys to its reads=[...]; the app fails the same way "
            "under apache-burr without Rewind)"
        )
    return ""
