"""The runs list's and the new-run page's forms (``runs.views.listing``): the list's
filters and page, which pipeline the new-run form is built for, and the new run itself with
one typed field per input the pipeline declares.

A pipeline's inputs are typed and checked by the engine (``typed_like``, ``check_clean``,
the input's domain); the form only builds the fields and puts the engine's message next to
the field it is about.
"""

from __future__ import annotations

from typing import Any

from django import forms

from runs.engine.apps.burr import BurrApp
from runs.engine.apps.domains import Domain, Number
from runs.engine.apps.registry import get_pipeline, pipeline_names
from runs.engine.apps.specs import Pipeline
from runs.engine.errors import OverrideError, PipelineError
from runs.engine.execution.new_runs import create_run
from runs.engine.forking.overrides import MAX_TEMPERATURE, check_clean, typed_like
from runs.forms.fields import field_text, normalise
from runs.lib.jsontext import JSONTextError, parse_json
from runs.models import Run

STATUS_CHOICES = [("", "any status"), *Run.Status.choices]
ORIGIN_CHOICES = [("", "any origin"), ("imported", "imported"), ("here", "made here")]


class RunFilterForm(forms.Form):
    """The runs list's query (``?pipeline=&status=&q=&page=&origin=``): every filter is
    optional, so a bare ``/`` lists everything."""

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
            raw = normalise(data[key])
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
        """Create the queued run; an engine refusal (``RewindError``) is raised as it is, and
        ``views.common.create_or_refuse`` puts it on the form."""
        data = self.cleaned_data
        app = self.is_app
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


class LiveForm(forms.Form):
    """The live region's query: the step the inspector beside it shows (highlighted), and
    where the page stands — its last step (``after``, -1 for none) and the run status it
    shows. Without ``after`` and ``status`` everything is news."""

    step = forms.IntegerField(required=False, min_value=0, max_value=2**31 - 1)
    after = forms.IntegerField(required=False, min_value=-1, max_value=2**31 - 1)
    status = forms.ChoiceField(required=False, choices=Run.Status.choices)
