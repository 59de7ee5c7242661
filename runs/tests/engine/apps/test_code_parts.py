"""A step's code version sees what can change it, and says why it changed: a helper module the
action's module imports (transitively), a value passed with ``.bind()``, a module-level
constant, a class-based action's instance configuration — while the standard library and
installed distributions enter only as their versions, and an unchanged app never reports code
that did not change (Burr's haystack pattern: several instances of one action class).

The project is a temporary folder on sys.path holding ``app.py`` and ``helpers.py``; an edit
is what a person does: rewrite the file, import it again.
"""

from __future__ import annotations

import importlib
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from runs.engine.apps import registry, versions
from runs.engine.apps.versions import (
    OLD_REASON,
    app_version,
    changed_parts,
    check_version,
    code_parts,
    code_version,
    step_changes,
)
from runs.engine.errors import RewindError
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import Run

APP = "rewind_parts_app"
HELPERS = "rewind_parts_helpers"
DEEP = "rewind_parts_deep"

APP_TEXT = textwrap.dedent(
    f"""
    import json
    import os

    from burr.core import Action, ApplicationBuilder, State
    from burr.core.action import action

    import {HELPERS}

    LIMIT = 3
    UNUSED = "not read by any action"
    SEEN = {{}}  # filled while running: never an edit


    def _cut(text):
        return text[:LIMIT]


    @action(reads=[], writes=["word"])
    def shout(state: State, retries: int) -> State:
        SEEN["shout"] = SEEN.get("shout", 0) + 1
        return state.update(word={HELPERS}.loud(_cut("hello")) * retries)


    @action(reads=["word"], writes=["size"])
    def measure(state: State) -> State:
        return state.update(size=len(json.dumps(state["word"])) + len(os.sep))


    class Stage(Action):
        def __init__(self, mode, weight):
            super().__init__()
            self.mode = mode
            self.weight = weight

        @property
        def reads(self):
            return ["word"]

        @property
        def writes(self):
            return [f"out_{{self.mode}}"]

        def run(self, state):
            word = state["word"]
            value = word.lower() if self.mode == "low" else word[::-1] * self.weight
            return {{f"out_{{self.mode}}": value}}

        def update(self, result, state):
            return state.update(**result)


    def application():
        return (
            ApplicationBuilder()
            .with_actions(
                shout=shout.bind(retries=RETRIES),
                measure=measure,
                low=Stage("low", 1),
                back=Stage("back", 2),
                back_again=Stage("back", 3),
                low_again=Stage("low", 1),
            )
            .with_transitions(
                ("shout", "measure"), ("measure", "low"), ("low", "back"),
                ("back", "back_again"), ("back_again", "low_again"),
            )
            .with_entrypoint("shout")
            .build()
        )


    if __name__ == "__main__":  # how Burr's examples end: binds state, action, result
        action, result, state = application().run(halt_after=["low_again"])
        print(state)
    """
)
HELPERS_TEXT = textwrap.dedent(
    f"""
    import re

    from {DEEP} import twice


    def loud(text):
        return twice(re.sub("l", "L", text)).upper()
    """
)
DEEP_TEXT = "def twice(text):\n    return text + text\n"


def write(
    folder: Path, *, retries: int = 2, limit: int = 3, unused: str = "", deep: str = ""
) -> None:
    text = APP_TEXT.replace("RETRIES", str(retries)).replace("LIMIT = 3", f"LIMIT = {limit}")
    if unused:
        text = text.replace("not read by any action", unused)
    for name, content in ((APP, text), (HELPERS, HELPERS_TEXT), (DEEP, deep or DEEP_TEXT)):
        path = folder / f"{name}.py"
        if not path.exists() or path.read_text() != content:  # an edit touches one file
            path.write_text(content)
    shutil.rmtree(folder / "__pycache__", ignore_errors=True)


