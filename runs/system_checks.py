"""System checks (``manage.py check``, and every command before it runs): the Burr that is
installed is one Rewind supports.

The old ``burr`` package (0.40.x, before Burr moved to Apache) and ``apache-burr`` install the
same ``burr`` module: in one environment each overwrites the other's files, and what is
imported is a mixture of both. ``burr`` 0.42 and later is a stub that only requires
``apache-burr``, and is fine.
"""

from __future__ import annotations

import importlib.metadata
import re
from typing import Any

from django.core.checks import Error, register

OLDEST = (0, 42)


def _version(distribution: str) -> tuple[int, ...] | None:
    """The release numbers of an installed distribution (``0.40.2`` → ``(0, 40, 2)``)."""
    try:
        text = importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    found = re.match(r"[0-9]+(?:\.[0-9]+)*", text)
    return tuple(int(part) for part in found.group(0).split(".")) if found else None


def _text(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


@register()
def burr_release(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    errors = []
    old = _version("burr")
    if old is not None and old < OLDEST:
        errors.append(
            Error(
                f"the old burr package ({_text(old)}) is installed; it and apache-burr write the same "
                "files",
                hint='pip uninstall -y burr && pip install --force-reinstall "apache-burr>=0.42"'
                " (README, 'Burr releases')",
                id="rewind.E001",
            )
        )
    apache = _version("apache-burr")
    if apache is None or apache < OLDEST:
        errors.append(
            Error(
                f"apache-burr {_text(apache) if apache else 'is not installed'}: Rewind needs "
                "apache-burr >= 0.42",
                hint='pip install "apache-burr>=0.42"',
                id="rewind.E002",
            )
        )
    return errors


@register()
def outcome_settings(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """``REWIND_OUTCOMES`` parses: every path and check (a bad regex, bounds that are not
    numbers, a schema that is not one) is refused at start-up, not when a run is shown."""
    from django.conf import settings

    from runs.engine.analysis.outcomes.declared import validate_setting

    return [
        Error(problem, hint="README, 'Outcomes'", id="rewind.E003")
        for problem in validate_setting(getattr(settings, "REWIND_OUTCOMES", {}))
    ]
