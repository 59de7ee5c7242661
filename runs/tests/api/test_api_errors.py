"""Every ``/api/`` answer is JSON, errors included (issue 7, finding 3).

400 for a body that is not a JSON object, is nested too deep or has a value of the wrong type
(naming the field), 413 for a body over the limit, 415 for a body that is not JSON, 404, 401,
403 and 405 as JSON, and a 500 that is JSON *and* logged through ``django.request`` so an
operator sees it. Nothing is written for any refused request.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

import pytest
from django.test import Client
from django.urls import resolve

from runs.models import Run

pytestmark = pytest.mark.django_db

MAX_DEPTH = 32  # the documented limit on nesting in a request body
RUN_FIELDS = ["inputs", "live", "model", "pipeline", "temperature"]
FORK_FIELDS = ["field", "live", "node", "provider", "value"]


def post(client: Client, url: str, body: Any, content_type: str = "application/json", **kw):
    data = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return client.post(url, data, content_type=content_type, **kw)


def error_of(response, status: int) -> str:
    """The response's ``error``, after checking it is JSON with ``status``."""
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json", response.content[:300]
    body = response.json()
    assert set(body) == {"error"}, body
    assert body["error"].strip()
    return body["error"]


def nested(depth: int) -> str:
    """A body ``{"inputs": [[[ … ]]]}`` nested ``depth`` levels deep in all."""
    return '{"inputs": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


@pytest.fixture
def a_run(run_row) -> Run:
    return run_row()


@pytest.fixture
def nothing_written():
    before = Run.objects.count()
    yield
    assert Run.objects.count() == before, "a refused request wrote a run"


# --- depth --------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [30_000, 2_000])  # 30 000 overflows json's own parser
@pytest.mark.parametrize("url", ["/api/runs", "/api/runs/{run}/forks"])
def test_deeply_nested_json_is_a_400_not_a_500(dev_user, a_run, nothing_written, depth, url):
    client = Client(raise_request_exception=False)  # a crash shows as a 500, not a raise
    client.force_login(dev_user)
    body = "[" * depth + "]" * depth
    assert len(body) < 64 * 1024  # under the size limit: the depth is what is refused

    response = post(client, url.format(run=a_run.pk), body)

    assert f"nested deeper than {MAX_DEPTH}" in error_of(response, 400)


def test_one_level_past_the_limit_is_refused_and_the_limit_itself_is_not(
    signed_in, nothing_written
):
    too_deep = post(signed_in, "/api/runs", nested(MAX_DEPTH + 1))
    at_limit = post(signed_in, "/api/runs", nested(MAX_DEPTH))

    assert "nested deeper" in error_of(too_deep, 400)
    # At the limit the body parses; what is wrong then is the type of ``inputs``.
    assert "inputs must be a JSON object" in error_of(at_limit, 400)


def test_brackets_inside_strings_do_not_count_as_nesting(rewind_settings, signed_in):
    question = "[{" * 200 + '\\"[' + "}]" * 10  # looks deep, is one string with an escaped quote
    body = '{"inputs": {"question": "' + question + '"}}'

    response = post(signed_in, "/api/runs", body)

    assert response.status_code == 201, response.content[:300]
    run = Run.objects.get(pk=response.json()["run"])
    assert run.inputs["question"] == json.loads(f'"{question}"')


# --- not a JSON object, not JSON at all, too large ------------------------------------------


@pytest.mark.parametrize(
    "body, says",
    [
        ("[1]", "must be a JSON object"),
        ('"runs"', "must be a JSON object"),
        ("null", "must be a JSON object"),
        ("{bad", "not valid JSON"),
        ('{"temperature": NaN}', "not valid JSON"),
        ('{"temperature": Infinity}', "not valid JSON"),
        ('{"temperature": 1e400}', "finite"),
        (b'{"model": "\xff"}', "not valid JSON"),
    ],
)
def test_a_body_that_is_not_a_json_object_is_a_400(signed_in, nothing_written, body, says):
    assert says in error_of(post(signed_in, "/api/runs", body), 400)