def reimport():
    for name in (APP, HELPERS, DEEP):
        sys.modules.pop(name, None)
    importlib.invalidate_caches()
    registry._load.cache_clear()
    return importlib.import_module(APP)


def actions(module) -> dict:
    return {a.name: a for a in module.application().graph.actions}


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    write(tmp_path)
    reimport()
    yield tmp_path
    reimport()
    for name in (APP, HELPERS, DEEP):
        sys.modules.pop(name, None)


# --- which parts a step has --------------------------------------------------------------


def test_a_helper_module_enters_by_its_text_and_libraries_by_their_version(project):
    parts = code_parts(actions(reimport())["shout"])

    assert {f"module:{HELPERS}.py", f"module:{DEEP}.py"} <= set(parts)  # transitively
    assert parts["bound:retries"] and parts["global:LIMIT"] and parts["global:_cut"]
    assert "global:UNUSED" not in parts and "global:SEEN" in parts
    modules = [p for p in parts if p.startswith("module:")]
    assert all(HELPERS in p or DEEP in p for p in modules), modules  # not re, json, burr
    assert parts["dist:python"] == f"{sys.version_info.major}.{sys.version_info.minor}." + str(
        sys.version_info.micro
    )
    assert any(p.startswith("dist:") and "burr" in p for p in parts), parts  # by version
    # measure reads json and os only: the standard library, no module part
    measured = code_parts(actions(reimport())["measure"])
    assert not [p for p in measured if p.startswith(("module:", "global:"))], measured


def test_a_parameter_named_like_a_script_variable_reads_nothing_of_the_module(project):
    """Every action's parameter ``state`` is its own, not the ``state`` the module's
    ``__main__`` block binds (a public app flagged every step on any edit so: ``state`` →
    ``application`` → every action)."""
    parts = {name: code_parts(a) for name, a in actions(reimport()).items()}

    assert not [p for p in parts["measure"] if p.startswith("global:")], parts["measure"]
    assert "global:state" not in parts["shout"] and "global:application" not in parts["shout"]
    assert {p for p in parts["shout"] if p.startswith("global:")} == {
        "global:LIMIT", "global:_cut", "global:SEEN",
    }  # fmt: skip


def test_editing_a_module_the_helper_imports_changes_the_version_and_names_the_file(project):
    before = actions(reimport())
    was = {name: (code_version(a), code_parts(a)) for name, a in before.items()}
    write(project, deep="def twice(text):\n    return text + ' ' + text\n")
    after = actions(reimport())

    version, parts = code_version(after["shout"]), code_parts(after["shout"])
    assert version != was["shout"][0]
    assert changed_parts(was["shout"][1], parts) == [f"{DEEP}.py changed"]
    assert code_version(after["measure"]) == was["measure"][0]  # it imports neither


def test_a_bound_value_a_constant_and_a_runtime_mutation(project):
    shout = actions(reimport())["shout"]
    base = code_parts(shout)

    sys.modules[APP].SEEN["shout"] = 7  # what running it does: a value, not an edit
    assert code_parts(actions(reimport())["shout"]) == base  # reimported, unedited

    write(project, retries=5)
    assert changed_parts(base, code_parts(actions(reimport())["shout"])) == [
        "bound value retries changed"
    ]
    write(project, limit=4)
    assert changed_parts(base, code_parts(actions(reimport())["shout"])) == [
        "module-level LIMIT changed"
    ]
    write(project, unused="an edit no action reads")
    assert code_parts(actions(reimport())["shout"]) == base


def test_instances_of_one_class_are_versioned_by_their_configuration(project):
    found = actions(reimport())
    low, back, back_again, low_again = (
        found[n] for n in ("low", "back", "back_again", "low_again")
    )
    assert code_version(low) != code_version(back) != code_version(back_again)
    assert code_version(low) == code_version(low_again)  # the same configuration
    assert changed_parts(code_parts(back), code_parts(back_again)) == [
        "instance attribute weight changed"
    ]
    assert changed_parts(code_parts(low), code_parts(back)) == [
        "instance attribute mode changed",
        "instance attribute weight changed",
    ]
    # Burr's own bookkeeping (a name, the state a single-step action created) is not config.
    assert not [p for p in code_parts(low) if p in ("instance:_name", "instance:_state_created")]


