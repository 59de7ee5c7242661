"""JSON schema values: tool arguments and ``response_format`` ``json_schema`` answers."""

from __future__ import annotations

import json
import math
import random
import re
import uuid
from typing import Any

from .matching import _bag, _best
from .prose import _STOPWORDS, _TITLE_KEYS, _numbers, _Writer
from .shapes import _content_words

# -- JSON schema values (tool arguments, response_format json_schema) -------------------

_NAME_KEYS = frozenset(
    """
    location city town place country destination origin address region area where venue
    name person author company organisation organization recipient customer contact
    full_name first_name last_name username user owner team
    """.split()
)
_QUERY_KEYS = frozenset("query q search search_query keywords keyword term terms topic".split())
_VERBATIM_KEYS = frozenset("question prompt text input message request instruction".split())
_URL_KEYS = frozenset("url uri link href website homepage image_url source_url".split())
_LONG_TEXT_HINTS = (
    "summary description reason reasoning explanation rationale answer analysis content body "
    "details notes comment message response result feedback justification thought plan "
    "conclusion recommendation finding insight"
).split()
_PROBABILITY_HINTS = ("confidence", "score", "probability", "likelihood", "ratio", "rate", "weight")
_LEADING_NON_NAMES = frozenset(
    """
    what whats please the is can could tell find show get give hi hello write draw generate
    create make look search who how why where when which book send set a an i it in on at
    for and or but my our your this that these those there here if do does did are was
    """.split()
)
_PROPER_RE = re.compile(r"\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")
_ISO_DATE_RE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def _proper_nouns(text: str) -> list[str]:
    """Capitalised word runs that look like names ("Paris", "Grace Hopper"), those inside
    a sentence first (a sentence's first word is capitalised anyway: "Review ...")."""
    inside: list[str] = []
    initial: list[str] = []
    for match in _PROPER_RE.finditer(text):
        words = match.group(0).split()
        while words and words[0].lower().replace("'", "") in _LEADING_NON_NAMES:
            words = words[1:]
        if not words or (len(words) == 1 and words[0].lower() in _STOPWORDS):
            continue
        before = text[: match.start()].rstrip()
        at_start = not before or before[-1] in ".!?:;\n\"'"
        (initial if at_start and words == match.group(0).split() else inside).append(
            " ".join(words).strip("'")
        )
    return list(dict.fromkeys(inside + initial))


