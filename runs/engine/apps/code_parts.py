"""What a step's code version is made of: named parts, each a short hash (a version for a
distribution), so a changed version can say why.

- ``action``: the action's source as Burr holds it (a declared node: its spec's functions).
- ``global:<name>``: a top-level definition of the action's own module the action reads,
  transitively (a constant, a helper function, a class) — the source text of the statements
  that bind it, so a value the code mutates while running never reads as an edit.
- ``bound:<param>``: a value passed with ``.bind()`` (Burr's ``_bound_params``), stably
  represented (a callable by its source).
- ``instance:<attr>``: an attribute of a class-based action's instance (its configuration:
  Burr's haystack example runs four instances of one class down different code paths).
- ``module:<path>``: the text of a module of the user's project the action reads, and of every
  project module those import, transitively (by their import statements, wherever they sit).
- ``dist:<name>``: the version of an installed distribution read (site-packages, or an
  editable install such as Rewind's own ``runs``); ``dist:python`` for the standard library.

A project module is a ``.py`` file outside the standard library, site-packages and editable
installs. Files are read and parsed once per (path, mtime_ns, size); an action's parts are
kept with the stats of the files they were read from, so a step pays a few ``stat`` calls.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import functools
import importlib.metadata
import inspect
import os
import platform
import re
import symtable
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runs.lib.hashing import sha256_text

SHORT = 16  # hex digits of a part's hash: enough to tell an edit, small enough to keep per step
SKIPPED_ATTRIBUTES = frozenset({"_name", "_state_created", "_bound_params"})  # Burr's own
DEPTH = 4  # how deep a value is represented; below it, by its type


def short(text: str) -> str:
    return sha256_text(text)[:SHORT]


# --- one file, read once per (path, mtime_ns, size) ---------------------------------------


@dataclass(frozen=True)
class Binding:
    """What binds one top-level name of a module: its statements' source, the names they
    read and the modules they import."""

    digest: str
    names: frozenset[str]
    imports: tuple[str, ...]


@dataclass(frozen=True)
class SourceFile:
    digest: str
    imports: tuple[str, ...]  # every module it imports, anywhere (absolute dotted names)
    top: dict[str, Binding]


_files: dict[str, tuple[tuple[int, int], SourceFile | None]] = {}


def stat(path: str) -> tuple[int, int]:
    try:
        found = os.stat(path)
    except OSError:
        return (0, -1)
    return (found.st_mtime_ns, found.st_size)


def read(path: str, module: str) -> SourceFile | None:
    """``path`` as it is on disk (``module`` its dotted name, for relative imports)."""
    seen = stat(path)
    kept = _files.get(path)
    if kept is not None and kept[0] == seen:
        return kept[1]
    try:
        text = Path(path).read_text(errors="replace")
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        found = None
    else:
        package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
        found = _parsed(text, tree, package, _scopes(text, path))
    _files[path] = (seen, found)
    return found


def _scopes(text: str, path: str) -> dict[tuple[str, int], symtable.SymbolTable]:
    """The symbol table of each top-level function and class, by (name, line)."""
    try:
        module = symtable.symtable(text, path, "exec")
    except (SyntaxError, ValueError):
        return {}
    return {(table.get_name(), table.get_lineno()): table for table in module.get_children()}


def _global_reads(table: symtable.SymbolTable) -> set[str]:
    """The module-level names a function's or class's body reads (its nested scopes' too): not
    its parameters nor its locals — every action has a parameter ``state``, which is no
    module's ``state``."""
    found = {s.get_name() for s in table.get_symbols() if s.is_global() and s.is_referenced()}
    for child in table.get_children():
        found |= _global_reads(child)
    return found


def _loaded(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _reads(statement: ast.stmt, scopes: dict[tuple[str, int], symtable.SymbolTable]) -> set[str]:
    """The module-level names ``statement`` reads: a def's or a class's body by its symbol
    table, plus what is evaluated where it stands (decorators, defaults, bases); any other
    statement, every name in it."""
    if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return _loaded(statement)
    table = scopes.get((statement.name, statement.lineno))
    if table is None:
        return _loaded(statement)
    outer: list[ast.AST] = list(statement.decorator_list)
    if isinstance(statement, ast.ClassDef):
        outer += [*statement.bases, *(k.value for k in statement.keywords)]
    else:
        outer += [*statement.args.defaults, *(d for d in statement.args.kw_defaults if d)]
    return _global_reads(table).union(*(_loaded(e) for e in outer))


def _parsed(
    text: str,
    tree: ast.Module,
    package: str,
    scopes: dict[tuple[str, int], symtable.SymbolTable],
) -> SourceFile:
    lines = text.splitlines()
    texts: dict[str, list[str]] = {}
    names: dict[str, set[str]] = {}
    imports: dict[str, list[str]] = {}
    for statement in _top_statements(tree.body):
        first = min(
            [statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", []))]
        )
        segment = "\n".join(lines[first - 1 : statement.end_lineno])
        read_names = _reads(statement, scopes)
        imported = isinstance(statement, (ast.Import, ast.ImportFrom))
        for name, modules in _binds(statement, package):
            texts.setdefault(name, [])
            if not imported:  # an import is its module's part, not a line of this one
                texts[name].append(segment)
            names.setdefault(name, set()).update(read_names - {name})
            imports.setdefault(name, []).extend(modules)
    everywhere: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            everywhere += [m for _, ms in _binds(node, package) for m in ms]
    top = {
        name: Binding(
            short("\n".join(texts[name])) if texts[name] else "",
            frozenset(names[name]),
            tuple(imports[name]),
        )
        for name in texts
    }
    return SourceFile(short(text), tuple(dict.fromkeys(everywhere)), top)


def _top_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The module's statements, those under a top-level ``if``/``try``/``with`` included — but
    not an ``if __name__ == "__main__":`` block's: the script a module ends with (``app.run``
    binding ``state``, ``action``) is no definition a step reads."""
    found: list[ast.stmt] = []
    for statement in body:
        if isinstance(statement, ast.If) and _is_main_guard(statement.test):
            found += _top_statements(statement.orelse)
        elif isinstance(statement, (ast.If, ast.Try, ast.With)):
            for inner in ("body", "orelse", "finalbody"):
                found += _top_statements(getattr(statement, inner, []))
            for handler in getattr(statement, "handlers", []):
                found += _top_statements(handler.body)
        else:
            found.append(statement)
    return found


def _is_main_guard(test: ast.expr) -> bool:
    """``__name__ == "__main__"``, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


def _binds(statement: ast.stmt, package: str) -> list[tuple[str, list[str]]]:
    """(name bound, modules it comes from) for each name ``statement`` binds at top level."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [(statement.name, [])]
    if isinstance(statement, ast.Import):
        return [(a.asname or a.name.partition(".")[0], [a.name]) for a in statement.names]
    if isinstance(statement, ast.ImportFrom):
        base = statement.module or ""
        if statement.level:
            parts = package.split(".") if package else []
            parts = parts[: len(parts) - statement.level + 1] if statement.level > 1 else parts
            base = ".".join([*parts, *([base] if base else [])])
        return [
            (a.asname or a.name, [base, f"{base}.{a.name}"] if a.name != "*" else [base])
            for a in statement.names
        ]
    targets: list[ast.expr] = []
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        targets = [statement.target]
    return [(n.id, []) for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


# --- where a module lives -----------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    kind: str  # "project" | "dist" | "stdlib"
    path: str = ""  # a project module's file
    part: str = ""  # its part's name: "module:helpers.py", "dist:openai", "dist:python"


_places: dict[str, Place | None] = {}
_places_for: tuple[str, ...] = ()


def locate(name: str) -> Place | None:
    """Where module ``name`` lives, or None (not a module: ``from m import function``)."""
    global _places_for
    path_now = tuple(sys.path)
    if path_now != _places_for:  # a directory added or removed: names may resolve elsewhere
        _places.clear()
        _places_for = path_now
    if name in _places:
        return _places[name]
    _places[name] = found = _locate(name)
    return found


def _locate(name: str) -> Place | None:
    if not name:
        return None
    module = sys.modules.get(name)
    file = getattr(module, "__file__", None) if module is not None else _find(name)
    top = name.partition(".")[0]
    if file is None:
        if top in sys.stdlib_module_names or top in sys.builtin_module_names:
            return Place("stdlib", part="dist:python")
        return Place("dist", part=f"dist:{_distribution(top)}") if module is not None else None
    return place_of(str(file), name)


def place_of(file: str, name: str) -> Place:
    top = name.partition(".")[0]
    resolved = os.path.realpath(file)
    if "site-packages" in resolved or "dist-packages" in resolved or top in _editable():
        return Place("dist", part=f"dist:{_distribution(top)}")
    if top in sys.stdlib_module_names or resolved.startswith(_stdlib()):
        return Place("stdlib", part="dist:python")
    if not resolved.endswith(".py"):
        return Place("dist", part=f"dist:{_distribution(top)}")
    return Place("project", resolved, f"module:{_relative(resolved, name)}")


def _find(name: str) -> str | None:
    """The file of a module not imported yet (an import inside a function), found the way
    Python would, without importing anything."""
    head, _, last = name.rpartition(".")
    if head:
        parent = sys.modules.get(head)
        roots = list(getattr(parent, "__path__", []) or [])
        if parent is None:
            above = _find(head)
            roots = [os.path.dirname(above)] if above and above.endswith("__init__.py") else []
    else:
        roots = [entry or os.getcwd() for entry in sys.path if isinstance(entry, str)]
    for root in roots:
        for candidate in (
            os.path.join(root, last + ".py"),
            os.path.join(root, last, "__init__.py"),
        ):
            if os.path.isfile(candidate):
                return candidate
    return None


def _relative(path: str, name: str) -> str:
    """``path`` relative to the sys.path directory it is imported from, else the module name."""
    best = ""
    for entry in sys.path:
        root = os.path.realpath(entry or os.getcwd()) if isinstance(entry, str) else ""
        if root and path.startswith(root + os.sep) and len(root) > len(best):
            best = root
    return os.path.relpath(path, best).replace(os.sep, "/") if best else name


def _in_stdlib(path: str) -> bool:
    """Under the standard library's directories (a venv's lib holds site-packages too)."""
    return path.startswith(_stdlib()) and "site-packages" not in path


@functools.cache
def _stdlib() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(os.path.realpath(paths[k]) + os.sep for k in ("stdlib", "platstdlib"))


@functools.cache
def _installed() -> tuple[dict[str, Any], frozenset[str]]:
    """Top-level import name → its distribution (``top_level.txt``; a version is read only when
    asked: parsing every distribution's metadata costs a tenth of a second), and the editable
    installs' names."""
    tops: dict[str, Any] = {}
    editable: set[str] = set()
    for dist in importlib.metadata.distributions():
        names = (dist.read_text("top_level.txt") or "").split() or [_name(dist)]
        for top in names:
            tops.setdefault(top, dist)
        if '"editable": true' in (dist.read_text("direct_url.json") or "").replace(" :", ":"):
            editable.update(names)
    return tops, frozenset(editable)


def _name(dist: Any) -> str:
    return getattr(dist, "_normalized_name", None) or (dist.metadata["Name"] or "").lower()


@functools.cache
def _recorded() -> dict[str, Any]:
    """Top-level import name → distribution from every distribution's RECORD: read only for a
    name ``top_level.txt`` does not give (a wheel built by hatch or flit)."""
    tops: dict[str, Any] = {}
    for dist in importlib.metadata.distributions():
        for line in (dist.read_text("RECORD") or "").splitlines():
            head, slash, _ = line.partition(",")[0].partition("/")
            first = head if slash else head.removesuffix(".py")
            if first and not first.endswith((".dist-info", ".data", ".pth")) and first != "..":
                tops.setdefault(first, dist)
    return tops


def _editable() -> frozenset[str]:
    return _installed()[1]


def _distribution(top: str) -> str:
    """The part name of module ``top``'s distribution (its import name when none is found)."""
    dist = _installed()[0].get(top) or _recorded().get(top)
    if dist is None:
        return top
    _dists[_name(dist)] = dist
    return _name(dist)


_dists: dict[str, Any] = {}  # distribution name → its distribution, as found


@functools.cache
def part_value(part: str) -> str:
    """A ``dist:`` part's value: the distribution's version (the Python version for
    ``dist:python``)."""
    name = part.removeprefix("dist:")
    if name == "python":
        return platform.python_version()
    dist = _dists.get(name)
    return (dist.version or "unknown") if dist is not None else "unknown"


# --- a value, stably --------------------------------------------------------------------

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def stable(value: Any, modules: set[str], depth: int = 0) -> str:
    """A text of ``value`` that is the same in every process for the same configuration: data
    by its contents, a callable or class by its source, an object of an installed library by
    its type (its version is a ``dist:`` part). The modules of project callables and types met
    are added to ``modules``."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return repr(value)
    if depth > DEPTH:
        return _type_name(type(value))
    if isinstance(value, enum.Enum):
        return f"{_type_name(type(value))}.{value.name}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(stable(v, modules, depth + 1) for v in value)
        return f"{type(value).__name__}[{inner}]"
    if isinstance(value, (set, frozenset)):
        return f"set{{{', '.join(sorted(stable(v, modules, depth + 1) for v in value))}}}"
    if isinstance(value, dict):
        items = sorted(
            f"{stable(k, modules, depth + 1)}: {stable(v, modules, depth + 1)}"
            for k, v in value.items()
        )
        return "{" + ", ".join(items) + "}"
    if isinstance(value, functools.partial):
        return f"partial({stable([value.func, value.args, value.keywords], modules, depth + 1)})"
    if inspect.ismodule(value):
        modules.add(value.__name__)
        return f"module {value.__name__}"
    if inspect.isroutine(value) or inspect.isclass(value):
        modules.add(getattr(value, "__module__", "") or "")
        return source_of(getattr(value, "__func__", value))
    kind = type(value)
    modules.add(kind.__module__)
    if dataclasses.is_dataclass(value) or _is_project(kind.__module__):
        fields = getattr(value, "__dict__", None)
        if fields is None:
            return _type_name(kind)
        return f"{_type_name(kind)}({stable(dict(fields), modules, depth + 1)})"
    text = repr(value)
    return _type_name(kind) if " at 0x" in text or len(text) > 100_000 else _ADDRESS.sub("", text)


def _is_project(module: str) -> bool:
    place = locate(module) if module else None
    return place is not None and place.kind == "project"


def _type_name(kind: type) -> str:
    return f"<{kind.__module__}.{kind.__qualname__}>"


_sources: dict[int, tuple[Any, str]] = {}


def source_of(thing: Any) -> str:
    """The source of a function or class (its qualified name when it has none), once per
    code object or class in a process."""
    held = getattr(thing, "__code__", thing)
    known = _sources.get(id(held))
    if known is not None and known[0] is held:
        return known[1]
    try:
        text = inspect.getsource(thing)
    except (OSError, TypeError):
        text = f"{getattr(thing, '__module__', '')}.{getattr(thing, '__qualname__', thing)}"
    if len(_sources) >= 10_000:
        _sources.clear()
    _sources[id(held)] = (held, text)
    return text


# --- an action's parts ---------------------------------------------------------------------


def gather(
    source: str, definitions: list[Any], bound: dict[str, Any], instance: dict[str, Any]
) -> tuple[dict[str, str], dict[str, tuple[int, int]]]:
    """The parts of a step whose action's source hashes to ``source``, written as
    ``definitions`` (its functions or class), with ``bound`` parameters and, for a
    class-based action, ``instance`` attributes; and the files read, with their stats."""
    parts = {"action": source}
    files: dict[str, tuple[int, int]] = {}
    modules: set[str] = set()
    for name, value in sorted(bound.items()):
        parts[f"bound:{name}"] = short(stable(value, modules))
    for name, value in sorted(instance.items()):
        parts[f"instance:{name}"] = short(stable(value, modules))
    own: set[str] = set()
    for definition in definitions:
        _own_module(definition, parts, files, modules, own)
    _closure(modules - own, own, parts, files)
    parts["dist:python"] = platform.python_version()
    return parts, files


def _own_module(
    definition: Any,
    parts: dict[str, str],
    files: dict[str, tuple[int, int]],
    modules: set[str],
    own: set[str],
) -> None:
    """The top-level definitions of ``definition``'s module it reads, transitively, as
    ``global:`` parts; the modules they import go to ``modules``."""
    name = getattr(definition, "__module__", None) or ""
    file = getattr(sys.modules.get(name), "__file__", None)
    if inspect.isclass(definition):  # a base class written elsewhere is read too
        modules.update(base.__module__ for base in definition.__mro__[1:])
    if not file:
        modules.add(name)
        return
    resolved = os.path.realpath(file)
    if _in_stdlib(resolved) or not file.endswith(".py"):
        modules.add(name)
        return  # else read wherever it lies: an installed example's action moved into a project
    # is the same code (a library's own action class, Burr's haystack one: its module's
    # definitions it reads, by their source)
    own.add(name)
    found = read(resolved, name)
    files[resolved] = stat(resolved)
    if found is None:
        return
    roots = {getattr(definition, "__qualname__", "").partition(".")[0]}
    todo, seen = list(roots), set()
    while todo:
        name = todo.pop()
        binding = found.top.get(name)
        if name in seen or binding is None:
            continue
        seen.add(name)
        if name not in roots and binding.digest:
            parts[f"global:{name}"] = binding.digest
        modules.update(binding.imports)
        todo.extend(binding.names)


def _closure(
    modules: set[str], own: set[str], parts: dict[str, str], files: dict[str, tuple[int, int]]
) -> None:
    """Each of ``modules`` and what it imports: a project module by its text (and what it
    imports, transitively), anything else by its distribution's version."""
    todo, seen = sorted(modules), set(own)
    while todo:
        name = todo.pop()
        if not name or name in seen:
            continue
        seen.add(name)
        place = locate(name)
        if place is None:
            continue
        if place.kind != "project":
            parts[place.part] = part_value(place.part)
            continue
        found = read(place.path, name)
        files[place.path] = stat(place.path)
        parts[place.part] = found.digest if found is not None else "unreadable"
        pieces = name.split(".")
        todo += [".".join(pieces[:i]) for i in range(1, len(pieces))]  # its packages run too
        todo += list(found.imports) if found is not None else []
