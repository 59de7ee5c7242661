"""The code version of a step: a hash of its action's source, as Burr holds it
(``Action.get_source()``: the function of an ``@action``, the class of an ``Action``).

A replay whose action's source differs from its source step's is a replay of other code: a
different output there is the edit, not chance, and is named "code changed" rather than
non-deterministic (``runs.engine.analysis.diff``, ``forking.replays``). The hash is taken
once per function or class in a process — reading a source costs a file read and a parse —
so a step pays a dictionary lookup.
"""

from __future__ import annotations

import inspect
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
