"""The domain of a value a person may set: a tool argument or a run input.

A node declares, per argument, what values it accepts (``ToolNode(domains={...})``); a
pipeline declares the same for its inputs. An override or an input is checked against its
domain before any row is written, so a value the tool cannot take is refused with a message,
never accepted and then failed mid-run. The fork editor reads the same declarations to offer a
select for choices and ``min``/``max`` for bounds.

``DataFile`` closes a hole: an argument that names a file must resolve to a regular file
inside the data directory (``REWIND_DATA_DIR``), symlinks resolved, under a size cap. A
message never shows a path outside that directory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from runs.engine.errors import OverrideError


@dataclass(frozen=True)
class Choice:
    """One of a fixed set of values (compared exactly, so ``1`` is not ``"1"``)."""

    values: tuple[Any, ...]

    def check(self, field: str, value: Any) -> Any:
        if not any(value == v and type(value) is type(v) for v in self.values):
            raise OverrideError(
                f"{field}: must be one of {', '.join(map(_show, self.values))}; got {_show(value)}"
            )
        return value

    def widget(self) -> dict[str, Any]:
        return {"choices": [_show_plain(v) for v in self.values]}


@dataclass(frozen=True)
class Number:
    """An ``int`` or a ``float`` within bounds. ``exclusive_minimum`` for "greater than"."""

    type: type = float
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False

    def check(self, field: str, value: Any) -> Any:
        ok_types = (int,) if self.type is int else (int, float)
        if isinstance(value, bool) or not isinstance(value, ok_types):
            raise OverrideError(f"{field}: expected {self.type.__name__}, got {_show(value)}")
        value = self.type(value) + (0.0 if self.type is float else 0)  # -0.0 → 0.0: one key
        if isinstance(value, float) and not math.isfinite(value):
            raise OverrideError(f"{field}: numbers must be finite")
        low_ok = (
            self.minimum is None
            or value > self.minimum
            or (value == self.minimum and not self.exclusive_minimum)
        )
        if not low_ok or (self.maximum is not None and value > self.maximum):
            raise OverrideError(f"{field}: must be {self.describe()}; got {_show(value)}")
        return value

    def describe(self) -> str:
        low = (
            None
            if self.minimum is None
            else f"{'>' if self.exclusive_minimum else '≥'} {_show(self.minimum)}"
        )
        high = None if self.maximum is None else f"≤ {_show(self.maximum)}"
        bounds = " and ".join(b for b in (low, high) if b)
        return f"{'an integer' if self.type is int else 'a number'}" + (
            f" {bounds}" if bounds else ""
        )

    def widget(self) -> dict[str, Any]:
        attrs: dict[str, Any] = {"step": "1" if self.type is int else "any"}
        if self.minimum is not None:
            attrs["min"] = _show_plain(self.minimum)
        if self.maximum is not None:
            attrs["max"] = _show_plain(self.maximum)
        return {"attrs": attrs}


@dataclass(frozen=True)
class Text:
    """Free text up to ``max_length`` characters."""

    max_length: int = 10_000

    def check(self, field: str, value: Any) -> Any:
        if not isinstance(value, str):
            raise OverrideError(f"{field}: expected text, got {_show(value)}")
        if len(value) > self.max_length:
            raise OverrideError(f"{field}: at most {self.max_length} characters")
        return value

    def widget(self) -> dict[str, Any]:
        return {"attrs": {"maxlength": str(self.max_length)}}


@dataclass(frozen=True)
class DataFile:
    """The name of a regular file inside the data directory, relative to it.

    ``suffixes`` limits the kinds of file (``(".csv",)``); the size cap is
    ``REWIND_DATA_FILE_MAX_BYTES``. Checked when an override is made *and* again when the tool
    runs (``resolve``), so a file swapped for a symlink in between is still refused.
    """

    suffixes: tuple[str, ...] = ()

    def check(self, field: str, value: Any) -> Any:
        self.resolve(field, value, Path(settings.REWIND_DATA_DIR))
        return value

    def resolve(self, field: str, value: Any, data_dir: Path) -> Path:
        def refuse(why: str) -> OverrideError:  # the directory is resolved for the message only
            where = data_dir_label(data_dir)
            return OverrideError(
                f"{field}: must name a regular file inside the data directory {where}{why}"
            )

        if not isinstance(value, str) or not value.strip() or "\x00" in value:
            raise refuse(", as a relative path")
        relative = Path(value)
        if relative.is_absolute() or ".." in relative.parts:
            raise refuse(", as a relative path without '..'")
        if self.suffixes and relative.suffix.lower() not in self.suffixes:
            raise refuse(f", ending in {' or '.join(self.suffixes)}")
        root = data_dir.resolve()
        try:
            path = (root / relative).resolve(strict=True)
        except (OSError, RuntimeError):
            raise refuse("; there is no such file there") from None
        if not path.is_relative_to(root):
            raise refuse("; it leads outside it")
        if not path.is_file():
            raise refuse("; that is not a regular file")
        limit = settings.REWIND_DATA_FILE_MAX_BYTES
        if path.stat().st_size > limit:
            raise refuse(f" of at most {limit} bytes (REWIND_DATA_FILE_MAX_BYTES)")
        return path

    def widget(self) -> dict[str, Any]:
        root = Path(settings.REWIND_DATA_DIR)
        try:
            names = sorted(
                str(p.relative_to(root))
                for p in root.rglob("*")
                if p.is_file()
                and not p.is_symlink()
                and (not self.suffixes or p.suffix.lower() in self.suffixes)
            )
        except OSError:
            names = []
        return {"choices": names[:200]}


Domain = Choice | Number | Text | DataFile


def data_dir_label(data_dir: Path) -> str:
    """The data directory as a message shows it: relative to the project when inside it."""
    try:
        return f"{data_dir.resolve().relative_to(settings.BASE_DIR.resolve())}/"
    except ValueError:
        return f"{data_dir}/ (REWIND_DATA_DIR)"


def _show(value: Any) -> str:
    return repr(value) if not isinstance(value, str) or len(value) <= 60 else repr(value[:60] + "…")


def _show_plain(value: Any) -> str:
    return str(value)