def test_a_step_recorded_before_parts_were_kept_is_compared_by_its_source():
    parts = {"action": "a" * 64, "bound:x": "1"}
    version = versions.version_of(parts)
    assert step_changes("a" * 64, {}, version, parts) == []
    assert step_changes("b" * 64, {}, version, parts) == [OLD_REASON]
    assert step_changes("b" * 64, None, "c" * 64, None) == [OLD_REASON]
    assert step_changes("", {}, version, parts) == []  # unknown: never called a change
    assert changed_parts({"dist:openai": "2.1.0"}, {"dist:openai": "2.2.0"}) == [
        "openai 2.1.0 → 2.2.0"
    ]


def test_the_app_version_files_and_refusal_name_a_helper_edit(project):
    module = reimport()
    app = module.application()
    wanted = app_version(app, commit=False)
    files = {Path(f).name for f in wanted.files}
    assert {f"{APP}.py", f"{HELPERS}.py", f"{DEEP}.py"} <= files
    assert wanted.parts["shout/bound:retries"] and f"module:{DEEP}.py" in wanted.parts

    versions.remember_files("parts_app", app)
    write(project, deep="def twice(text):\n    return text * 3\n")
    assert [Path(p).name for p in versions.stale_files("parts_app")] == [f"{DEEP}.py"]
    with pytest.raises(RewindError, match=f"before {DEEP}.py was edited"):
        check_version("parts_app", app, wanted.version, wanted.parts)

    versions._loaded.pop("parts_app")  # a fresh process: it loads the edited code
    edited = reimport().application()
    with pytest.raises(RewindError, match=rf"\({DEEP}.py changed\)"):
        check_version("parts_app", edited, wanted.version, wanted.parts)


# --- end to end: recorded, edited, replayed -------------------------------------------------


@pytest.fixture
def registered(project, rewind_settings, db):
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "parts": f"{APP}.application",
    }
    registry._load.cache_clear()
    yield project
    registry._load.cache_clear()


def record() -> Run:
    source = execute_run(create_run("parts", {}).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    return source


def test_an_unchanged_replay_of_several_instances_of_one_class_reports_no_code_change(registered):
    source = record()
    reimport()  # imported again, not edited
    replay = execute_run(create_replay(source).pk)
    verdict = replay_verdict(source, replay)
    assert verdict.verdict == "identical", verdict
    assert verdict.code_changed == []
    assert not replay.nodes.filter(code_changed=True).exists()
    parts = dict(replay.nodes.values_list("name", "code_parts"))
    assert parts["back"]["instance:weight"] != parts["back_again"]["instance:weight"]


def test_a_bind_edit_is_named_in_the_replays_code_changed(registered):
    source = record()
    write(registered, retries=3)
    reimport()
    replay = execute_run(create_replay(source).pk)
    verdict = replay_verdict(source, replay)
    assert replay.status == Run.Status.COMPLETED, replay.error
    assert verdict.code_changed == [
        {"node": "shout", "sequence_id": 0, "why": ["bound value retries changed"]}
    ]
    assert verdict.nondeterministic == []
    assert replay.nodes.get(name="shout").code_changed is True
    assert replay.nodes.get(name="measure").code_changed is False


def test_a_helper_edit_is_named_in_the_replays_code_changed(registered):
    source = record()
    write(registered, deep="def twice(text):\n    return text + '-' + text\n")
    reimport()
    replay = execute_run(create_replay(source).pk)
    verdict = replay_verdict(source, replay)
    assert verdict.code_changed == [
        {"node": "shout", "sequence_id": 0, "why": [f"{DEEP}.py changed"]}
    ]
