"""What an outcome is and where it is declared.

An outcome is a named leaf of a step's output or of the run's final state, with an optional
check. It is declared in three places, and for one pipeline a name means one outcome:

1. with a Rewind ``Pipeline`` (``Pipeline(outcomes=[Outcome(...)])``);
2. in the setting ``REWIND_OUTCOMES`` (``{"pipeline": [{"name", "path", "check"}]}``) — the
   way to give a registered Burr app outcomes without touching its code; a name set there wins
   over the same name in the pipeline's code, as ``REWIND_STEP_TIMEOUTS`` wins over a
   ``step_timeout``;
3. on the dashboard (``runs.models.Outcome`` rows). Adding a name already declared by 1 or 2
   is refused; a row whose name was declared later is shadowed by the declaration.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from runs.engine.analysis.leaves import PathError, key_path, parse_path
from runs.engine.analysis.outcomes.checks import Check
from runs.engine.errors import OutcomeError

NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,59}")
STATE = "state"  # the head of a path into the final state
# A path's head: ``state`` or a step's name, with ``#k`` for its k-th visit (from 1).
_HEAD = re.compile(r"([A-Za-z0-9_\-]+)(?:#([1-9][0-9]{0,8}))?")

PIPELINE, SETTINGS, DASHBOARD = "pipeline", "settings", "dashboard"


@dataclass(frozen=True)
class OutcomePath:
    """Where an outcome is read: ``step`` (None: the final state), its ``visit`` (k from 1;
    None: the last visit) and the leaf inside it."""

    text: str
    step: str | None
    visit: int | None
    leaf: tuple[str | int, ...]

    @property
    def leaf_text(self) -> str:
        text = ""
        for part in self.leaf:
            text = f"{text}[{part}]" if isinstance(part, int) else key_path(text, part)
        return text


def parse_outcome_path(text: str) -> OutcomePath:
    """``analyse.best_group`` (the last visit of ``analyse``), ``analyse#2.best_group`` (its
    second visit), ``state.answer`` (the final state), ``summarise`` (a step's whole output);
    after the head, the leaf path the diff writes (``a.b[2]["odd key"]``)."""
    if not isinstance(text, str) or not text.strip():
        raise OutcomeError("an outcome needs a path: step.leaf or state.key")
    text = text.strip()
    head = _HEAD.match(text)
    if head is None:
        raise OutcomeError(
            f"outcome path {text!r} must start with a step's name (step#k for its k-th visit) "
            "or 'state'"
        )
    step, visit = head.group(1), head.group(2)
    rest = text[head.end() :]
    if step == STATE and visit:
        raise OutcomeError(f"outcome path {text!r}: the final state has no visits (state.KEY)")
    if rest.startswith("."):
        rest = rest[1:]
        if not rest or rest.startswith("["):
            raise OutcomeError(f"outcome path {text!r}: a key is missing after the '.'")
    elif rest and not rest.startswith("["):
        raise OutcomeError(f"outcome path {text!r}: expected . or [ after {text[: head.end()]!r}")
    try:
        leaf = parse_path(rest)
    except PathError as exc:
        raise OutcomeError(f"outcome path {text!r}: {exc}") from None
    if step == STATE and not leaf:
        raise OutcomeError(f"outcome path {text!r}: name a key of the final state (state.KEY)")
    return OutcomePath(text, None if step == STATE else step, int(visit) if visit else None, leaf)


@dataclass(frozen=True)
class Outcome:
    """A named leaf of a run (``path``) and an optional ``check``. ``source`` says where it
    was declared; ``row`` is the dashboard row's id (it can be removed there)."""

    name: str
    path: str
    check: Check | None = None
    source: str = PIPELINE
    row: int | None = None
    parsed: OutcomePath = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not NAME.fullmatch(self.name):
            raise OutcomeError(
                f"outcome name {self.name!r}: 1–60 letters, digits, _, - or ., "
                "starting with a letter, digit or _"
            )
        if self.check is not None and not isinstance(self.check, Check):
            raise OutcomeError(f"outcome {self.name!r}: check must be a Check (checks.one_of(…))")
        object.__setattr__(self, "parsed", parse_outcome_path(self.path))

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "check": self.check.as_json() if self.check else None,
            "source": self.source,
        }


def outcome_from_json(value: Any, source: str = SETTINGS) -> Outcome:
    """``{"name", "path", "check"}`` with ``check`` null, absent or ``{kind: argument}``."""
    if not isinstance(value, Mapping):
        raise OutcomeError(f"an outcome is an object with name, path and check, got {value!r}")
    unknown = set(value) - {"name", "path", "check"}
    if unknown:
        raise OutcomeError(f"outcome {value.get('name')!r}: unknown field(s) {sorted(unknown)}")
    check = value.get("check")
    if check is not None:
        if not isinstance(check, Mapping) or len(check) != 1:
            raise OutcomeError(
                f"outcome {value.get('name')!r}: check is one {{kind: argument}} pair, "
                f'e.g. {{"one_of": ["A", "B"]}}'
            )
        ((kind, argument),) = check.items()
        try:
            check = Check.parse(kind, argument)
        except OutcomeError as exc:
            raise OutcomeError(f"outcome {value.get('name')!r}: {exc}") from None
    return Outcome(value.get("name"), value.get("path"), check, source)


def unique(outcomes: Iterable[Outcome], what: str) -> tuple[Outcome, ...]:
    """``outcomes`` as a tuple; a name declared twice is an ``OutcomeError``."""
    found: dict[str, Outcome] = {}
    for outcome in outcomes:
        if outcome.name in found:
            raise OutcomeError(f"{what} declares the outcome {outcome.name!r} twice")
        found[outcome.name] = outcome
    return tuple(found.values())


def configured(pipeline: str, setting: Mapping[str, Any] | None = None) -> tuple[Outcome, ...]:
    """The outcomes ``REWIND_OUTCOMES`` (or ``setting``) sets for ``pipeline``."""
    if setting is None:
        setting = getattr(settings, "REWIND_OUTCOMES", None) or {}
    entries = setting.get(pipeline) or []
    if not isinstance(entries, list):
        raise OutcomeError(f"REWIND_OUTCOMES[{pipeline!r}] must be a list of outcomes")
    return unique(
        (outcome_from_json(entry, SETTINGS) for entry in entries),
        f"REWIND_OUTCOMES[{pipeline!r}]",
    )


def declared(pipeline: str, spec: Any | None) -> tuple[Outcome, ...]:
    """The outcomes declared for ``pipeline`` (its registered ``spec``'s own, then the
    setting's; the setting wins for a name both declare), dashboard rows not included."""
    chosen = {o.name: o for o in getattr(spec, "outcomes", ()) or ()}
    chosen.update({o.name: o for o in configured(pipeline)})
    return tuple(chosen.values())


def validate_setting(value: Any) -> list[str]:
    """What is wrong with a ``REWIND_OUTCOMES`` value, one line each (the system check)."""
    if not isinstance(value, Mapping):
        return ["REWIND_OUTCOMES must be a JSON object: {pipeline: [outcome, …]}"]
    problems = []
    for pipeline in value:
        try:
            configured(pipeline, value)
        except OutcomeError as exc:
            problems.append(f"REWIND_OUTCOMES: {exc}")
    return problems