class _SchemaFiller:
    """Builds a value valid for a JSON schema from the prompt's words and numbers.

    ``all_properties``: fill every declared property (structured output) or only the
    required ones (tool arguments; every property when the schema marks none required).
    """

    def __init__(self, root: Any, rng: random.Random, text: str, *, all_properties: bool) -> None:
        self.root = root if isinstance(root, dict) else {}
        self.rng = rng
        self.text = text
        self.bag = _bag(text)
        self.nums = _numbers(text)
        self.pending = list(self.nums)  # numbers still to quote in prose
        self.words = _content_words(text)
        self.writer = _Writer(rng, self.words)
        self.names = _proper_nouns(text)
        self.all_properties = all_properties
        self.slot = 0  # varies the words of successive string values
        self.number_slot = 0
        self.name_slot = 0

    def _next_name(self) -> int:
        self.name_slot += 1
        return self.name_slot - 1

    # Schema plumbing ---------------------------------------------------------------

    def _resolve(self, schema: Any, hops: int = 0) -> dict:
        if not isinstance(schema, dict):
            return {}
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#") and hops < 32:
            target: Any = self.root
            for part in ref[1:].split("/"):
                if not part:
                    continue
                part = part.replace("~1", "/").replace("~0", "~")
                target = target.get(part) if isinstance(target, dict) else None
            merged = {
                **self._resolve(target, hops + 1),
                **{k: v for k, v in schema.items() if k != "$ref"},
            }
            return merged
        if isinstance(schema.get("allOf"), list):
            merged: dict = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                part = self._resolve(part, hops + 1)
                for key, value in part.items():
                    if key == "properties":
                        merged["properties"] = {**merged.get("properties", {}), **value}
                    elif key == "required":
                        merged["required"] = list(dict.fromkeys(merged.get("required", []) + value))
                    else:
                        merged.setdefault(key, value)
            return merged
        return schema

    @staticmethod
    def _type(schema: dict) -> str:
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if isinstance(kind, str):
            return kind
        if "properties" in schema or "additionalProperties" in schema:
            return "object"
        if "items" in schema or "prefixItems" in schema:
            return "array"
        return "string"

    # Values ------------------------------------------------------------------------

    def value(self, schema: Any, key: str = "", depth: int = 0) -> Any:
        schema = self._resolve(schema)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self._enum(schema["enum"])
        for combinator in ("anyOf", "oneOf"):
            branches = schema.get(combinator)
            if isinstance(branches, list) and branches:
                resolved = [self._resolve(b) for b in branches]
                chosen = next((b for b in resolved if self._type(b) != "null"), resolved[0])
                base = {k: v for k, v in schema.items() if k != combinator}
                return self.value({**base, **chosen}, key, depth)
        kind = self._type(schema)
        if depth > 12:  # a recursive schema: stop with the smallest valid value
            return {
                "object": {},
                "array": [],
                "string": "",
                "integer": 0,
                "number": 0,
                "boolean": False,
            }.get(kind)
        if kind == "object":
            return self._object(schema, depth)
        if kind == "array":
            return self._array(schema, key, depth)
        if kind == "integer":
            return self._number(schema, key, integer=True)
        if kind == "number":
            return self._number(schema, key, integer=False)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        return self._string(schema, key)

    def _enum(self, values: list) -> Any:
        texts = [v for v in values if isinstance(v, str)]
        if len(texts) == len(values):
            return _best(texts, self.bag, self.rng)
        return self.rng.choice(values)

    def _object(self, schema: dict, depth: int) -> dict:
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = [k for k in schema.get("required") or [] if isinstance(k, str)]
        if self.all_properties or not required:
            keys = list(props) + [k for k in required if k not in props]
        else:
            keys = [k for k in props if k in required] + [k for k in required if k not in props]
        result = {key: self.value(props.get(key, {}), key, depth + 1) for key in keys}
        minimum = schema.get("minProperties")
        extra = schema.get("additionalProperties")
        if isinstance(minimum, int) and len(result) < minimum and extra is not False:
            extra_schema = extra if isinstance(extra, dict) else {"type": "string"}
            for word in self.words + [f"key_{i}" for i in range(minimum)]:
                if len(result) >= minimum:
                    break
                result.setdefault(word, self.value(extra_schema, word, depth + 1))
        return result

    def _array(self, schema: dict, key: str, depth: int) -> list:
        prefix = schema.get("prefixItems")
        if isinstance(prefix, list) and prefix:
            return [self.value(item, key, depth + 1) for item in prefix]
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        low = schema.get("minItems") if isinstance(schema.get("minItems"), int) else 1
        high = schema.get("maxItems") if isinstance(schema.get("maxItems"), int) else None
        high = max(low, min(high if high is not None else low + 2, low + 2))
        count = self.rng.randint(low, high)
        values: list = []
        enum = self._resolve(items).get("enum")
        if schema.get("uniqueItems") and isinstance(enum, list):
            return self.rng.sample(enum, min(max(count, low), len(enum)))
        singular = key[:-1] if key.endswith("s") else key
        for _ in range(count * 3):
            if len(values) >= count:
                break
            value = self.value(items, singular, depth + 1)
            if schema.get("uniqueItems") and value in values:
                continue
            values.append(value)
        return values

    def _number(self, schema: dict, key: str, *, integer: bool) -> int | float:
        low, high = schema.get("minimum"), schema.get("maximum")
        step = 1 if integer else 0.01
        if isinstance(schema.get("exclusiveMinimum"), int | float):
            low = schema["exclusiveMinimum"] + step
        if isinstance(schema.get("exclusiveMaximum"), int | float):
            high = schema["exclusiveMaximum"] - step
        low = low if isinstance(low, int | float) else None
        high = high if isinstance(high, int | float) else None

        def fits(v: float) -> bool:
            return (low is None or v >= low) and (high is None or v <= high)

        lowered = key.lower()
        probability = not integer and any(h in lowered for h in _PROBABILITY_HINTS)
        candidates = []
        for text in self.nums:
            number = float(text)
            if probability and not 0 <= number <= 1:
                continue
            if (not integer or number.is_integer()) and fits(number):
                candidates.append(int(number) if integer or number.is_integer() else number)
        if candidates:
            self.number_slot += 1
            return candidates[(self.number_slot - 1) % len(candidates)]
        if probability and fits(0.55) and fits(0.95):
            return round(self.rng.uniform(0.55, 0.95), 2)
        if integer:
            lo = math.ceil(low) if low is not None else (high - 9 if high is not None else 1)
            hi = math.floor(high) if high is not None else lo + 9
            return self.rng.randint(int(lo), int(max(lo, hi)))
        lo = low if low is not None else (high - 100 if high is not None else 0.0)
        hi = high if high is not None else lo + 100
        value = round(self.rng.uniform(lo, hi), 2)
        return min(max(value, lo), hi)

    def _string(self, schema: dict, key: str) -> str:
        low = key.lower()
        fmt = schema.get("format")
        self.slot += 1
        shift = self.slot
        words = self.writer._rotated(shift)
        slug = "-".join(re.sub(r"[^a-z0-9]+", "-", w) for w in words[:2]).strip("-") or "item"
        dates = _ISO_DATE_RE.findall(self.text)
        if fmt == "date-time":
            value = f"{dates[0] if dates else '2025-01-15'}T12:00:00Z"
        elif fmt == "date" or low == "date" or low.endswith(("_date", "_on")):
            value = dates[0] if dates else "2025-01-15"
        elif fmt == "time":
            value = "12:00:00"
        elif fmt == "email" or "email" in low:
            value = f"{re.sub(r'[^a-z0-9]+', '.', words[0]).strip('.') or 'someone'}@example.com"
        elif fmt in ("uri", "url", "iri") or low in _URL_KEYS or low.endswith("_url"):
            value = f"https://example.invalid/{slug}"
        elif fmt == "uuid" or low in ("uuid", "guid"):
            value = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        elif low == "id" or low.endswith("_id"):
            value = f"{slug}-{self.rng.randrange(1000, 10000)}"
        elif low in _NAME_KEYS or low.endswith(("_name", "_city", "_location")):
            value = (
                self.names[self._next_name() % len(self.names)]
                if self.names
                else " ".join(w.capitalize() for w in words[:2])
            )
        elif low in _QUERY_KEYS or low.endswith("query"):
            value = " ".join(self.words[:4] + self.nums[:2])
        elif low in _VERBATIM_KEYS and not self.all_properties:
            value = " ".join(self.text.split())[:300]
        elif any(t in low for t in _TITLE_KEYS):
            value = self.writer.title(self.nums, shift=shift)
        elif self.all_properties or any(h in low for h in _LONG_TEXT_HINTS):
            nums, self.pending = self.pending, []
            value = self.writer.sentence(
                nums,
                shift=shift,
                variant=self.rng.randrange(1000),
                follow_up=self.rng.random() < 0.4,
            )
        else:
            value = " ".join(words[:3])
        minimum = schema.get("minLength")
        maximum = schema.get("maxLength")
        if isinstance(minimum, int):
            while len(value) < minimum:
                value = f"{value} {' '.join(self.words)}".strip() if self.words else value + "x"
        if isinstance(maximum, int) and maximum >= 0:
            value = value[:maximum]
        return value


def _schema_answer(schema: Any, text: str, rng: random.Random) -> str:
    """A compact JSON document valid for ``schema`` (structured output)."""
    value = _SchemaFiller(schema, rng, text, all_properties=True).value(schema)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
