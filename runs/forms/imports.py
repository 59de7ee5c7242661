"""The import page's form (``runs.views.imports``, staff only): a tracker directory or a
persister database to import Burr's history from.

What the fields name is checked by the import itself (``runs.engine.imports``); a persister
URL's password is never written back into the page or an error message.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django import forms

from runs.engine.imports.service import ImportReport, import_path, import_persister
from runs.engine.providers.client import strip_credentials


class _UrlWithoutPassword(forms.TextInput):
    """A persister URL shown again (a form with an error) without its password: the page
    never writes a credential back; the person types it again."""

    def format_value(self, value: Any) -> str | None:
        text = super().format_value(value)
        if not text:
            return text
        try:
            return strip_credentials(text) if urlsplit(text).password else text
        except ValueError:  # not a URL at all: nothing to hide
            return text


class ImportForm(forms.Form):
    """The import page's POST: a tracker directory on the server, or a persister database and
    its table (one of them). What each names is checked by the import itself
    (``runs.engine.imports``), as for ``rewind_import``: the form only parses the fields."""

    path = forms.CharField(
        required=False,
        max_length=1000,
        label="Tracker directory",
        help_text="on the server: ~/.burr, one project's directory or one app's",
    )
    project = forms.CharField(
        required=False, max_length=200, help_text="only this project (default: every one)"
    )
    persister = forms.CharField(
        required=False,
        max_length=1000,
        label="Persister database",
        widget=_UrlWithoutPassword,
        help_text="instead of a directory: sqlite:///path/to/file.db or postgresql://user@host/db",
    )
    table = forms.CharField(
        required=False, max_length=100, initial="burr_state", help_text="the persister's table"
    )
    app_id = forms.CharField(
        required=False, max_length=200, label="App id", help_text="import only this app"
    )
    pipeline = forms.CharField(
        required=False,
        max_length=100,
        help_text="the registered app forks of these runs go through (default: the project)",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        path, persister = data.get("path", "").strip(), data.get("persister", "").strip()
        if bool(path) == bool(persister):
            raise forms.ValidationError(
                "give a tracker directory or a persister database (one of them)"
            )
        if persister and data.get("project", "").strip():
            self.add_error("project", "a persister's apps are named by their partition key")
        data["path"], data["persister"] = path, persister
        return data

    def run_import(self) -> ImportReport:
        """The import the form names (an ``ImportReport``); raises ``RewindError`` (a path
        that is not a tracker directory, a database that cannot be read) with nothing
        written."""
        data = self.cleaned_data
        optional = {k: data[k].strip() or None for k in ("pipeline", "app_id")}
        if data["persister"]:
            table = data["table"].strip() or "burr_state"
            return import_persister(data["persister"], table, **optional)
        return import_path(data["path"], project=data["project"].strip() or None, **optional)

    def hide_password(self, message: str) -> str:
        """``message`` without the persister URL's password, should the import quote it."""
        url = (self.cleaned_data or {}).get("persister") or ""
        try:
            password = urlsplit(url).password
        except ValueError:
            return message
        return message.replace(password, "***") if password else message
