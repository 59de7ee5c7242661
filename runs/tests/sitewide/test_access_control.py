"""Access (issue 4, part 8): every page but health and login needs a signed-in user; only staff
change settings; CSRF is enforced on every POST; an artifact is resolved from its run id only
and never served from outside ``REWIND_ARTIFACT_DIR``.

The table below names every route of ``runs/urls.py``; a test fails when a route is added
without a row here, so a new page cannot slip in unguarded.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.test import Client
from django.urls import URLPattern, resolve

from runs import urls as runs_urls
from runs.lib.hashing import sha256_bytes
from runs.models import ProviderSettings, Run

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Route:
    name: str  # the URL name ("root" for the unnamed redirect)
    path: str  # with {run} for a real completed run id
    method: str  # how it is used: GET or POST
    anonymous: str  # "login" (302 to /login/), "401" (JSON API), "open" (no sign-in needed)


ROUTES = [
    Route("root", "/", "GET", "login"),
    Route("login", "/login/", "GET", "open"),
    Route("logout", "/logout/", "POST", "login"),  # nobody to log out
    Route("run-list", "/runs/", "GET", "login"),
    Route("run-create", "/runs/new/", "POST", "login"),
    Route("run-detail", "/runs/{run}/", "GET", "login"),
    Route("run-lineage", "/runs/{run}/lineage/", "GET", "login"),
    Route("run-status", "/runs/{run}/status/", "GET", "login"),
    Route("run-events", "/runs/{run}/events/", "GET", "login"),
    Route("run-artifact", "/runs/{run}/artifact/", "GET", "login"),
    Route("run-replay", "/runs/{run}/replay/", "POST", "login"),
    Route("run-resume", "/runs/{run}/resume/", "POST", "login"),
    Route("run-cancel", "/runs/{run}/cancel/", "POST", "login"),
    Route("outcome-add", "/runs/{run}/outcomes/", "POST", "login"),
    Route("outcome-remove", "/runs/{run}/outcomes/1/remove/", "POST", "login"),
    Route("node-detail", "/runs/{run}/nodes/0/", "GET", "login"),
    Route("node-fork", "/runs/{run}/nodes/0/fork/", "GET", "login"),
    Route("node-fork", "/runs/{run}/nodes/0/fork/", "POST", "login"),
    Route("compare", "/compare/{run}/{run}/", "GET", "login"),
    Route("compare-pick", "/compare/", "GET", "login"),
    Route("compare-runs", "/compare/runs/", "GET", "login"),
    Route("compare-bisect", "/compare/{run}/{run}/bisect/", "GET", "login"),
    Route("compare-bisect", "/compare/{run}/{run}/bisect/", "POST", "login"),
    Route("run-export", "/runs/{run}/export/", "GET", "login"),
    Route("node-grid", "/runs/{run}/nodes/0/grid/", "GET", "login"),
    Route("node-grid", "/runs/{run}/nodes/0/grid/", "POST", "login"),
    Route("run-stability", "/runs/{run}/stability/", "GET", "login"),
    Route("run-stability", "/runs/{run}/stability/", "POST", "login"),
    Route("node-batch", "/runs/{run}/nodes/0/batch/", "GET", "login"),
    Route("node-batch", "/runs/{run}/nodes/0/batch/", "POST", "login"),
    Route("batch-list", "/batches/", "GET", "login"),
    Route("regression-new", "/pipelines/research/regress/", "GET", "login"),
    Route("regression-new", "/pipelines/research/regress/", "POST", "login"),
    Route("batch-detail", "/batches/1/", "GET", "login"),
    Route("batch-export", "/batches/1/export/", "GET", "login"),
    Route("grid-list", "/grids/", "GET", "login"),
    Route("grid-detail", "/grids/1/", "GET", "login"),
    Route("settings", "/settings/", "GET", "login"),
    Route("settings", "/settings/", "POST", "login"),
    Route("import", "/import/", "GET", "login"),
    Route("import", "/import/", "POST", "login"),
    Route("health", "/api/health", "GET", "open"),
    Route("api-run-create", "/api/runs", "POST", "401"),
    Route("api-run", "/api/runs/{run}", "GET", "401"),
    Route("api-fork-create", "/api/runs/{run}/forks", "POST", "401"),
    Route("api-run-cancel", "/api/runs/{run}/cancel", "POST", "401"),
]
POSTS = [r for r in ROUTES if r.method == "POST"]


def url(route: Route, run: Run) -> str:
    return route.path.replace("{run}", str(run.pk))


def call(client: Client, route: Route, run: Run, **extra):
    if route.method == "GET":
        return client.get(url(route, run), **extra)
    if route.name.startswith("api-"):
        body = {"node": "plan"} if route.name == "api-fork-create" else {}
        return client.post(url(route, run), json.dumps(body), "application/json", **extra)
    return client.post(url(route, run), {"replay": "1"}, **extra)


def counts() -> dict[str, int]:
    from django_tasks_db.models import DBTaskResult

    return {
        "runs": Run.objects.count(),
        "tasks": DBTaskResult.objects.count(),
        "settings": ProviderSettings.objects.count(),
    }


def test_the_table_names_every_route_of_runs_urls():
    names = {p.name or "root" for p in runs_urls.urlpatterns if isinstance(p, URLPattern)}
    assert names == {r.name for r in ROUTES}
    for route in ROUTES:  # and every row really resolves to that route
        match = resolve(route.path.replace("{run}", "1"))
        assert (match.url_name or "root") == route.name


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: f"{r.method}-{r.name}")
def test_anonymous_users_are_sent_to_login_or_refused(route, research_run, client):
    before = counts()

    response = call(client, route, research_run)

    if route.anonymous == "login":
        assert response.status_code == 302
        assert response["Location"].startswith("/login/?next=")
    elif route.anonymous == "401":
        assert response.status_code == 401
        assert response.json() == {"error": "sign in first"}
    else:
        assert response.status_code in (200, 302)
        assert not response.get("Location", "").startswith("/login/")
    assert counts() == before


def test_anonymous_htmx_and_json_clients_get_no_data(research_run, client):
    page = client.get(f"/runs/{research_run.pk}/", headers={"HX-Request": "true"})
    api = client.get(f"/api/runs/{research_run.pk}", headers={"Accept": "application/json"})

    assert page.status_code == 302 and research_run.trajectory_sha256 not in page.content.decode()
    assert api.status_code == 401 and research_run.trajectory_sha256 not in api.content.decode()


def test_the_admin_needs_staff(research_run, client, django_user_model):
    assert client.get("/admin/").status_code == 302
    client.force_login(django_user_model.objects.create_user("plain"))
    response = client.get("/admin/runs/run/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


def test_a_signed_in_user_reaches_every_page(research_run, django_user_model):
    client = Client()
    client.force_login(django_user_model.objects.create_user("analyst"))
    for route in ROUTES:
        # The event stream never ends; a grid page needs a grid (test_grid_page.py has them),
        # a batch page and its download a batch (test_batch_views.py, test_batch_suite.py).
        skipped = {"run-events", "grid-detail", "batch-detail", "batch-export"}
        if route.method != "GET" or route.name in skipped:
            continue
        response = client.get(url(route, research_run))
        if route.name == "compare":  # a run against itself: the picker says so (400)
            assert response.status_code == 400 and b"differs nowhere" in response.content
            continue
        if route.name == "import":  # staff only: it reads the server's files
            assert response.status_code == 403
            continue
        assert response.status_code in (200, 286, 302), route  # 286: htmx "stop polling"
        if response.status_code == 302:
            assert not response["Location"].startswith("/login/"), route


# --- CSRF ---------------------------------------------------------------------------------


@pytest.mark.parametrize("route", POSTS, ids=lambda r: f"{r.method}-{r.name}")
def test_every_post_without_a_csrf_token_is_refused(route, research_run, django_user_model):
    staff = django_user_model.objects.create_user("staff", is_staff=True, is_superuser=True)
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff)
    before = counts()

    response = call(client, route, research_run)

    assert response.status_code == 403
    assert b"CSRF" in response.content
    assert counts() == before


def test_posts_with_the_csrf_token_go_through(research_run, django_user_model):
    """Control for the test above: the same client, with the token the page gave it."""
    staff = django_user_model.objects.create_user("staff", is_staff=True)
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff)
    client.get("/runs/")
    token = client.cookies["csrftoken"].value

    form = client.post(f"/runs/{research_run.pk}/replay/", {"csrfmiddlewaretoken": token})
    api = client.post(
        f"/api/runs/{research_run.pk}/forks",
        # not "plan": the form above just asked for that very replay, which the API would
        # open (200) rather than make again (runs.engine.forking.forks.open_fork)
        json.dumps({"node": "critique"}),
        "application/json",
        headers={"X-CSRFToken": token},
    )
    settings_form = client.post("/settings/", {"csrfmiddlewaretoken": token, "model": "m-1"})

    assert form.status_code == 302
    assert api.status_code == 201
    assert settings_form.status_code == 302
    assert ProviderSettings.load().model == "m-1"


def test_a_bad_login_post_without_csrf_is_refused(django_user_model):
    django_user_model.objects.create_user("someone", password="a-long-password-1")
    client = Client(enforce_csrf_checks=True)

    response = client.post("/login/", {"username": "someone", "password": "a-long-password-1"})

    assert response.status_code == 403
    assert "_auth_user_id" not in client.session


# --- settings: only staff change them -----------------------------------------------------


def test_only_staff_may_change_settings(django_user_model, client):
    client.force_login(django_user_model.objects.create_user("analyst"))

    page = client.get("/settings/")
    refused = client.post("/settings/", {"preset": "ollama", "model": "llama3"})

    assert page.status_code == 200
    assert b'name="preset"' not in page.content  # no form offered to a non-staff user
    assert refused.status_code == 403
    assert ProviderSettings.objects.count() == 0
    assert ProviderSettings.load().preset == ""


def test_staff_may_change_settings(django_user_model, client):
    client.force_login(django_user_model.objects.create_user("admin", is_staff=True))

    page = client.get("/settings/")
    saved = client.post("/settings/", {"preset": "ollama", "model": "llama3"})

    assert b'name="preset"' in page.content
    assert saved.status_code == 302
    assert (ProviderSettings.load().preset, ProviderSettings.load().updated_by) == (
        "ollama",
        "admin",
    )


# --- artifacts: by run id only, never from outside REWIND_ARTIFACT_DIR -------------------


@pytest.fixture
def signed_in(client, django_user_model) -> Client:
    client.force_login(django_user_model.objects.create_user("reader"))
    return client


@pytest.fixture
def secret_file(tmp_path) -> Path:
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    path.write_text("TOP-SECRET-OUTSIDE-THE-ARTIFACT-DIR\n")
    return path


def test_the_artifact_route_takes_a_run_id_and_nothing_else():
    match = resolve("/runs/7/artifact/")
    assert match.kwargs == {"run_id": 7}
    pattern = next(p for p in runs_urls.urlpatterns if p.name == "run-artifact")
    assert str(pattern.pattern) == "runs/<int:run_id>/artifact/"


def test_a_run_artifact_is_downloaded_by_its_run_id(research_run, signed_in):
    response = signed_in.get(f"/runs/{research_run.pk}/artifact/", {"path": "/etc/passwd"})

    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    assert body == Path(research_run.artifact_path).read_bytes()
    assert f'filename="rewind-run-{research_run.pk}.md"' in response["Content-Disposition"]


def test_path_tricks_in_the_url_do_not_resolve(research_run, signed_in):
    for path in (
        f"/runs/{research_run.pk}/artifact/../../../etc/passwd",
        f"/runs/{research_run.pk}/artifact/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/runs/..%2f..%2fetc%2fpasswd/artifact/",
    ):
        response = signed_in.get(path)
        assert response.status_code == 404, path
        assert b"root:" not in response.content


def outside_run(research_run: Run, artifact_path: str) -> Run:
    """A completed run whose recorded artifact path points somewhere else. Its recorded sha256
    is the true hash of that file, so only the directory check can keep the file private."""
    target = Path(artifact_path) if artifact_path else None
    digest = sha256_bytes(target.read_bytes()) if target and target.is_file() else "0" * 64
    return Run.objects.create(
        pipeline="research",
        status=Run.Status.COMPLETED,
        artifact_path=artifact_path,
        artifact_sha256=digest,
        root=research_run,
    )


WHERE = ["etc-passwd", "absolute-outside", "traversal", "symlink-out", "other-dir-prefix"]


def recorded_outside(where: str, research_run: Run, secret_file: Path, directory: Path) -> Run:
    """A completed run whose recorded artifact resolves outside the artifact directory."""
    if where == "etc-passwd":
        path = "/etc/passwd"
    elif where == "absolute-outside":
        path = str(secret_file)
    elif where == "traversal":
        path = str(directory / ".." / "outside" / "secret.txt")
    elif where == "other-dir-prefix":
        # A sibling whose name starts with the artifact dir's: a naive startswith() would pass.
        sibling = Path(str(directory) + "-evil")
        sibling.mkdir()
        (sibling / "x.md").write_text("TOP-SECRET-OUTSIDE-THE-ARTIFACT-DIR\n")
        path = str(sibling / "x.md")
    else:
        path = ""
    run = outside_run(research_run, path)
    if where == "symlink-out":
        os.symlink(secret_file, directory / f"{run.pk}.md")
        Run.objects.filter(pk=run.pk).update(
            artifact_path=str(directory / f"{run.pk}.md"),
            artifact_sha256=sha256_bytes(secret_file.read_bytes()),
        )
        run.refresh_from_db()
    return run


def leaks(text: str) -> bool:
    return "TOP-SECRET" in text or "root:x:0:0" in text


@pytest.mark.parametrize("where", WHERE)
def test_a_recorded_path_outside_the_artifact_dir_is_never_served(
    where, research_run, signed_in, secret_file, settings
):
    run = recorded_outside(where, research_run, secret_file, Path(settings.REWIND_ARTIFACT_DIR))

    download = signed_in.get(f"/runs/{run.pk}/artifact/")
    page = signed_in.get(f"/runs/{run.pk}/")

    assert download.status_code == 404
    assert not leaks(download.content.decode())
    assert page.status_code == 200
    assert not leaks(page.content.decode())


@pytest.mark.parametrize("where", WHERE)
def test_the_compare_page_never_shows_a_file_outside_the_artifact_dir(
    where, research_run, signed_in, secret_file, settings
):
    run = recorded_outside(where, research_run, secret_file, Path(settings.REWIND_ARTIFACT_DIR))

    compare = signed_in.get(f"/compare/{research_run.pk}/{run.pk}/")

    assert compare.status_code == 200
    assert not leaks(compare.content.decode())
