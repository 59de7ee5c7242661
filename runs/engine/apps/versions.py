"""The code version of a step: a sha256 over the named parts of what can change it
(``code_parts``: the action's source as Burr holds it, the top-level definitions of its module
it reads, its ``.bind()`` values, a class-based action's instance attributes, the text of every
project module it imports, transitively, and the versions of the distributions it reads).

A replay whose step's version differs from its source step's is a replay of other code: a
different output there is the edit, not chance, and is named "code changed" rather than
non-deterministic (``runs.engine.analysis.diff``, ``forking.replays``); ``changed_parts`` says
why ("helpers.py changed", "bound value retries changed"). An action's parts are kept with the
stats of the files they were read from, so a step pays a few ``stat`` calls.

``app_version`` is the version of a whole app, what a regression replay (``rewind_regress``)
runs: every action's version and the text of the files that hold them and that they import,
with the git commit when they live in a work tree; ``stale_files`` says when the files changed
on disk after this process loaded them (the registry calls ``remember_files``), so a worker
never runs old code as new.
"""

from __future__ import annotations

import inspect
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runs.engine.apps import code_parts as parts_of
from runs.lib.hashing import sha256_text

# id(action) → (it, its parts, the files they were read from with their stats)
_kept: dict[int, tuple[Any, dict[str, str], dict[str, tuple[int, int]]]] = {}
VERSIONS_KEPT = 10_000
OLD_REASON = "the code changed (recorded before parts were kept)"


def code_version(action: Any) -> str:
    """The sha256 of ``action``'s parts, or "" when it has no source (code made at run
    time)."""
    return version_of(code_parts(action))


def version_of(parts: dict[str, str]) -> str:
    """The version ``parts`` make ("" when the action's source is unknown)."""
    if not parts.get("action"):
        return ""
    return sha256_text("\n".join(f"{name}={value}" for name, value in sorted(parts.items())))


def code_parts(action: Any) -> dict[str, str]:
    """``action``'s parts, part name → short hash (a distribution's: its version)."""
    return _gathered(action)[0]


def _gathered(action: Any) -> tuple[dict[str, str], dict[str, tuple[int, int]]]:
    key = getattr(action, "spec", None) or action  # a declared node: kept by its spec
    known = _kept.get(id(key))
    if known is not None and known[0] is key:
        if all(parts_of.stat(path) == seen for path, seen in known[2].items()):
            return known[1], known[2]
    source = _source_hash(action)
    spec = getattr(action, "spec", None)
    if spec is not None:
        definitions = [getattr(spec, n, None) for n in ("prompt", "run", "parse")]
        definitions = [d for d in definitions if callable(d)]
        instance: dict[str, Any] = {}
    else:
        function = _function(action)
        definitions = [function if function is not None else type(action)]
        instance = {} if function is not None else _instance(action)
    bound = dict(getattr(action, "_bound_params", None) or {})
    parts, files = parts_of.gather(source, definitions, bound, instance)
    if len(_kept) >= VERSIONS_KEPT:  # apps built again and again: start afresh
        _kept.clear()
    _kept[id(key)] = (key, parts, files)
    return parts, files


_sources: dict[int, tuple[Any, str]] = {}  # id(code object, class or spec) → (it, hash)


def _source_hash(action: Any) -> str:
    """``_hash``, once per function's code object, class or spec in a process (reading a
    source costs a file read and a parse): a new instance of a known action pays a lookup."""
    held = getattr(action, "spec", None)
    if held is None:
        function = _function(action)
        held = getattr(function, "__code__", None) or type(action)
        own = getattr(getattr(type(action), "get_source", None), "__module__", "burr.core.action")
        if function is None and own != "burr.core.action":
            return _hash(action)  # its own get_source may say something per instance
    known = _sources.get(id(held))
    if known is not None and known[0] is held:
        return known[1]
    found = _hash(action)
    if len(_sources) >= VERSIONS_KEPT:
        _sources.clear()
    _sources[id(held)] = (held, found)
    return found


def _instance(action: Any) -> dict[str, Any]:
    """A class-based action's own attributes: its configuration (Burr's are left out)."""
    found = getattr(action, "__dict__", None) or {}
    return {k: v for k, v in found.items() if k not in parts_of.SKIPPED_ATTRIBUTES}


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
    return sha256_text(text)  # in full: a source recorded before parts were kept is this


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
    a work tree); ``files``, the files read; ``parts``, its steps' parts (``<action>/<part>``,
    except ``module:`` and ``dist:`` parts, which are the app's)."""

    version: str
    commit: str = ""
    files: tuple[str, ...] = ()
    parts: dict[str, str] = field(default_factory=dict, compare=False)

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


