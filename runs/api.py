"""The JSON API: ``/api/health``, ``/api/runs`` and ``/api/runs/<run>[/forks|/cancel]``.

Every answer is JSON, errors included (``{"error": "..."}``): 400 for a body that is not a
JSON object, is nested deeper than ``BODY_DEPTH`` or holds a value of the wrong type
(the message names the field), 401 for an anonymous caller, 404, 405 (with ``Allow``), 413 for
a body over ``max_body_bytes()``, 415 for a body that is not ``application/json``, 409 for a
run that has already finished (cancel), 429 (with ``Retry-After``) for work over the user's daily
budget (``runs.budgets``). A 500 is
answered by ``rewind_site.urls.handler500`` after Django has logged it on ``django.request``.

The views stay thin: the body is checked here, everything else is the engine's. A run's
object is answered masked (``runs.pages.masking``): what looks like a secret in a step's
values, an override or an error reads ``[redacted]``, as on the pages.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.csrf import csrf_failure as html_csrf_failure

from runs.budgets import (
    BUDGET_STATUS,
    BudgetExceeded,
    admitted,
    open_within_budget,
    seconds_to_renewal,
)
from runs.engine.analysis.projection import NewRun, projected_cost
from runs.engine.analysis.report import run_json
from runs.engine.calls.keys import PROVIDER_IDENTITIES
from runs.engine.errors import RewindError
from runs.engine.execution.leases import RunFinished, cancel_run
from runs.engine.execution.new_runs import create_run
from runs.engine.forking.forks import resolve_fork
from runs.lib.jsontext import MAX_JSON_DEPTH, JSONTextError, nesting_depth_exceeds, parse_json
from runs.models import Run
from runs.pages.masking import masked
from runs.tasks import enqueue_run

BODY_DEPTH = MAX_JSON_DEPTH  # the body itself counting as 1 (its values: runs.lib.jsontext)
BODY_ENVELOPE_BYTES = 4096  # room for the rest of a body around an override value
JSON_CONTENT_TYPES = ("application/json",)


class ApiError(Exception):
    """Answered as ``{"error": message}`` with ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def error(status: int, message: str) -> JsonResponse:
    # A message may quote what the client sent, lone surrogates included ("\ud800" is valid
    # JSON, but no UTF-8): those are escaped (as \ud800), so the 400 stays a 400.
    message = message.encode("utf-8", "backslashreplace").decode("utf-8")
    return JsonResponse(
        {"error": message}, status=status, json_dumps_params={"ensure_ascii": False}
    )


def over_budget(exc: BudgetExceeded) -> JsonResponse:
    """429 with what is left today, and ``Retry-After``: the seconds until the budget renews."""
    response = error(BUDGET_STATUS, str(exc))
    response["Retry-After"] = str(seconds_to_renewal())
    return response


