"""The code version of a step: a hash of its action's source, as Burr holds it
(``Action.get_source()``: the function of an ``@action``, the class of an ``Action``).

A replay whose action's source differs from its source step's is a replay of other code: a
different output there is the edit, not chance, and is named "code changed" rather than
non-deterministic (``runs.engine.analysis.diff``, ``forking.replays``). The hash is taken
once per function or class in a process — reading a source costs a file read and a parse —
so a step pays a dictionary lookup.

``app_version`` is the version of a whole app, what a regression replay (``rewind_regress``)
runs: every action's version and the text of the files that hold them, with the git commit when
they live in a work tree; ``stale_files`` says when the files changed on disk after this process
loaded them (the registry calls ``remember_files``), so a worker never runs old code as new.
"""

from __future__ import annotations

import inspect
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runs.lib.hashing import sha256_text

_versions: dict[int, tuple[Any, str]] = {}  # id(code or class) → (it, its version)
VERSIONS_KEPT = 10_000


def code_version(action: Any) -> str:
    """The sha256 of ``action``'s source, or "" when it has none (code made at run time)."""
    held = _held(action)
    known = _versions.get(id(held))
    if known is not None and known[0] is held:
        return known[1]
    version = _hash(action)
    if len(_versions) >= VERSIONS_KEPT:  # modules imported again and again: start afresh
        _versions.clear()
    _versions[id(held)] = (held, version)
    return version


def namespace(action: Any) -> dict[str, Any] | None:
    """The globals of the module ``action``'s code is written in (its function's, its
    class's module), or None."""
    function = _function(action)
    if function is not None:
        return getattr(function, "__globals__", None)
    module = inspect.getmodule(type(action))
    return vars(module) if module is not None else None


def _function(action: Any) -> Any:
    """The user's function a function-based action holds (unwrapped), or None."""
    function = getattr(action, "_originating_fn", None) or getattr(action, "fn", None)
    if function is None:
        return None
    function = getattr(function, "func", function)  # a functools.partial
    try:
        return inspect.unwrap(function)
    except ValueError:
        return function


def _held(action: Any) -> Any:
    """What a version is kept by: a declared node's spec, the function's code object, else
    the action's class."""
    spec = getattr(action, "spec", None)
    if spec is not None:
        return spec
    function = _function(action)
    code = getattr(function, "__code__", None)
    return code if code is not None else type(action)


def _hash(action: Any) -> str:
    spec = getattr(action, "spec", None)  # a declared node: the functions its spec holds
    if spec is not None:
        parts = [getattr(spec, name, None) for name in ("prompt", "run", "parse")]
        text = "\n".join(_source(p) for p in parts if callable(p))
        text += f"\n{getattr(spec, 'name', '')}@{getattr(spec, 'version', '')}"
    elif callable(getattr(action, "get_source", None)):
        try:
            text = action.get_source()
        except Exception:  # noqa: BLE001 — no source is "unknown", never a failed step
            return ""
    else:
        text = _source(_function(action) or type(action))
    if not text or text == "No source available":
        return ""
    return sha256_text(text)


def _source(function: Any) -> str:
    try:
        return inspect.getsource(function)
    except Exception:  # noqa: BLE001 — as above
        return ""


# --- the version of a whole app (regression replays) -------------------------------------


@dataclass(frozen=True)
class AppVersion:
    """The code a regression replay runs: ``version``, the sha256 of every action's source and
    of the text of the files that hold them (a prompt template kept beside the action counts);
    ``commit``, the git commit of those files with "+dirty" when they differ from it ("" out of
    a work tree); ``files``, the files read."""

    version: str
    commit: str = ""
    files: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        short = self.version[:12]
        return f"{short} (git {self.commit})" if self.commit else short


def app_actions(app: Any) -> list[tuple[str, Any]]:
    """(name, action) of every step ``app`` can run: a Burr app's own actions; for a declared
    pipeline, an object holding each node's spec (what ``code_version`` hashes for it)."""
    graph = getattr(app, "graph", None)
    if graph is not None:
        return sorted(((a.name, a) for a in graph.actions), key=lambda pair: pair[0])
    return sorted(((n.name, _Declared(n)) for n in app.nodes), key=lambda pair: pair[0])


@dataclass(frozen=True)
class _Declared:
    spec: Any


