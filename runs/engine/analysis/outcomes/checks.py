"""The checks an outcome may carry: equals, one of, contains, regex, between (numeric bounds,
either side open) and JSON schema. Each is parsed once, when it is declared — a regex that does
not compile, bounds that are not numbers or a schema that is not one is an ``OutcomeError``
then, never a failure while a run is shown."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import regex
from jsonschema import validators

from runs.engine.errors import OutcomeError
from runs.lib.jsontext import JSONTextError, parse_json

KINDS = ("equals", "one_of", "contains", "regex", "between", "json_schema")
REGEX_TIMEOUT = 0.05  # seconds one match may take: a pattern typed on the dashboard cannot
# hold a request by catastrophic backtracking (``regex`` stops it and we say so)
MAX_PATTERN = 1000


def same(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value (``1 == 1.0``), but ``true`` is not ``1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _search(pattern: Any, text: str) -> bool:
    """``pattern`` found in ``text``, within ``REGEX_TIMEOUT``; a match that runs longer fails
    the check (TimeoutError) rather than hold the page."""
    return pattern.search(text, timeout=REGEX_TIMEOUT) is not None


def _timed_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    """JSON schema's ``pattern``, through ``regex`` with the timeout (``re`` has none)."""
    if isinstance(instance, str) and not _search(regex.compile(pattern), instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


# Values a schema is tried on when declared: one of each JSON type.
_PROBES: tuple[Any, ...] = (None, True, 0, 1.5, "", "text", [], [None], {}, {"key": None})


def _evaluable(compiled: Any) -> None:
    """A schema that cannot be evaluated is refused when declared, not found out by every page
    that shows its outcome: ``{"$ref": "#"}`` refers to itself without end (RecursionError),
    a ``$ref`` to nothing cannot be resolved."""
    for probe in _PROBES:
        try:
            jsonschema.exceptions.best_match(compiled.iter_errors(probe))
        except RecursionError:
            raise OutcomeError(
                "json_schema refers to itself without end (a $ref cycle that checks nothing): "
                "it could never be evaluated"
            ) from None
        except TimeoutError:
            continue  # a pattern that is slow on a probe: judged under its timeout later
        except Exception as exc:  # noqa: BLE001 — any other way the schema cannot be evaluated
            raise OutcomeError(f"json_schema cannot be evaluated: {exc}"[:300]) from None


def _validator_class(schema: Any) -> Any:
    base = validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return validators.extend(base, {"pattern": _timed_pattern})


@dataclass(frozen=True)
class Check:
    """``kind`` and its ``argument``, as declared; ``compiled`` is what ``judge`` uses."""

    kind: str
    argument: Any
    compiled: Any = field(default=None, compare=False, repr=False)

    @classmethod
    def parse(cls, kind: str, argument: Any) -> Check:
        """A check from a kind and a JSON argument; an ``OutcomeError`` says what is wrong."""
        if kind not in KINDS:
            raise OutcomeError(f"unknown check {kind!r}; checks are {', '.join(KINDS)}")
        compiled: Any = None
        if kind == "one_of":
            if not isinstance(argument, list | tuple) or not argument:
                raise OutcomeError("one_of takes a non-empty list of values")
            argument = list(argument)
        elif kind == "regex":
            if not isinstance(argument, str) or not argument:
                raise OutcomeError("regex takes a pattern (text)")
            if len(argument) > MAX_PATTERN:
                raise OutcomeError(f"regex: a pattern of at most {MAX_PATTERN} characters")
            try:
                compiled = regex.compile(argument)
            except regex.error as exc:
                raise OutcomeError(f"regex {argument!r} does not compile: {exc}") from None
        elif kind == "between":
            argument = _bounds(argument)
        elif kind == "json_schema":
            if not isinstance(argument, dict | bool):
                raise OutcomeError("json_schema takes a JSON schema (an object)")
            klass = _validator_class(argument)
            try:
                klass.check_schema(argument)
            except jsonschema.SchemaError as exc:
                raise OutcomeError(f"json_schema is not a valid schema: {exc.message}") from None
            compiled = klass(argument)
            _evaluable(compiled)
        return cls(kind, argument, compiled)

    def as_json(self) -> dict[str, Any]:
        """``{kind: argument}``: the form ``REWIND_OUTCOMES`` takes and ``--json`` prints."""
        return {self.kind: self.argument}

    @property
    def text(self) -> str:
        """For people: ``one of "A", "B"``, ``between 0 and 10``, ``matches /^ok/``."""
        arg = self.argument
        if self.kind == "equals":
            return f"= {_short(arg)}"
        if self.kind == "one_of":
            return "one of " + ", ".join(_short(v) for v in arg)
        if self.kind == "contains":
            return f"contains {_short(arg)}"
        if self.kind == "regex":
            return f"matches /{arg}/"
        if self.kind == "between":
            low, high = arg
            if low is None:
                return f"≤ {high}"
            return f"≥ {low}" if high is None else f"between {low} and {high}"
        return "matches a JSON schema"

    def judge(self, value: Any) -> tuple[bool, str]:
        """``(passed, why)``: ``why`` says what failed ("" when it passed)."""
        kind, arg = self.kind, self.argument
        if kind == "equals":
            return (True, "") if same(value, arg) else (False, f"is not {_short(arg)}")
        if kind == "one_of":
            if any(same(value, v) for v in arg):
                return True, ""
            return False, "is not " + " or ".join(_short(v) for v in arg)
        if kind == "contains":
            return _contains(value, arg)
        if kind == "regex":
            if not isinstance(value, str):
                return False, "is not text"
            try:
                found = _search(self.compiled, value)
            except TimeoutError:
                return False, f"matching /{arg}/ took over {REGEX_TIMEOUT} s (stopped)"
            return (True, "") if found else (False, f"does not match /{arg}/")
        if kind == "between":
            if not _number(value) or math.isnan(value):
                return False, "is not a number"
            low, high = arg
            if low is not None and value < low:
                return False, f"is below {low}"
            if high is not None and value > high:
                return False, f"is above {high}"
            return True, ""
        try:
            error = jsonschema.exceptions.best_match(self.compiled.iter_errors(value))
        except TimeoutError:
            return False, f"a pattern of the schema took over {REGEX_TIMEOUT} s (stopped)"
        return (True, "") if error is None else (False, f"schema: {error.message}")


@dataclass(frozen=True)
class RefusedCheck(Check):
    """A stored check the parser refuses now — a dashboard row older than the rule that refuses
    it (a recursive schema): its outcome is shown, marked ``error`` with ``reason``, and can be
    removed; it is never evaluated."""

    reason: str = ""

    def judge(self, value: Any) -> tuple[bool, str]:
        raise OutcomeError(self.reason)


def _bounds(argument: Any) -> list[float | int | None]:
    if not isinstance(argument, list | tuple) or len(argument) != 2:
        raise OutcomeError("between takes [low, high] (null for an open side)")
    low, high = argument
    for side in (low, high):
        if side is not None and (not _number(side) or not math.isfinite(side)):
            raise OutcomeError(f"between: bounds must be numbers, got {side!r}")
    if low is None and high is None:
        raise OutcomeError("between needs at least one bound")
    if low is not None and high is not None and low > high:
        raise OutcomeError(f"between: the low bound {low} is above the high bound {high}")
    return [low, high]


def _contains(value: Any, item: Any) -> tuple[bool, str]:
    """Text contains a substring; a list an item; an object a key."""
    if isinstance(value, str):
        if not isinstance(item, str):
            return False, "is text; contains needs text to look for"
        return (True, "") if item in value else (False, f"does not contain {_short(item)}")
    if isinstance(value, list | tuple):
        found = any(same(v, item) for v in value)
        return (True, "") if found else (False, f"has no item {_short(item)}")
    if isinstance(value, dict):
        found = isinstance(item, str) and item in value
        return (True, "") if found else (False, f"has no key {_short(item)}")
    return False, "is not text, a list or an object"


def _short(value: Any, limit: int = 40) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def equals(value: Any) -> Check:
    return Check.parse("equals", value)


def one_of(*values: Any) -> Check:
    return Check.parse("one_of", list(values))


def contains(item: Any) -> Check:
    return Check.parse("contains", item)


def matches(pattern: str) -> Check:
    return Check.parse("regex", pattern)


def between(low: float | None = None, high: float | None = None) -> Check:
    return Check.parse("between", [low, high])


def json_schema(schema: dict[str, Any]) -> Check:
    return Check.parse("json_schema", schema)


def _json_or_text(text: str) -> Any:
    try:
        return parse_json(text)
    except JSONTextError:
        return text


def check_from_text(kind: str, text: str) -> Check | None:
    """A check typed by a person (the dashboard's form): ``kind`` blank is no check. The
    argument is read per kind — equals, contains: JSON when it is JSON (``3``, ``true``,
    ``"3"``), else text; one_of: a JSON list, else comma-separated values; regex: the text as
    it is; between: ``low..high`` (either side blank) or ``[low, high]``; json_schema: JSON."""
    kind, text = kind.strip(), text.strip()
    if not kind:
        if text:
            raise OutcomeError("an argument without a check: pick a check, or leave both blank")
        return None
    if kind not in KINDS:
        raise OutcomeError(f"unknown check {kind!r}; checks are {', '.join(KINDS)}")
    if kind in ("equals", "contains"):
        return Check.parse(kind, _json_or_text(text))
    if kind == "one_of":
        value = _json_or_text(text)
        if not isinstance(value, list):
            value = [_json_or_text(part.strip()) for part in text.split(",") if part.strip()]
        return Check.parse(kind, value)
    if kind == "regex":
        return Check.parse(kind, text)
    if kind == "between":
        if ".." in text and not text.startswith("["):
            low, _, high = text.partition("..")
            return Check.parse(kind, [_bound(low), _bound(high)])
        return Check.parse(kind, _json_or_text(text))
    try:
        schema = parse_json(text)
    except JSONTextError as exc:
        raise OutcomeError(f"json_schema: the schema is {exc}") from None
    return Check.parse(kind, schema)


def _bound(text: str) -> Any:
    text = text.strip()
    if not text:
        return None
    try:
        return int(text) if text.lstrip("+-").isdigit() else float(text)
    except ValueError:
        raise OutcomeError(f"between: bounds must be numbers, got {text!r}") from None
