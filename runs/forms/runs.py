"""Forms: every query parameter of a fragment endpoint and every POST goes through one.

Validation of overrides is the engine's (``parse_override``): the fork form only decides
which single field changed and puts the engine's message next to that field.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.core.validators import URLValidator

from runs.engine.analysis.outcomes import Outcome, check_from_text
from runs.engine.analysis.outcomes.declared import DASHBOARD
from runs.engine.apps.burr import BurrApp
from runs.engine.apps.domains import Domain, Number
from runs.engine.apps.registry import get_pipeline, pipeline_names
from runs.engine.apps.specs import LLMNode, NodeSpec, Pipeline
from runs.engine.errors import OutcomeError, OverrideError, PipelineError, RewindError
from runs.engine.execution.new_runs import create_run
from runs.engine.forking.overrides import (
    MAX_TEMPERATURE,
    Override,
    check_clean,
    current_fields,
    parse_override,
    typed_like,
)
from runs.engine.imports.service import ImportReport, import_path, import_persister
from runs.engine.providers.client import PRESETS, strip_credentials
from runs.engine.providers.config import ALLOWED_SCHEMES, base_url_warnings
from runs.lib.hashing import canonical_json
from runs.lib.jsontext import JSONTextError, parse_json
from runs.models import Node, Run
from runs.models import Outcome as OutcomeRow
from runs.models.search import RUN_ID

STATUS_CHOICES = [("", "any status"), *Run.Status.choices]
ORIGIN_CHOICES = [("", "any origin"), ("imported", "imported"), ("here", "made here")]


class RunFilterForm(forms.Form):
    pipeline = forms.CharField(required=False, max_length=100)
    status = forms.ChoiceField(required=False, choices=STATUS_CHOICES)
    # A run id ("12", "run 12", "#12"), or text found in the pipeline, the fork point, the
    # changed field or its value.
    q = forms.CharField(required=False, max_length=200, label="Search")
    page = forms.IntegerField(required=False, min_value=1, max_value=1_000_000)
    # Where runs came from: imported from Burr's history (runs.engine.imports), or made here
    # (run, forked or recorded by Rewind).
    origin = forms.ChoiceField(required=False, choices=ORIGIN_CHOICES)


class PageForm(forms.Form):
    """``?page=`` of a paginated page (a lineage's runs)."""

    page = forms.IntegerField(required=False, min_value=1, max_value=1_000_000)


class CompareForm(forms.Form):
    only = forms.ChoiceField(required=False, choices=[("", "all"), ("different", "different")])


class BisectForm(forms.Form):
    """The bisect page's query (``?outcome=&task=``) and the compare page's POST (``outcome``)."""

    outcome = forms.CharField(required=False, max_length=60)
    # The queue's id of the bisect's task: a UUID in the database backend, other backends' own.
    task = forms.RegexField(r"\A[A-Za-z0-9_-]{1,64}\Z", required=False)


class RunIdsField(forms.Field):
    """Every value of a repeated query parameter (``?run=3&run=7``) as run ids."""

    widget = forms.MultipleHiddenInput
    MAX_IDS = 100

    def to_python(self, value: Any) -> list[int]:
        values = [item for item in value or [] if str(item).strip()]
        if len(values) > self.MAX_IDS:
            raise forms.ValidationError(f"at most {self.MAX_IDS} runs")
        ids = []
        for item in values:
            try:
                number = int(str(item).strip())
            except ValueError:
                raise forms.ValidationError(f"not a run id: {str(item)[:40]!r}") from None
            if not 1 <= number <= 2**31 - 1:
                raise forms.ValidationError(f"not a run id: {number}")
            ids.append(number)
        return ids


class PickedRunField(forms.Field):
    """A run named in the compare picker's search box by its id ("12", "run 12", "#12")."""

    def to_python(self, value: Any) -> int | None:
        text = str(value or "").strip()
        if not text:
            return None
        match = RUN_ID.match(text)
        number = int(match.group(1)) if match else 0
        if not 1 <= number <= 2**31 - 1:
            raise forms.ValidationError(
                f"not a run id: {text[:40]!r} (type to search, then choose a run)"
            )
        return number


class RunSearchForm(forms.Form):
    """The compare picker's search as a person types in either box (``?a=``, ``?b=``) or
    ``?q=``."""

    q = forms.CharField(required=False, max_length=200)
    a = forms.CharField(required=False, max_length=200)
    b = forms.CharField(required=False, max_length=200)

    def query(self) -> str:
        data = self.cleaned_data
        return (data["q"] or data["a"] or data["b"]).strip()


class ComparePickForm(forms.Form):
    """Two runs to compare: ``a`` and ``b`` (the compare page's picker), or exactly two
    ``run`` checkboxes of the runs list — the older run is A, the newer B."""

    # Typed or chosen in the picker's search box: "12", "run 12" or "#12".
    a = PickedRunField(required=False, label="Run A")
    b = PickedRunField(required=False, label="Run B")
    run = RunIdsField(required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        a, b, chosen = data.get("a"), data.get("b"), data.get("run") or []
        if a is not None or b is not None:
            if a is None or b is None:
                raise forms.ValidationError("choose both runs, A and B")
        elif len(chosen) == 2:
            a, b = sorted(chosen)
        else:
            raise forms.ValidationError(
                f"select exactly two runs to compare; {len(chosen) or 'none'} "
                f"{'was' if len(chosen) == 1 else 'were'} selected"
            )
        if a == b:
            # A run against itself differs nowhere: the page would say nothing at all.
            raise forms.ValidationError(
                f"run {a} against itself differs nowhere: choose another run for B "
                "(its parent, a fork or a replay of it)"
            )
        data["a"], data["b"] = a, b
        return data


def field_text(value: Any) -> str:
    """How a field's current value is shown in an input: text as is, the rest as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list)):
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    return json.dumps(value)


INPUT_PREFIX = "input."


def _input_field(name: str, default: Any, domain: Domain | None) -> forms.Field:
    """A typed field for one declared input of a pipeline: its domain's choices as a select
    and bounds as min/max, otherwise a widget for the type of its default. The value is read
    (``typed_like``) and checked against the domain in :meth:`NewRunForm.clean`."""
    common: dict[str, Any] = {"required": False, "strip": False, "label": name}
    if domain is not None:
        widget = domain.widget()
        if "choices" in widget:
            choices = list(widget["choices"])
            if field_text(default) not in choices:
                choices.insert(0, field_text(default))
            return forms.CharField(widget=forms.Select(choices=[(c, c) for c in choices]), **common)
        if isinstance(domain, Number):
            return forms.CharField(
                widget=forms.NumberInput(attrs=widget["attrs"]),
                help_text=domain.describe(),
                **common,
            )
        attrs = dict(widget.get("attrs") or {})
        if isinstance(default, str) and (len(default) > 60 or "\n" in default):
            return forms.CharField(widget=forms.Textarea(attrs={"rows": 3, **attrs}), **common)
        return forms.CharField(widget=forms.TextInput(attrs=attrs), **common)
    if isinstance(default, bool):
        return forms.CharField(
            widget=forms.Select(choices=[("true", "true"), ("false", "false")]), **common
        )
    if isinstance(default, int | float):
        step = "1" if isinstance(default, int) else "any"
        return forms.CharField(widget=forms.NumberInput(attrs={"step": step}), **common)
    if isinstance(default, str):
        if len(default) > 60 or "\n" in default:
            return forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), **common)
        return forms.CharField(**common)
    return forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "class": "json"}),
        help_text="JSON",
        **common,
    )


def _default_pipeline() -> str:
    from django.conf import settings

    names = pipeline_names()
    default = settings.REWIND_DEFAULT_PIPELINE
    return default if default in names or not names else names[0]


class PipelinePickForm(forms.Form):
    """Which pipeline the new-run form is built for (``GET /runs/new/?pipeline=…``)."""

    pipeline = forms.ChoiceField(required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["pipeline"].choices = [(n, n) for n in pipeline_names()]

    def chosen(self) -> str:
        return self.cleaned_data.get("pipeline") or _default_pipeline()


class NewRunForm(forms.Form):
    """A new run, with one typed field per input the pipeline declares.

    A declared pipeline: one field per ``pipeline.inputs`` (named ``input.<name>``), typed
    like its default and limited by ``input_domains``, plus model and temperature. A Burr app:
    one text field per runtime input its actions take (blank: not given), plus the halts and
    later turns of ``app.run``. Which pipeline is the ``pipeline`` value posted (or given)."""

    pipeline = forms.ChoiceField(widget=forms.HiddenInput)

    # What a new-run POST may carry besides its fields.
    CONTROL_FIELDS = frozenset({"csrfmiddlewaretoken"})

    def __init__(self, *args: Any, pipeline: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        names = pipeline_names()
        self.fields["pipeline"].choices = [(n, n) for n in names]
        posted = self.data.get("pipeline") if self.is_bound else None
        self.pipeline_name = (
            posted if posted in names else pipeline if pipeline in names else _default_pipeline()
        )
        self.initial.setdefault("pipeline", self.pipeline_name)
        self.spec: Pipeline | BurrApp | None = None
        self.load_error = ""
        try:
            self.spec = get_pipeline(self.pipeline_name) if self.pipeline_name else None
        except PipelineError as exc:
            self.load_error = str(exc)
        self.input_names: list[str] = []
        if isinstance(self.spec, BurrApp):
            self._app_fields(self.spec)
        elif self.spec is not None:
            self._pipeline_fields(self.spec)

    @property
    def is_app(self) -> bool:
        return isinstance(self.spec, BurrApp)

    @property
    def description(self) -> str:
        return self.spec.description if self.spec is not None else ""

    def _pipeline_fields(self, spec: Pipeline) -> None:
        for name, default in spec.inputs.items():
            key = INPUT_PREFIX + name
            self.fields[key] = _input_field(name, default, spec.input_domains.get(name))
            self.initial.setdefault(key, field_text(default))
            self.input_names.append(name)
        self.fields["model"] = forms.CharField(
            required=False, max_length=200, help_text="blank: the configured model"
        )
        self.fields["temperature"] = forms.FloatField(
            required=False, min_value=0.0, max_value=MAX_TEMPERATURE, help_text="blank: the default"
        )

    def _app_fields(self, app: BurrApp) -> None:
        takers: dict[str, list[str]] = {}
        for node in app.nodes:
            for name in node.inputs:
                takers.setdefault(name, []).append(node.name)
        for name in takers:  # in the order the actions first take them
            self.fields[INPUT_PREFIX + name] = forms.CharField(
                required=False,
                strip=False,
                label=name,
                widget=forms.Textarea(attrs={"rows": 2}),
                help_text=f"runtime input of {', '.join(takers[name])}; blank: not given",
            )
            self.input_names.append(name)
        actions = ", ".join(node.name for node in app.nodes)
        self.fields["halt_after"] = forms.CharField(
            required=False,
            max_length=1000,
            help_text=f"a turn ends after these actions (comma-separated; {actions}), as "
            "app.run(halt_after=…)",
        )
        self.fields["halt_before"] = forms.CharField(
            required=False, max_length=1000, help_text="a turn ends before these actions"
        )
        self.fields["turns"] = forms.CharField(
            required=False,
            widget=forms.Textarea(attrs={"rows": 3}),
            help_text="the runtime inputs of each later turn, one JSON object per line "
            '(a chat\'s next messages: {"prompt": "and then?"})',
        )

    def input_fields(self) -> list[forms.BoundField]:
        return [self[INPUT_PREFIX + name] for name in self.input_names]

    def other_fields(self) -> list[forms.BoundField]:
        skip = {"pipeline", *(INPUT_PREFIX + name for name in self.input_names)}
        return [self[name] for name in self.fields if name not in skip]

    def _names(self, field: str) -> list[str]:
        return [name.strip() for name in self.cleaned_data[field].split(",") if name.strip()]

    def clean_turns(self) -> list[dict[str, Any]]:
        turns = []
        for number, line in enumerate(self.cleaned_data["turns"].splitlines(), start=1):
            if not line.strip():
                continue
            try:
                value = parse_json(line)
            except JSONTextError as exc:
                raise forms.ValidationError(f"line {number}: {exc}") from None
            if not isinstance(value, dict):
                raise forms.ValidationError(f"line {number}: must be a JSON object")
            turns.append(value)
        return turns

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.load_error:
            raise forms.ValidationError(self.load_error)
        # Never a silent no-op: what the form does not know is refused, by name.
        extra = sorted(set(self.data) - set(self.fields) - self.CONTROL_FIELDS)
        unknown = [key[len(INPUT_PREFIX) :] for key in extra if key.startswith(INPUT_PREFIX)]
        if unknown:
            raise forms.ValidationError(
                f"unknown input {', '.join(map(repr, unknown))}; {self.pipeline_name} takes "
                + (", ".join(self.input_names) or "no inputs")
            )
        if extra:
            raise forms.ValidationError(
                f"unknown field {', '.join(map(repr, extra))}: the form of {self.pipeline_name} "
                f"has {', '.join(name for name in self.fields if name != 'pipeline')}"
                + (" (each input is its own field)" if "inputs" in extra else "")
            )
        inputs: dict[str, Any] = {}
        for name in self.input_names:
            key = INPUT_PREFIX + name
            if key not in data:
                continue  # refused by the field itself
            raw = _normalise(data[key])
            if self.is_app:
                if raw:
                    inputs[name] = raw
                continue
            if key not in self.data:
                continue  # not sent: the default
            spec = self.spec
            assert isinstance(spec, Pipeline)
            try:
                value = typed_like(name, raw, spec.inputs[name])
                check_clean(name, value)
                domain = spec.input_domains.get(name)
                inputs[name] = domain.check(name, value) if domain is not None else value
            except OverrideError as exc:
                self.add_error(key, str(exc))
        data["inputs"] = inputs
        return data

    def create(self) -> Run:
        """Create the queued run; engine errors become form errors."""
        data = self.cleaned_data
        app = self.is_app
        try:
            return create_run(
                self.pipeline_name,
                data["inputs"],
                turns=data["turns"] if app else None,
                halt_after=self._names("halt_after") if app else None,
                halt_before=self._names("halt_before") if app else None,
                model=None if app else data["model"] or None,
                temperature=None if app else data["temperature"],
                from_text=False,
            )
        except RewindError as exc:
            self.add_error(None, str(exc))
            raise


class ForkForm(forms.Form):
    """One input per field the node consumes, pre-filled; exactly one may be changed.

    Nothing changed is refused with a message saying it would be an unchanged replay
    (``nothing_changed``): a replay is made only by its own button, never by accident."""

    def __init__(self, spec: NodeSpec, node: Node, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spec, self.node = spec, node
        self.current = current_fields(spec, node)
        self.override: Override | None = None
        self.nothing_changed = False
        for name, value in self.current.items():
            self.fields[name] = self._field_for(name, value)
            # A call that named no model or temperature (the provider's default): blank, not
            # "null" — left blank it is unchanged, a value sets it.
            unset = value is None and name in {"llm.model", "llm.temperature"}
            self.initial[name] = "" if unset else field_text(value)

    def _field_for(self, name: str, value: Any) -> forms.Field:
        common = {"required": False, "strip": False, "label": name}
        domain = getattr(self.spec, "domains", {}).get(name.removeprefix("args."))
        if name.startswith("args.") and domain is not None:
            # The node's declared domain: choices as a select, bounds as min/max. The engine
            # checks the value again (``parse_override``); these only guide the person.
            widget = domain.widget()
            if "choices" in widget:
                choices = list(widget["choices"])
                if field_text(value) not in choices:
                    choices.insert(0, field_text(value))
                return forms.CharField(
                    widget=forms.Select(choices=[(c, c) for c in choices]), **common
                )
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return forms.CharField(widget=forms.NumberInput(attrs=widget["attrs"]), **common)
            return forms.CharField(widget=forms.TextInput(attrs=widget.get("attrs")), **common)
        if name == "prompt":
            return forms.CharField(widget=forms.Textarea(attrs={"rows": 10}), **common)
        if name == "output" and not isinstance(value, str):
            return forms.CharField(
                widget=forms.Textarea(attrs={"rows": 10, "class": "json"}), **common
            )
        if name == "output":
            return forms.CharField(widget=forms.Textarea(attrs={"rows": 10}), **common)
        if isinstance(value, bool):
            return forms.CharField(
                widget=forms.Select(choices=[("true", "true"), ("false", "false")]), **common
            )
        if isinstance(value, (int, float)) or name == "temperature":
            step = "1" if isinstance(value, int) and not isinstance(value, bool) else "any"
            return forms.CharField(widget=forms.NumberInput(attrs={"step": step}), **common)
        if isinstance(value, (dict, list)):
            return forms.CharField(
                widget=forms.Textarea(attrs={"rows": 6, "class": "json"}), **common
            )
        return forms.CharField(**common)

    # What a fork POST may carry besides the node's fields.
    CONTROL_FIELDS = frozenset({"csrfmiddlewaretoken", "replay", "live", "provider"})

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        unknown = sorted(set(self.data) - set(self.fields) - self.CONTROL_FIELDS)
        if unknown:
            # Never a silent no-op: a prompt edit posted to a tool node is refused, by name.
            raise forms.ValidationError(
                f"node {self.spec.name!r} ({self.spec.kind}) cannot take an override of "
                f"{', '.join(map(repr, unknown))}; it consumes: {', '.join(self.fields)}"
            )
        # A field the request did not send is unchanged, so a client may post only its change.
        changed = [
            name
            for name in self.fields
            if name in self.data
            and name not in self.errors  # already refused by the field itself
            and _normalise(data.get(name)) != _normalise(self.initial[name])
        ]
        if len(changed) > 1:
            raise forms.ValidationError(
                f"change exactly one field; you changed {', '.join(changed)}. "
                "Fork once per change so the diff can name its cause."
            )
        if changed:
            name = changed[0]
            raw = data.get(name) or ""
            try:
                self.override = parse_override(
                    self.spec,
                    self.node,
                    name,
                    raw,
                    from_text=not _is_artifact_output(self.spec, name),
                )
            except OverrideError as exc:
                self.add_error(name, str(exc))
            else:
                if canonical_json(self.override.value) == canonical_json(self.current[name]):
                    self.override = None  # "0" for 0.0: the text changed, the value did not
        if self.override is None and not self._errors:
            self.nothing_changed = True
            raise forms.ValidationError(
                f"Nothing changed: forking here would replay run {self.node.run_id} unchanged "
                f"from {self.spec.name}. Change one field, or replay it unchanged on purpose.",
                code="unchanged",
            )
        return data


def _is_artifact_output(spec: NodeSpec, name: str) -> bool:
    return name == "output" and not isinstance(spec, LLMNode) and spec.artifact


def _normalise(text: Any) -> str:
    """Browsers send textareas with CRLF line endings; a field is unchanged if only that differs."""
    return str(text or "").replace("\r\n", "\n")


class SettingsForm(forms.Form):
    preset = forms.ChoiceField(
        required=False,
        choices=[("", "from the environment"), ("simulator", "offline simulator")]
        + [(name, name) for name in sorted(PRESETS)]
        + [("custom", "custom base URL")],
    )
    base_url = forms.URLField(
        required=False,
        max_length=500,
        assume_scheme="https",
        validators=[URLValidator(schemes=list(ALLOWED_SCHEMES))],  # http(s) only, never ftp:
    )
    model = forms.CharField(required=False, max_length=200)
    temperature = forms.FloatField(required=False, min_value=0.0, max_value=MAX_TEMPERATURE)
    # The daily budget of each non-staff user (runs.budgets); blank is no limit.
    daily_tokens = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=2**31 - 1,
        label="Daily tokens per user",
        help_text="blank: no limit",
    )
    daily_usd = forms.DecimalField(
        required=False,
        min_value=0,
        max_digits=10,
        decimal_places=2,
        label="Daily dollars per user",
        help_text="blank: no limit",
    )

    BUDGET_FIELDS = ("daily_tokens", "daily_usd")

    def clean_base_url(self) -> str:
        url = self.cleaned_data["base_url"]
        if url and ("@" in url.split("//", 1)[-1].split("/", 1)[0]):
            raise forms.ValidationError(
                "put no credentials in the URL; the key comes from REWIND_API_KEY"
            )
        self.warnings = base_url_warnings(url) if url else []
        return url

    def full_clean(self) -> None:
        super().full_clean()
        if self.is_bound and "base_url" in self.errors:
            # A refused URL is shown again without its user:password: a secret the form
            # would not store must not travel back in the page either.
            self.data = self.data.copy()
            self.data["base_url"] = strip_credentials(str(self.data.get("base_url", "")))

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("preset") == "custom" and not data.get("base_url"):
            self.add_error("base_url", "a custom preset needs a base URL")
        return data


class OutcomeForm(forms.Form):
    """An outcome added on the dashboard: parsed by the engine (``Outcome``,
    ``check_from_text``), whose message goes next to the field it is about."""

    name = forms.CharField(max_length=60, help_text="e.g. best_group")
    path = forms.CharField(
        max_length=500,
        help_text="step.leaf (the step's last visit; step#2.leaf its 2nd) or state.key",
    )
    check = forms.ChoiceField(choices=OutcomeRow.CheckKind.choices, required=False)
    argument = forms.CharField(
        max_length=4000,
        required=False,
        help_text="equals/contains: a value; one of: A, B, C; regex: a pattern; between: "
        "0..10 (either side blank); JSON schema: the schema",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        try:
            check = check_from_text(data.get("check") or "", data.get("argument") or "")
        except OutcomeError as exc:
            self.add_error("argument", str(exc))
            return data
        try:
            data["outcome"] = Outcome(data["name"].strip(), data["path"], check, DASHBOARD)
        except OutcomeError as exc:
            field = "name" if str(exc).startswith("outcome name") else "path"
            self.add_error(field, str(exc))
        return data


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
