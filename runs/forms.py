"""Forms: every query parameter of a fragment endpoint and every POST goes through one.

Validation of overrides is the engine's (``parse_override``): the fork form only decides
which single field changed and puts the engine's message next to that field.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms

from runs.engine.errors import InputError, OverrideError, RewindError
from runs.engine.hashing import canonical_json
from runs.engine.new_runs import create_run
from runs.engine.overrides import MAX_TEMPERATURE, Override, current_fields, parse_override
from runs.engine.pipeline import LLMNode, NodeSpec, get_pipeline, pipeline_names
from runs.engine.providers.client import PRESETS, strip_credentials
from runs.models import Node, Run

STATUS_CHOICES = [("", "any status"), *Run.Status.choices]


class RunFilterForm(forms.Form):
    pipeline = forms.CharField(required=False, max_length=100)
    status = forms.ChoiceField(required=False, choices=STATUS_CHOICES)
    page = forms.IntegerField(required=False, min_value=1, max_value=1_000_000)


class CompareForm(forms.Form):
    only = forms.ChoiceField(required=False, choices=[("", "all"), ("different", "different")])


def field_text(value: Any) -> str:
    """How a field's current value is shown in an input: text as is, the rest as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list)):
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    return json.dumps(value)


class NewRunForm(forms.Form):
    pipeline = forms.ChoiceField()
    inputs = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="JSON object of the pipeline's inputs (omitted ones take their defaults); "
        "for a Burr app, the runtime inputs of its first turn, as app.run(inputs=…).",
    )
    model = forms.CharField(required=False, max_length=200, help_text="blank: the configured model")
    temperature = forms.FloatField(
        required=False, min_value=0.0, max_value=MAX_TEMPERATURE, help_text="blank: the default"
    )
    halt_after = forms.CharField(
        required=False,
        max_length=1000,
        help_text="Burr apps: a turn ends after these actions (comma-separated), as app.run(halt_after=…)",
    )
    halt_before = forms.CharField(
        required=False, max_length=1000, help_text="Burr apps: a turn ends before these actions"
    )
    turns = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Burr apps: the runtime inputs of each later turn, one JSON object per line "
        '(a chat\'s next messages: {"prompt": "and then?"})',
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        names = pipeline_names()
        self.fields["pipeline"].choices = [(n, n) for n in names]
        if not self.is_bound and names:
            from django.conf import settings

            default = settings.REWIND_DEFAULT_PIPELINE
            default = default if default in names else names[0]
            self.initial.setdefault("pipeline", default)
            self.initial.setdefault("inputs", field_text(dict(get_pipeline(default).inputs)))

    def clean_inputs(self) -> dict[str, Any]:
        try:
            value = json.loads(self.cleaned_data["inputs"] or "{}")
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(
                f"not valid JSON ({exc.msg} at position {exc.pos})"
            ) from None
        if not isinstance(value, dict):
            raise forms.ValidationError('must be a JSON object, e.g. {"region": "east"}')
        return value

    def _names(self, field: str) -> list[str]:
        return [name.strip() for name in self.cleaned_data[field].split(",") if name.strip()]

    def clean_turns(self) -> list[dict[str, Any]]:
        turns = []
        for number, line in enumerate(self.cleaned_data["turns"].splitlines(), start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise forms.ValidationError(f"line {number}: not valid JSON ({exc.msg})") from None
            if not isinstance(value, dict):
                raise forms.ValidationError(f"line {number}: must be a JSON object")
            turns.append(value)
        return turns

    def create(self) -> Run:
        """Create the queued run; engine errors become form errors."""
        data = self.cleaned_data
        try:
            return create_run(
                data["pipeline"],
                data["inputs"],
                turns=data["turns"],
                halt_after=self._names("halt_after"),
                halt_before=self._names("halt_before"),
                model=data["model"] or None,
                temperature=data["temperature"],
                from_text=False,
            )
        except RewindError as exc:
            self.add_error("inputs" if isinstance(exc, InputError) else None, str(exc))
            raise


class ForkForm(forms.Form):
    """One input per field the node consumes, pre-filled; exactly one may be changed.

    No change is an unchanged replay (also offered as its own button)."""

    def __init__(self, spec: NodeSpec, node: Node, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spec, self.node = spec, node
        self.current = current_fields(spec, node)
        self.override: Override | None = None
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
    CONTROL_FIELDS = frozenset({"csrfmiddlewaretoken", "replay"})

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
    base_url = forms.URLField(required=False, max_length=500, assume_scheme="https")
    model = forms.CharField(required=False, max_length=200)
    temperature = forms.FloatField(required=False, min_value=0.0, max_value=MAX_TEMPERATURE)

    def clean_base_url(self) -> str:
        url = self.cleaned_data["base_url"]
        if url and ("@" in url.split("//", 1)[-1].split("/", 1)[0]):
            raise forms.ValidationError(
                "put no credentials in the URL; the key comes from REWIND_API_KEY"
            )
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
