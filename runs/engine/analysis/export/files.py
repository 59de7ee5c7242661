"""The files of an export, one run's or a batch's: their names, written into a folder or zipped.

May import: ``runs.engine.errors``.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runs.engine.errors import RewindError


class ExportError(RewindError):
    """A run that cannot be exported as a test (not completed, a row it needs is gone, …)."""


@dataclass(frozen=True)
class ExportFiles:
    """The two files of an export, named after ``stem``: ``test_name`` (pytest) and
    ``fixture_name`` (JSON, ``fixture_file(stem)``: the test source names it)."""

    stem: str
    test_source: str
    fixture: dict[str, Any]

    @property
    def test_name(self) -> str:
        return f"test_{self.stem}.py"

    @property
    def fixture_name(self) -> str:
        return fixture_file(self.stem)

    @property
    def folder(self) -> str:
        """The folder a download unpacks into."""
        return self.stem.replace("_", "-")

    def files(self) -> dict[str, bytes]:
        fixture = json.dumps(self.fixture, indent=1, ensure_ascii=False)
        return {
            self.test_name: self.test_source.encode("utf-8"),
            self.fixture_name: (fixture + "\n").encode("utf-8"),
        }


def fixture_file(stem: str) -> str:
    return f"{stem}.json"


def write_export(export: ExportFiles, out: Path) -> list[Path]:
    """Write the export's files into ``out`` (created if missing); the paths written."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name, data in export.files().items():
            path = out / name
            path.write_bytes(data)
            written.append(path)
    except OSError as exc:
        raise ExportError(f"cannot write the export into {out}: {exc.strerror or exc}") from None
    return written


def zip_export(export: ExportFiles) -> bytes:
    """The export as a zip holding one folder. Entries carry a fixed date, so the same run
    (or batch) always gives the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in export.files().items():
            info = zipfile.ZipInfo(f"{export.folder}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()