@pytest.mark.parametrize(
    "content_type",
    ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x"],
)
def test_a_body_that_is_not_json_is_a_415(signed_in, nothing_written, content_type):
    response = post(signed_in, "/api/runs", "pipeline=research", content_type=content_type)

    assert "application/json" in error_of(response, 415)


def test_a_json_content_type_with_a_utf8_charset_is_accepted(rewind_settings, signed_in):
    response = post(signed_in, "/api/runs", {}, content_type="application/json; charset=utf-8")

    assert response.status_code == 201, response.content[:300]


def test_a_body_over_the_limit_is_a_413(settings, signed_in, nothing_written):
    settings.REWIND_OVERRIDE_MAX_BYTES = 64
    limit = 64 + 4096  # REWIND_OVERRIDE_MAX_BYTES + 4 KiB for the rest of the body
    body = {"inputs": {"question": "x" * limit}}

    error = error_of(post(signed_in, "/api/runs", body), 413)

    assert "too large" in error and str(limit) in error


def test_a_body_over_djangos_own_upload_limit_is_a_413(settings, signed_in, nothing_written):
    settings.REWIND_OVERRIDE_MAX_BYTES = 10_000_000
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = {"inputs": {"question": "x" * 2000}}

    assert "too large" in error_of(post(signed_in, "/api/runs", body), 413)


# --- strict types, unknown fields -----------------------------------------------------------


@pytest.mark.parametrize(
    "field, value",
    [
        ("pipeline", 5),
        ("pipeline", ""),
        ("pipeline", ["research"]),
        ("inputs", ["a"]),
        ("inputs", "region=east"),
        ("model", 5),
        ("model", {"name": "m"}),
        ("temperature", "0.5"),
        ("temperature", True),
        ("temperature", [0.5]),
        ("live", "yes"),
        ("live", 1),
        ("live", "true"),
    ],
)
def test_run_fields_are_typed_strictly(rewind_settings, signed_in, nothing_written, field, value):
    error = error_of(post(signed_in, "/api/runs", {field: value}), 400)

    assert error.startswith(field), error
    assert json.dumps(value) in error


@pytest.mark.parametrize(
    "body, field",
    [
        ({"node": "plan", "live": "yes"}, "live"),
        ({"node": "plan", "live": 0}, "live"),
        ({"node": True}, "node"),
        ({"node": ["plan"]}, "node"),
        ({"node": ""}, "node"),
        ({"node": -1}, "node"),
        ({"node": 1.5}, "node"),
        ({"node": "plan", "field": 5, "value": 1}, "field"),
        ({"node": "plan", "field": "prompt"}, "value"),
        ({"node": "plan", "value": "hello"}, "value"),
    ],
)
def test_fork_fields_are_typed_strictly(research_run, signed_in, nothing_written, body, field):
    error = error_of(post(signed_in, f"/api/runs/{research_run.pk}/forks", body), 400)

    assert error.startswith(field), error


def test_live_true_is_accepted_as_a_boolean(rewind_settings, signed_in):
    response = post(signed_in, "/api/runs", {"live": True})

    assert response.status_code == 201, response.content[:300]
    assert Run.objects.get(pk=response.json()["run"]).mode == Run.Mode.LIVE


@pytest.mark.parametrize(
    "url, body, allowed",
    [
        ("/api/runs", {"pipeline": "research", "halt_after": "plan"}, RUN_FIELDS),
        ("/api/runs/{run}/forks", {"node": "plan", "set": "prompt=x"}, FORK_FIELDS),
    ],
)
def test_unknown_fields_are_refused_with_the_allowed_ones(
    research_run, signed_in, nothing_written, url, body, allowed
):
    error = error_of(post(signed_in, url.format(run=research_run.pk), body), 400)

    assert "unknown keys:" in error
    assert "allowed: " + ", ".join(allowed) in error


# --- 404, 401, 403, 405 as JSON -------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/api/nope", "/api/runs/abc", "/api/runs/1/nope", "/api/health/", "/api/"]
)
def test_an_unknown_api_path_is_a_json_404(signed_in, path):
    assert error_of(signed_in.get(path), 404)


def test_an_unknown_api_path_is_a_json_404_for_anonymous_callers_too(client):
    assert error_of(client.get("/api/nope"), 404)