def endpoint(*methods: str, public: bool = False) -> Callable:
    """An API view: only ``methods`` (else a JSON 405), a signed-in user unless ``public``
    (else a JSON 401, before the body is looked at), ``ApiError`` answered as JSON."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @login_not_required  # JSON clients get a 401 rather than a redirect to the login page
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method not in methods:
                response = error(405, f"{request.method} is not allowed; use {', '.join(methods)}")
                response["Allow"] = ", ".join(methods)
                return response
            if not public and not request.user.is_authenticated:
                return error(401, "sign in first")
            try:
                return view(request, *args, **kwargs)
            except ApiError as exc:
                return error(exc.status, exc.message)

        return wrapper

    return decorate


# --- the request body ------------------------------------------------------------------------


def max_body_bytes() -> int:
    """The largest body accepted: the largest override value plus 4 KiB around it (and never
    more than Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``)."""
    return settings.REWIND_OVERRIDE_MAX_BYTES + BODY_ENVELOPE_BYTES


def _too_large(size: int | str) -> ApiError:
    return ApiError(
        413,
        f"the request body is too large: {size} bytes; the limit is {max_body_bytes()} "
        "(REWIND_OVERRIDE_MAX_BYTES + 4096)",
    )


def json_body(request: HttpRequest) -> dict[str, Any]:
    """The body as a JSON object, or the ``ApiError`` (413, 415, 400) that says why not.
    An empty body without a content type is ``{}``."""
    content_type = request.content_type or ""
    length = request.META.get("CONTENT_LENGTH") or "0"
    if content_type or length not in ("", "0"):
        charset = (request.encoding or "utf-8").lower().replace("_", "-")
        if content_type not in JSON_CONTENT_TYPES or charset not in ("utf-8", "utf8"):
            raise ApiError(415, f"the body must be application/json (UTF-8), not {content_type!r}")
    if length.isdigit() and int(length) > max_body_bytes():
        raise _too_large(length)
    try:
        raw = request.body
    except RequestDataTooBig:  # over DATA_UPLOAD_MAX_MEMORY_SIZE
        raise _too_large(length) from None
    if len(raw) > max_body_bytes():
        raise _too_large(len(raw))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(400, f"the body is not valid JSON: not UTF-8 ({exc.reason})") from None
    if not text.strip():
        return {}
    if nesting_depth_exceeds(text, BODY_DEPTH):
        raise ApiError(400, f"the body is nested deeper than {BODY_DEPTH} levels")
    try:
        body = parse_json(text, depth=BODY_DEPTH)
    except JSONTextError as exc:
        raise ApiError(400, f"the body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the body must be a JSON object")
    return body


# --- strict fields ---------------------------------------------------------------------------


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_step(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return _is_text(value) or (isinstance(value, int) and value >= 0)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


# field → (check, what a wrong value is told). null is the same as leaving a field out.
RUN_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "pipeline": (_is_text, "pipeline must be a pipeline name (a string)"),
    "inputs": (lambda v: isinstance(v, dict), "inputs must be a JSON object"),
    "model": (_is_text, "model must be a model name (a string)"),
    "temperature": (_is_number, "temperature: expected a number from 0 to 2"),
    "live": (_is_bool, "live must be true or false"),
}
FORK_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "node": (_is_step, "node is required: a node name or a step number"),
    "field": (_is_text, "field must be a string: the override field, e.g. prompt or args.NAME"),
    "value": (lambda v: True, ""),
    "live": (_is_bool, "live must be true or false"),
    "provider": (
        lambda v: v in PROVIDER_IDENTITIES,
        "provider must be " + " or ".join(f'"{p}"' for p in PROVIDER_IDENTITIES),
    ),
}


def checked(body: dict[str, Any], fields: dict[str, tuple[Callable[[Any], bool], str]]) -> dict:
    """``body`` without nulls, every field known and of its type; else a 400 naming it."""
    unknown = sorted(set(body) - set(fields))
    if unknown:
        raise ApiError(
            400, f"unknown keys: {', '.join(unknown)} (allowed: {', '.join(sorted(fields))})"
        )
    given = {name: value for name, value in body.items() if value is not None}
    for name, value in given.items():
        check, message = fields[name]
        if not check(value):
            raise ApiError(400, f"{message}, got {_shown(value)}")
    return given


# Where a run's object names files on the server, not recorded content: shown as they are.
UNMASKED = ("artifact", "imported_from")


def shown_run(run: Run, **kwargs: Any) -> dict[str, Any]:
    """``run_json(run)`` as answered: every recorded value in it masked."""
    data = run_json(run, **kwargs)
    return {k: v if k in UNMASKED else masked(v) for k, v in data.items()}


def _run(run_id: int) -> Run:
    try:
        return Run.objects.select_related("parent").get(pk=run_id)
    except (Run.DoesNotExist, OverflowError):
        raise ApiError(404, f"no run {run_id}") from None


# --- views -----------------------------------------------------------------------------------


@endpoint("GET", public=True)
def health(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"service": "rewind", "status": "ok"})


@endpoint("GET")
def run_detail(request: HttpRequest, run_id: int) -> JsonResponse:
    """``GET /api/runs/<run>``: the object ``rewind_run --json`` prints."""
    return JsonResponse(shown_run(_run(run_id)), json_dumps_params={"ensure_ascii": False})


@endpoint("POST")
def run_create(request: HttpRequest) -> JsonResponse:
    """``POST /api/runs`` ``{"pipeline", "inputs", "model", "temperature", "live"}`` → 201."""
    body = checked(json_body(request), RUN_FIELDS)
    pipeline = body.get("pipeline", settings.REWIND_DEFAULT_PIPELINE)
    try:
        with admitted(request.user, lambda: projected_cost(NewRun(pipeline))) as admission:
            run = create_run(
                pipeline,
                body.get("inputs", {}),
                model=body.get("model"),
                temperature=body.get("temperature"),
                live=body.get("live", False),
                from_text=False,
            )
            admission.record(run)
    except BudgetExceeded as exc:
        return over_budget(exc)
    except RewindError as exc:
        raise ApiError(400, str(exc)) from None
    enqueue_run(run)
    return JsonResponse(shown_run(run, nodes=[]), status=201)


@endpoint("POST")
def fork_create(request: HttpRequest, run_id: int) -> JsonResponse:
    """``POST /api/runs/<run>/forks`` ``{"node", "field", "value", "live", "provider"}``;
    without ``field`` it is an unchanged replay. Refused overrides write nothing.

    201 with the new run and ``"reused": false``; or, when the same fork was already made
    (``open_fork``: same step, override, mode and provider; never for ``"live": true``), 200
    with that run and ``"reused": true``, and nothing is written or enqueued."""
    raw = json_body(request)
    body = checked(raw, FORK_FIELDS)
    if "node" not in body:
        raise ApiError(400, FORK_FIELDS["node"][1])
    field = body.get("field")
    if field is not None and "value" not in raw:  # a null value is a value (e.g. for output)
        raise ApiError(400, "value is required with field")
    if field is None and "value" in raw:
        raise ApiError(400, "value is given without a field to set it on")
    source = _run(run_id)
    try:
        wanted = resolve_fork(
            source,
            str(body["node"]),
            field,
            raw.get("value"),
            from_text=False,
            live=body.get("live", False),
            provider=body.get("provider"),
        )
        opened = open_within_budget(request.user, wanted)
    except BudgetExceeded as exc:
        return over_budget(exc)
    except RewindError as exc:
        raise ApiError(400, str(exc)) from None
    if not opened.reused:
        enqueue_run(opened.run)
    return JsonResponse(
        {**shown_run(opened.run), "reused": opened.reused},
        status=200 if opened.reused else 201,
    )


@endpoint("POST")
def run_cancel(request: HttpRequest, run_id: int) -> JsonResponse:
    """``POST /api/runs/<run>/cancel`` (no body) → the cancelled run; 409 once it finished."""
    json_body(request)  # an empty body, or a JSON object (ignored): nothing else
    run = _run(run_id)
    try:
        run = cancel_run(run, by=request.user.get_username())
    except RunFinished as exc:
        raise ApiError(409, str(exc)) from None
    return JsonResponse(shown_run(run), json_dumps_params={"ensure_ascii": False})


# --- errors raised before a view runs ----------------------------------------------------------


def is_api(request: HttpRequest) -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: JSON under ``/api/``, Django's page everywhere else."""
    if is_api(request):
        return error(403, f"CSRF verification failed: {reason}; send the X-CSRFToken header")
    return html_csrf_failure(request, reason=reason)