def node_parts(spec: Any) -> dict[str, str]:
    """The parts of a declared node's code version (``node_version``)."""
    return code_parts(_Declared(spec))


def node_version(spec: Any) -> str:
    """The code version of a declared node (its spec's functions, name and version): what
    ``code_version`` gives its step."""
    return code_version(_Declared(spec))


def app_files(app: Any) -> list[Path]:
    """The source files of ``app``'s actions, of the project modules they import
    (transitively) and of the module it is registered from."""
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
        for path in _gathered(action)[1]:
            found.setdefault(path, Path(path))
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


def app_parts(app: Any) -> dict[str, str]:
    """The union of ``app``'s steps' parts: ``<action>/<part>`` for what is the action's own,
    ``module:`` and ``dist:`` parts as they are."""
    union: dict[str, str] = {}
    for name, action in app_actions(app):
        for part, value in code_parts(action).items():
            shared = part.startswith(("module:", "dist:"))
            union[part if shared else f"{name}/{part}"] = value
    return union


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
    return AppVersion(sha256_text("\n".join(lines)), found, tuple(map(str, files)), app_parts(app))


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


def check_version(
    name: str, app: Any, wanted: str, wanted_parts: dict[str, str] | None = None
) -> None:
    """Refuse (``RewindError``) to run app ``name`` for a regression replay of the code at
    ``wanted`` when this process would run other code: its files changed on disk since it
    loaded them, or its version differs (another machine's checkout, another commit) — naming
    what changed when ``wanted_parts`` (``AppVersion.parts``, ``Batch.code_parts``) is given."""
    from runs.engine.errors import RewindError

    stale = stale_files(name)
    if stale:
        raise RewindError(
            f"this process loaded the {name} app before {Path(stale[0]).name} was edited, so it "
            "would run the old code: restart it (the worker or `rewind serve`) and ask again"
        )
    mine = app_version(app, commit=False)
    if mine.version != wanted:
        why = changed_parts(wanted_parts, mine.parts) if wanted_parts else []
        said = f" ({'; '.join(why)})" if why else ""
        raise RewindError(
            f"this process runs the {name} app's code at {mine.version[:12]}, not {wanted[:12]} "
            f"as the regression replay asked{said}: every worker must run the code being "
            "checked (deploy it to them, or run rewind_regress without workers)"
        )


# --- why a version changed -----------------------------------------------------------------

_ORDER = ("action", "global:", "bound:", "instance:", "module:", "dist:")


def changed_parts(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """What differs between two sets of parts, as people read it: "helpers.py changed",
    "bound value retries changed", "the action's source changed", "instance attribute mode
    changed", "openai 2.1.0 → 2.2.0" (an app's parts: "tally: ..." for a step's own)."""
    names = [n for n in {**before, **after} if before.get(n) != after.get(n)]
    names.sort(key=lambda n: (_rank(n.rpartition("/")[2]), n))
    return list(dict.fromkeys(_reason(n, before.get(n), after.get(n)) for n in names))


def _rank(part: str) -> int:
    return next((i for i, prefix in enumerate(_ORDER) if part.startswith(prefix)), len(_ORDER))


def _reason(name: str, before: str | None, after: str | None) -> str:
    step, _, part = name.rpartition("/")
    kind, _, what = part.partition(":")
    if kind == "dist":
        label = "Python" if what == "python" else what
        said = (
            f"{label} {before} → {after}" if before and after
            else f"{label} {after} is now read" if after
            else f"{label} is no longer read"
        )  # fmt: skip
    elif kind == "module":
        said = (
            f"{what} changed"
            if before and after
            else (f"{what} is now imported" if after else f"{what} is no longer imported")
        )
    elif kind == "bound":
        said = f"bound value {what} changed"
    elif kind == "instance":
        said = f"instance attribute {what} changed"
    elif kind == "global":
        said = f"module-level {what} changed"
    else:
        said = "the action's source changed"
    return f"{step}: {said}" if step else said


def step_changes(
    before_version: str,
    before_parts: dict[str, str] | None,
    after_version: str,
    after_parts: dict[str, str] | None,
) -> list[str]:
    """Why a step's code differs from the one it re-executes ([] when it does not, or when
    either version is unknown). A step recorded before parts were kept has its action's
    source hash for a version: it is compared with the other's ``action`` part."""
    if not before_version or not after_version:
        return []
    if before_parts and after_parts:
        if before_version == after_version:
            return []
        return changed_parts(before_parts, after_parts) or [OLD_REASON]
    if after_parts and not before_parts:
        return [] if before_version == after_parts.get("action") else [OLD_REASON]
    if before_parts and not after_parts:
        return [] if after_version == before_parts.get("action") else [OLD_REASON]
    return [] if before_version == after_version else [OLD_REASON]
