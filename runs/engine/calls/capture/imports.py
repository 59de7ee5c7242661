"""Post-import hooks: an adapter whose library is not imported yet patches it right after its
first import, wherever that happens — at the app's import, or inside an action's body (``from
mcp import ClientSession`` in the function) on the first step that runs it.

An adapter that would rather not import its library itself (importing ``mcp`` costs every
process half a second, whether its app uses MCP or not) registers ``after_import(module,
patch)``: ``patch(module)`` runs at once when the module is imported already, else just after
the module's code has run, before the statement that imported it goes on. One finder, first on
``sys.meta_path``, only watches for the names registered: it asks the finders after it for the
module's spec and wraps that spec's loader's ``exec_module`` on the loader instance, for this
one execution (a source module's loader is its own object); every other import only costs it
a dict lookup.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable, Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

logger = logging.getLogger("rewind")

Patch = Callable[[ModuleType], None]
# module name → its patches not run yet, by key (so that registering again changes nothing)
_waiting: dict[str, dict[str, Patch]] = {}
_lock = threading.RLock()


def after_import(module: str, key: str, patch: Patch) -> None:
    """Run ``patch(module)`` once the module ``module`` is imported: now if it is, else right
    after its first import. ``key`` names the patch: a second registration under the same key
    is ignored."""
    loaded = sys.modules.get(module)
    if loaded is not None and not _initialising(loaded):
        with _lock:
            _waiting.get(module, {}).pop(key, None)
        _run(module, {key: patch}, loaded)
        return
    with _lock:
        _waiting.setdefault(module, {}).setdefault(key, patch)
        if not any(isinstance(f, _Finder) for f in sys.meta_path):
            sys.meta_path.insert(0, _FINDER)


def _initialising(module: ModuleType) -> bool:
    """Whether ``module``'s code is still running (imported part-way: its patch would come
    too early; the finder runs it when the code is done)."""
    return bool(getattr(getattr(module, "__spec__", None), "_initializing", False))


def _run(name: str, patches: dict[str, Patch], module: ModuleType) -> None:
    for key, patch in patches.items():
        try:
            patch(module)
        except Exception:  # a patch that fails leaves the library as it was, said in the log
            logger.exception("capture could not patch %s (%s) after its import", name, key)


class _Finder(MetaPathFinder):
    """Finds nothing itself: for a watched name, the spec the finders after it give, its
    loader set to run the patches after the module's code."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in _waiting:
            return None
        spec = _spec_from_others(self, fullname, path, target)
        loader = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        execute = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            if module.__name__ != fullname:  # a loader shared by modules (a zip's): another
                type(loader).exec_module(loader, module)
                return
            try:
                execute(module)
            finally:
                try:
                    del loader.exec_module  # the instance's own again
                except AttributeError:
                    pass
            with _lock:
                patches = _waiting.pop(fullname, {})
            _run(fullname, patches, module)

        try:
            loader.exec_module = exec_module  # type: ignore[method-assign]
        except (AttributeError, TypeError):  # a loader that takes no attribute: unpatched
            logger.warning("capture cannot watch the import of %s", fullname)
        return spec


def _spec_from_others(
    finder: _Finder, fullname: str, path: Sequence[str] | None, target: Any
) -> ModuleSpec | None:
    for other in list(sys.meta_path):
        if other is finder or not hasattr(other, "find_spec"):
            continue
        spec = other.find_spec(fullname, path, target)
        if spec is not None:
            return spec
    return None


_FINDER = _Finder()
