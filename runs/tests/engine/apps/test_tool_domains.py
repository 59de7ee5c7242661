"""Issue 7, findings 1 and 2: a tool argument is checked against the domain its node declares
before anything is written — a file argument must be a regular file inside the data
directory (no escape, no device, under a size cap), a number within its bounds, a choice one
of its choices — from the command line, the fork editor and the JSON API alike. The message
names the argument and the allowed directory and never shows a path outside it."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.engine.errors import InputError
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.models import Edge, LLMCacheEntry, Node, Run, ToolCacheEntry

pytestmark = pytest.mark.django_db

RESEARCH, ANALYSE, VERIFY = "research", "analyse", "verify"
SECRET = "top-secret-content-outside-the-data-dir"


@pytest.fixture
def data_dir(rewind_settings, tmp_path) -> Path:
    """A data directory of the test's own, with the demo files, a secret beside it (outside)
    and a symlink inside it that leads to the secret."""
    data = tmp_path / "data"
    data.mkdir()
    source = Path(__file__).resolve().parents[4] / "data"
    for name in ("outreach.csv", "outreach.json"):
        shutil.copy(source / name, data / name)
    (tmp_path / "secret.json").write_text(json.dumps({"title": SECRET}))
    (data / "escape.json").symlink_to(tmp_path / "secret.json")
    (data / "escape.csv").symlink_to(tmp_path / "secret.json")
    rewind_settings.REWIND_DATA_DIR = data
    return data


@pytest.fixture
def source(data_dir) -> Run:
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.COMPLETED, run.error
    return run


def counts() -> tuple[int, ...]:
    return tuple(
        model.objects.count() for model in (Run, Node, Edge, LLMCacheEntry, ToolCacheEntry)
    )


def refused(source: Run, node: str, setting: str) -> str:
    """``rewind_fork SOURCE --node NODE --set SETTING``: the one-line error; nothing written."""
    before = counts()
    with pytest.raises(CommandError) as caught:
        call_command(
            "rewind_fork", str(source.pk), "--node", node, "--set", setting,
            stdout=io.StringIO(), stderr=io.StringIO(),
        )  # fmt: skip
    assert counts() == before
    message = str(caught.value)
    assert "\n" not in message
    assert SECRET not in message
    return message


@pytest.mark.parametrize(
    ("node", "setting"),
    [
        (RESEARCH, "args.metadata={secret}"),  # an absolute path outside: read and shown before
        (RESEARCH, "args.metadata=../secret.json"),
        (RESEARCH, "args.dataset=../../../../../../etc/passwd"),
        (RESEARCH, "args.metadata=escape.json"),  # a symlink inside that leads outside
        (ANALYSE, "args.dataset=escape.csv"),
        (ANALYSE, "args.dataset=/dev/zero"),  # ran until the worker died of memory
        (ANALYSE, "args.dataset=missing.csv"),
        (ANALYSE, "args.dataset=outreach.json"),  # the wrong kind of file
        (ANALYSE, "args.dataset=."),
        (VERIFY, "args.dataset=/etc/passwd"),
    ],
)
def test_a_file_argument_outside_the_data_directory_is_refused(source, tmp_path, node, setting):
    setting = setting.format(secret=tmp_path / "secret.json")
    name = setting.split("=", 1)[0]

    message = refused(source, node, setting)

    assert message.startswith(f"{name}: must name a regular file inside the data directory")
    # The allowed directory is named; no absolute path outside it is.
    assert str(tmp_path / "data") in message
    for outside in ("/etc", "/dev", str(tmp_path / "secret")):
        assert outside not in message


def test_the_data_directory_inside_the_project_is_named_relative_to_it(
    rewind_settings, research_run
):
    message = refused(research_run, ANALYSE, "args.dataset=../../etc/passwd")

    assert "inside the data directory data/" in message
    assert "/work" not in message and "/etc" not in message


def test_a_file_over_the_size_cap_is_refused(source, data_dir, rewind_settings):
    (data_dir / "big.csv").write_bytes(b"x" * 2048)
    rewind_settings.REWIND_DATA_FILE_MAX_BYTES = 1024

    message = refused(source, ANALYSE, "args.dataset=big.csv")

    assert "at most 1024 bytes (REWIND_DATA_FILE_MAX_BYTES)" in message


def test_another_file_inside_the_data_directory_is_allowed_and_hashed_into_the_key(
    source, data_dir
):
    shutil.copy(data_dir / "outreach.csv", data_dir / "copy.csv")
    fork = execute_run(create_fork(source, ANALYSE, "args.dataset", "copy.csv").pk)

    assert fork.status == Run.Status.COMPLETED, fork.error
    analyse = fork.nodes.get(name=ANALYSE)
    assert analyse.cache_source == "live"  # another file name: another key
    assert set(analyse.inputs["data_sha256"]) == {"outreach.csv", "copy.csv"}
    # Same bytes, so the numbers and everything after them are unchanged.
    assert analyse.output == source.nodes.get(name=ANALYSE).output


def test_a_file_swapped_for_a_symlink_after_the_fork_was_made_is_refused_when_read(
    source, data_dir, tmp_path
):
    shutil.copy(data_dir / "outreach.csv", data_dir / "swap.csv")
    fork = create_fork(source, ANALYSE, "args.dataset", "swap.csv")
    (data_dir / "swap.csv").unlink()
    (data_dir / "swap.csv").symlink_to(tmp_path / "secret.json")

    fork = execute_run(fork.pk)

    assert fork.status == Run.Status.FAILED
    assert "args.dataset: must name a regular file inside the data directory" in fork.error
    assert SECRET not in fork.error
    assert SECRET not in json.dumps([(n.output, n.error, n.raw_output) for n in fork.nodes.all()])


@pytest.mark.parametrize(
    ("node", "setting", "says"),
    [
        (ANALYSE, "args.cost_scale=-3", "args.cost_scale: must be a number > 0 and ≤ 1000.0"),
        (ANALYSE, "args.cost_scale=0", "args.cost_scale: must be a number > 0"),
        (ANALYSE, "args.cost_scale=1e9", "args.cost_scale: must be a number > 0 and ≤ 1000.0"),
        (ANALYSE, "args.region=mars", "args.region: must be one of 'all', 'east', 'north'"),
        (RESEARCH, "args.region=mars", "args.region: must be one of"),
        (ANALYSE, "args.min_contacts=-5", "args.min_contacts: must be an integer ≥ 1 and ≤ 8"),
        (ANALYSE, "args.min_contacts=9", "args.min_contacts: must be an integer ≥ 1 and ≤ 8"),
        (ANALYSE, "output=null", "output: expected an object like the output the tool computed"),
        (ANALYSE, 'output={"groups": {}}', "output: an analysis needs 'params'"),
        (RESEARCH, "output=[]", "output: expected an object"),
        (VERIFY, "args.reported={}", "cannot take an override of 'args.reported'"),
    ],
)
def test_a_value_outside_the_domain_is_refused_before_anything_is_written(
    research_run, node, setting, says
):
    assert says in refused(research_run, node, setting)


@pytest.mark.parametrize(
    "setting",
    ["args.cost_scale=0.5", "args.region=east", "args.min_contacts=8", "args.cost_scale=1000"],
)
def test_a_value_inside_the_domain_runs_to_the_end(research_run, setting):
    field, value = setting.split("=")
    fork = execute_run(create_fork(research_run, ANALYSE, field, value).pk)

    assert fork.status == Run.Status.COMPLETED, fork.error


def test_the_json_api_checks_the_same_domains(signed_in, research_run):
    before = counts()
    for field, value in [
        ("args.cost_scale", -3),
        ("args.region", "mars"),
        ("args.min_contacts", -5),
        ("args.dataset", "/etc/passwd"),
        ("output", None),
    ]:
        response = signed_in.post(
            f"/api/runs/{research_run.pk}/forks",
            {"node": ANALYSE, "field": field, "value": value},
            content_type="application/json",
        )
        assert response.status_code == 400, (field, response.content)
        assert response.json()["error"].startswith(f"{field}: "), response.json()
        assert "/etc" not in response.content.decode()
    assert counts() == before


def test_the_fork_editor_checks_the_same_domains(signed_in, research_run):
    step = research_run.nodes.get(name=ANALYSE).sequence_id
    before = counts()
    for field, value in [
        ("args.cost_scale", "-3"),
        ("args.region", "mars"),
        ("args.dataset", "../../etc/passwd"),
    ]:
        response = signed_in.post(
            f"/runs/{research_run.pk}/nodes/{step}/fork/", {field: value}, HTTP_HX_REQUEST="true"
        )
        assert response.status_code == 400
        text = response.content.decode()
        assert f"{field}: " in text and "/etc" not in text
    assert counts() == before


def test_a_new_run_input_outside_its_domain_is_refused(rewind_settings):
    before = counts()
    with pytest.raises(InputError, match="input region: must be one of 'all', 'east'"):
        create_run("research", {"region": "mars"})
    assert counts() == before
