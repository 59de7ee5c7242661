"""The fork editor's form (``runs.views.nodes``): one input per field the node consumes,
pre-filled, of which exactly one may be changed.

Validation of overrides is the engine's (``parse_override``): the form only decides which
single field changed and puts the engine's message next to that field.
"""

from __future__ import annotations

from typing import Any

from django import forms

from runs.engine.apps.specs import LLMNode, NodeSpec
from runs.engine.errors import OverrideError
from runs.engine.forking.overrides import Override, current_fields, parse_override
from runs.forms.fields import field_text, normalise
from runs.lib.hashing import canonical_json
from runs.models import Node


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
        if isinstance(value, str) and "\n" in value:
            # A one-line input drops a text's newlines: left as shown, it would read changed.
            return forms.CharField(widget=forms.Textarea(attrs={"rows": 6}), **common)
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
            and normalise(data.get(name)) != normalise(self.initial[name])
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
