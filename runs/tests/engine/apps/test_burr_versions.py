"""Every apache-burr release, not one (issue 16, item 16).

The requirement admits every release from the first (0.42) with no upper bound, so the next one
installs the day it is out; ``.ci/run`` runs the Burr-app tests on the newest release (the main
suites' fresh ``.venv``) and again on the oldest this bound admits (``REWIND_EXPECT_BURR`` names
the release series that environment must hold, ``0.42``: the test below fails if it does not).

apache-burr checks, when an action is defined, that it declares every state key its function
reads (0.42 and 0.43 alike; the old ``burr`` package, 0.40, did not). An app written for 0.40
that reads an undeclared key — Burr's own ``recursive`` example — cannot be imported under
apache-burr, by its own program either: Rewind says so with Burr's own message, what to do,
and no traceback.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import sys
import tomllib
from pathlib import Path

import burr
import pytest
from django.core.management import CommandError, call_command
from django.core.management.base import SystemCheckError
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from runs import system_checks
from runs.engine.apps import registry
from runs.engine.errors import PipelineError
from runs.models import Run

PROJECT = Path(__file__).resolve().parents[4]
UNDECLARED = "runs.tests.helpers.undeclared_read_app"


def burr_requirement() -> Requirement:
    data = tomllib.loads((PROJECT / "pyproject.toml").read_text())
    found = [Requirement(r) for r in data["project"]["dependencies"]]
    return next(r for r in found if r.name == "apache-burr")


def test_the_requirement_admits_every_apache_burr_release_from_the_first():
    specifier = burr_requirement().specifier

    for release in ("0.42.0", "0.42.1", "0.43.0", "0.44.0", "0.45.2", "1.0.0"):
        assert specifier.contains(release), release
    assert not specifier.contains("0.41.0") and not specifier.contains("0.40.2")


def test_the_installed_release_is_one_the_requirement_admits():
    installed = importlib.metadata.version("apache-burr")

    assert burr_requirement().specifier.contains(installed)
    assert Version(installed) >= Version("0.42")


def test_the_installed_release_is_the_one_ci_asked_for():
    expected = os.environ.get("REWIND_EXPECT_BURR")
    if not expected:
        pytest.skip("REWIND_EXPECT_BURR is not set (.ci/run sets it for the oldest release)")

    installed = importlib.metadata.version("apache-burr")
    assert SpecifierSet(f"=={expected}.*").contains(installed), (installed, expected)
    # …and the module imported is that distribution's, not another one earlier on the path.
    files = importlib.metadata.distribution("apache-burr").locate_file("burr/__init__.py")
    assert Path(burr.__file__).resolve() == Path(files).resolve()


def test_the_old_burr_package_is_not_installed_beside_apache_burr():
    # burr 0.40.x and apache-burr write the same files: one environment holds one of them. The
    # burr 0.42 stub (which only requires apache-burr) is fine.
    try:
        old = importlib.metadata.version("burr")
    except importlib.metadata.PackageNotFoundError:
        return
    assert Version(old) >= Version("0.42"), f"burr {old} is installed beside apache-burr"


# --- an app written for burr 0.40 --------------------------------------------------------------


@pytest.fixture
def undeclared(rewind_settings, db):
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "poems": f"{UNDECLARED}.application",
    }
    registry._load.cache_clear()
    sys.modules.pop(UNDECLARED, None)
    yield
    registry._load.cache_clear()
    sys.modules.pop(UNDECLARED, None)


def burr_alone_says() -> str:
    """What importing the app says without Rewind: plain Python, plain Burr."""
    sys.modules.pop(UNDECLARED, None)
    with pytest.raises(ValueError) as raised:
        importlib.import_module(UNDECLARED)
    return str(raised.value)


def test_burr_alone_refuses_the_app_when_it_is_defined(undeclared):
    assert burr_alone_says().startswith("Action reads undeclared state keys: ['poem_types']")


def test_rewind_refuses_it_with_burrs_own_message_and_what_to_do(undeclared):
    message = burr_alone_says()

    with pytest.raises(PipelineError) as raised:
        registry.get_pipeline("poems")

    text = str(raised.value)
    assert text.startswith(f"pipeline 'poems' cannot be imported from {UNDECLARED}.application")
    assert f"ValueError: {message}" in text
    assert "add the keys to its reads=[...]" in text


def test_rewind_run_fails_in_one_line_naming_the_key(undeclared):
    with pytest.raises(CommandError) as raised:
        call_command("rewind_run", "--pipeline", "poems", "--json")

    text = str(raised.value)
    assert "\n" not in text
    assert "Action reads undeclared state keys: ['poem_types']" in text


def test_the_new_run_form_says_why_and_starts_nothing(undeclared, signed_in):
    response = signed_in.post("/runs/new/", {"pipeline": "poems"})

    assert response.status_code == 400
    text = response.content.decode()
    assert "Action reads undeclared state keys: [&#x27;poem_types&#x27;]" in text
    assert not Run.objects.exists()


# --- the system check ---------------------------------------------------------------------------


def installed(versions: dict[str, str]):
    def version(name: str) -> str:
        if name not in versions:
            raise importlib.metadata.PackageNotFoundError(name)
        return versions[name]

    return version


def test_the_check_passes_on_this_environment():
    assert system_checks.burr_release() == []


@pytest.mark.parametrize(
    ("versions", "ids"),
    [
        ({"apache-burr": "0.42.0"}, []),
        ({"apache-burr": "0.43.0", "burr": "0.42.0"}, []),  # the stub that requires apache-burr
        ({"apache-burr": "0.44.0rc1"}, []),
        ({"apache-burr": "0.43.0", "burr": "0.40.2"}, ["rewind.E001"]),
        ({"burr": "0.40.2"}, ["rewind.E001", "rewind.E002"]),
        ({"apache-burr": "0.0.1"}, ["rewind.E002"]),
    ],
)
def test_the_check_refuses_the_old_burr_package_beside_apache_burr(monkeypatch, versions, ids):
    monkeypatch.setattr(system_checks.importlib.metadata, "version", installed(versions))

    errors = system_checks.burr_release()

    assert [e.id for e in errors] == ids
    if "rewind.E001" in ids:
        assert (
            "burr package (0.40.2)" in errors[0].msg and "pip uninstall -y burr" in errors[0].hint
        )


@pytest.mark.django_db  # check runs the model checks too; a JSONField's asks the database
def test_manage_py_check_reports_it(monkeypatch):
    monkeypatch.setattr(
        system_checks.importlib.metadata,
        "version",
        installed({"apache-burr": "0.43.0", "burr": "0.40.2"}),
    )

    with pytest.raises(SystemCheckError, match="rewind.E001"):
        call_command("check")