def node_version(spec: Any) -> str:
    """The code version of a declared node (its spec's functions, name and version): what
    ``code_version`` gives its step."""
    return code_version(_Declared(spec))


def app_files(app: Any) -> list[Path]:
    """The source files of ``app``'s actions and of the module it is registered from."""
    found: dict[str, Path] = {}
    holders: list[Any] = [inspect.getmodule(app)] if not hasattr(app, "graph") else []
    source = getattr(app, "source", "")  # a Burr app's dotted path: the module that built it
    if source:
        holders.append(sys.modules.get(source.rpartition(".")[0]))
    for _, action in app_actions(app):
        spec = getattr(action, "spec", None)
        if spec is not None:
            holders += [getattr(spec, n, None) for n in ("prompt", "run", "parse")]
        else:
            holders.append(_function(action) or type(action))
    for holder in holders:
        if holder is None:
            continue
        try:
            name = inspect.getsourcefile(holder)
        except TypeError:  # a built-in, a class made at run time
            continue
        if name and Path(name).is_file():
            found.setdefault(str(Path(name).resolve()), Path(name).resolve())
    return [found[key] for key in sorted(found)]


def app_version(app: Any, *, commit: bool = True) -> AppVersion:
    """The version of ``app``'s code as this process would run it (see ``stale_files``);
    ``commit=False``: without asking git (a worker checking the version it was given)."""
    lines = [f"{name}:{code_version(action)}" for name, action in app_actions(app)]
    files = app_files(app)
    for path in files:
        try:
            lines.append(f"{path.name}:{sha256_text(path.read_text(errors='replace'))}")
        except OSError:
            lines.append(f"{path.name}:unreadable")
    found = _commit(files) if commit else ""
    return AppVersion(sha256_text("\n".join(lines)), found, tuple(map(str, files)))


_loaded: dict[str, dict[str, tuple[int, int]]] = {}  # app name → file → (mtime_ns, size)


def remember_files(name: str, app: Any) -> None:
    """Note the files of ``app`` as they are when this process loads it (the registry)."""
    _loaded[name] = {str(p): _stat(p) for p in app_files(app)}


def stale_files(name: str) -> list[str]:
    """Files of app ``name`` changed on disk since this process loaded it: the code it runs is
    not the code there (a long-lived worker or server after an edit)."""
    return [path for path, seen in (_loaded.get(name) or {}).items() if _stat(Path(path)) != seen]


def _stat(path: Path) -> tuple[int, int]:
    try:
        found = path.stat()
    except OSError:
        return (0, -1)
    return (found.st_mtime_ns, found.st_size)


def _commit(files: list[Path]) -> str:
    """The git commit of ``files`` when they share one work tree ("+dirty" when any differs
    from it), else "". git is asked with a short timeout; no git is no commit."""
    if not files:
        return ""
    git = shutil.which("git")
    if git is None:
        return ""
    where = str(files[0].parent)
    try:
        head = subprocess.run(
            [git, "-C", where, "rev-parse", "--short=12", "HEAD"],
            capture_output=True, text=True, timeout=5, check=False,
        )  # fmt: skip
        if head.returncode != 0 or not head.stdout.strip():
            return ""
        status = subprocess.run(
            [git, "-C", where, "status", "--porcelain", "--", *map(str, files)],
            capture_output=True, text=True, timeout=5, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return ""
    dirty = status.returncode != 0 or bool(status.stdout.strip())
    return head.stdout.strip() + ("+dirty" if dirty else "")


def check_version(name: str, app: Any, wanted: str) -> None:
    """Refuse (``RewindError``) to run app ``name`` for a regression replay of the code at
    ``wanted`` when this process would run other code: its files changed on disk since it
    loaded them, or its version differs (another machine's checkout, another commit)."""
    from runs.engine.errors import RewindError

    stale = stale_files(name)
    if stale:
        raise RewindError(
            f"this process loaded the {name} app before {Path(stale[0]).name} was edited, so it "
            "would run the old code: restart it (the worker or `rewind serve`) and ask again"
        )
    mine = app_version(app, commit=False).version
    if mine != wanted:
        raise RewindError(
            f"this process runs the {name} app's code at {mine[:12]}, not {wanted[:12]} as the "
            "regression replay asked: every worker must run the code being checked (deploy it "
            "to them, or run rewind_regress without workers)"
        )