def test_an_unknown_page_outside_the_api_is_still_a_page(signed_in):
    response = signed_in.get("/nope/")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_an_unknown_run_is_a_json_404(signed_in, run_row):
    missing = run_row().pk + 1000

    assert f"no run {missing}" in error_of(signed_in.get(f"/api/runs/{missing}"), 404)
    fork = post(signed_in, f"/api/runs/{missing}/forks", {"node": "plan"})
    assert f"no run {missing}" in error_of(fork, 404)


@pytest.mark.parametrize(
    "method, path, allow",
    [
        ("post", "/api/health", "GET"),
        ("delete", "/api/runs/{run}", "GET"),
        ("get", "/api/runs", "POST"),
        ("put", "/api/runs/{run}/forks", "POST"),
    ],
)
def test_a_wrong_method_is_a_json_405(signed_in, run_row, method, path, allow):
    response = getattr(signed_in, method)(path.format(run=run_row().pk))

    assert response["Allow"] == allow
    assert allow in error_of(response, 405)


@pytest.mark.parametrize("path", ["/api/runs", "/api/runs/1/forks"])
def test_an_anonymous_post_is_a_json_401_before_the_body_is_read(client, path):
    assert error_of(post(client, path, "[" * 10_000), 401) == "sign in first"


def test_a_post_without_a_csrf_token_is_a_json_403(dev_user, nothing_written):
    client = Client(enforce_csrf_checks=True)
    client.force_login(dev_user)

    assert "CSRF" in error_of(post(client, "/api/runs", {}), 403)


# --- 500: JSON, and logged -----------------------------------------------------------------


def test_an_unexpected_error_is_a_json_500_logged_through_django_request(
    research_run, dev_user, monkeypatch, caplog
):
    def explode(*args, **kwargs):
        raise RuntimeError("boom: a bug in the view")

    view = resolve(f"/api/runs/{research_run.pk}").func
    monkeypatch.setattr(sys.modules[view.__module__], "run_json", explode)
    client = Client(raise_request_exception=False)
    client.force_login(dev_user)

    with caplog.at_level(logging.ERROR, logger="django.request"):
        response = client.get(f"/api/runs/{research_run.pk}")

    error = error_of(response, 500)
    assert "boom" not in error  # the details are for the log, not the caller
    records = [r for r in caplog.records if r.name == "django.request"]
    assert records, "the 500 was not logged through django.request"
    record = records[-1]
    assert record.levelno == logging.ERROR
    assert f"/api/runs/{research_run.pk}" in record.getMessage()
    assert record.exc_info and "boom" in str(record.exc_info[1])


def test_django_request_errors_reach_a_handler():
    """``LOGGING`` gives ``django.request`` a handler of its own at ERROR, so a 500 reaches
    stderr with DEBUG off (Django's default console handler only logs with DEBUG on)."""
    logger = logging.getLogger("django.request")

    assert logger.isEnabledFor(logging.ERROR)
    handlers = [h for h in logger.handlers if isinstance(h, logging.StreamHandler)]
    assert handlers, "django.request has no handler of its own"
    record = logger.makeRecord("django.request", logging.ERROR, __file__, 1, "x", (), None)
    assert any(h.level <= logging.ERROR and h.filter(record) for h in handlers)


@pytest.mark.parametrize(
    "body",
    [
        '{"node": "analyse", "live": "\\ud800"}',  # a lone surrogate the 400 quotes back
        '{"node": "analyse", "\\udfff": 1}',  # in an unknown key's name
        '{"pipeline": "\\ud83d", "inputs": {}}',  # in a value the engine names
    ],
    ids=["value", "key", "engine-message"],
)
def test_a_lone_surrogate_in_a_body_is_a_400_not_a_500(research_run, signed_in, body):
    url = "/api/runs" if "pipeline" in body else f"/api/runs/{research_run.pk}/forks"
    before = Run.objects.count()
    response = post(signed_in, url, body)
    assert response.status_code in (400, 404), response.content[:300]
    assert response.json()["error"]  # valid UTF-8 JSON, the odd character escaped
    assert Run.objects.count() == before
