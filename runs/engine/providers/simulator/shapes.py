"""The prompt shapes real apps use, and :func:`compose_text`, the text answer."""

from __future__ import annotations

import random
import re

from .matching import _TOKEN_RE, _bag, _best
from .prose import (
    _FALLBACK_WORDS,
    _fill_keys,
    _join,
    _json_keys,
    _last_user,
    _numbers,
    _role_text,
    _salient_words,
    _Writer,
    compose,
)

# -- one word out of a listed set --------------------------------------------------------

_OPTION_NOUNS = (
    r"(?:modes?|options?|categor(?:y|ies)|labels?|class(?:es)?|choices?|intents?|values?|"
    r"words?|answers?|types?|actions?|routes?|tags?|topics?|sentiments?|responses?|outputs?)"
)
_CHOICE_INTRO_RE = re.compile(
    r"(?:\b(?:(?:following|these|possible|available|allowed|valid|supported)\s+(?:[a-z-]+\s+){0,2}?)?"
    + _OPTION_NOUNS
    + r"(?:\s+(?:are|is|include))?\s*:"
    r"|\b(?:one|exactly one|only one|any one) of(?: the following| these)?(?:\s+[a-z]+)?\s*:"
    r"|\b(?:one|exactly one|only one) of\s*(?=[\[({]))"
    r"[ \t]*(?P<list>[^\n]+)",
    re.IGNORECASE,
)
_ONE_WORD_RE = re.compile(
    r"\b(?:single|one)[\s-]word\b|\bone of\b|\bexactly one\b|\bnothing else\b"
    r"|\bno other (?:text|words?)\b|\bonly (?:one|the (?:\w+ )?(?:name|label|category|mode|word|option|class))\b"
    r"|\b(?:respond|reply|answer)(?:ing)? (?:only )?with (?:only |just )?(?:the|one|a) (?:\w+ )?"
    r"(?:label|category|mode|option|class|word)\b",
    re.IGNORECASE,
)
_YES_NO_RE = re.compile(
    r"\b(?:answer|respond|reply)\b[^.\n?]{0,40}?[\"'`*]?\b(yes|true)\b[\"'`*]?\s*(?:or|/)\s*"
    r"[\"'`*]?\b(no|false)\b",
    re.IGNORECASE,
)
_ONLY_RE = re.compile(r"\b(?:only|just|single|one word|nothing else)\b", re.IGNORECASE)
_LIST_END_RE = re.compile(r"[.!?;\])}](?:\s|$|[A-Z\"'])|[\])}]")
_OPTION_RE = re.compile(r"^[A-Za-z0-9][\w-]*(?: [A-Za-z0-9][\w-]*){0,2}$")
_FALLBACK_OPTIONS = (
    "unknown other none neutral unclear misc miscellaneous general default fallback "
    "irrelevant unsure not_sure n/a na"
).split()
_FALLBACK_RE = re.compile(
    r"(?:\bif none\b|\bif no\b|\botherwise\b|\bif (?:you are |you're )?unsure\b|\bif unclear\b"
    r"|\bif nothing\b|\bdoes not fit\b|\bdoesn't fit\b)[^.\n]*?[\"'`*]([\w-]+)[\"'`*]",
    re.IGNORECASE,
)
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+|\n+")
_INSTRUCTION_CUE_RE = re.compile(
    r"\b(?:respond|reply)(?:ing)?\b|\bsingle word\b|\bone word\b|\bnone of\b|\bwould be\b",
    re.IGNORECASE,
)


def _parse_options(listing: str) -> list[str]:
    end = _LIST_END_RE.search(listing)
    listing = listing[: end.start()] if end else listing
    options: list[str] = []
    for part in re.split(r",|\||/|\bor\b|\band\b", listing):
        item = part.strip().strip("\"'`*[](){}<>.:").strip()
        if not item:
            continue
        if not _OPTION_RE.match(item):
            break
        options.append(item)
    return list(dict.fromkeys(options)) if len(set(options)) >= 2 else []


def _choice_options(text: str) -> list[str] | None:
    """The listed options when ``text`` asks for exactly one of them, else None."""
    for match in _CHOICE_INTRO_RE.finditer(text):
        options = _parse_options(match.group("list"))
        if options and (_ONE_WORD_RE.search(text) or "one of" in match.group(0).lower()):
            return options
    yes_no = _YES_NO_RE.search(text)
    if yes_no and _ONLY_RE.search(text):
        return [yes_no.group(1), yes_no.group(2)]
    return None


def _choice_request(user: str, options: list[str]) -> str:
    """The user's own request inside a choice prompt: the sentences that are not the
    instruction (the list, the examples naming an option, "respond with a single word")."""
    lowered = [o.lower() for o in options]
    kept = []
    for sentence in _SENTENCE_SPLIT_RE.split(user):
        low = sentence.lower()
        named = sum(1 for o in lowered if re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", low))
        quoted = any(re.search(rf"[\"'`*]{re.escape(o)}[\"'`*]", low) for o in lowered)
        if named >= 2 or quoted or _INSTRUCTION_CUE_RE.search(sentence):
            continue
        kept.append(sentence)
    return " ".join(kept).strip() or user


def _choose_option(options: list[str], system: str, user: str, rng: random.Random) -> str:
    everything = f"{system}\n{user}"
    fallback = None
    named = _FALLBACK_RE.search(everything)
    if named:
        fallback = next((o for o in options if o.lower() == named.group(1).lower()), None)
    if fallback is None:
        fallback = next((o for o in options if o.lower() in _FALLBACK_OPTIONS), None)
    bag = _bag(_choice_request(user, options))
    return _best(options, bag, rng, fallback=fallback)


# -- other prompt shapes real apps use ---------------------------------------------------

_JSON_BULLETS_INTRO_RE = re.compile(r"\bjson\b[^\n]*\bkeys?\b[^\n]*$", re.IGNORECASE | re.MULTILINE)
_BULLET_KEY_RE = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s*[\"'`]?([A-Za-z_][\w]*)[\"'`]?\s*:")
_LINES_RE = re.compile(
    r"\b(?:joined|separated|delimited)\s+by\s+(?:a\s+)?new\s*-?\s*lines?\b"
    r"|\bone\s+per\s+line\b|\beach\s+on\s+(?:its\s+own|a\s+new|a\s+separate)\s+line\b",
    re.IGNORECASE,
)
_COUNT_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_AT_MOST_RE = re.compile(
    r"\b(?:at most|up to|no more than|maximum of|max(?:imum)?)\s+(\d+|one|two|three|four|five|six)\b",
    re.IGNORECASE,
)
_CODE_RE = re.compile(
    r"\b(?:only|just)\b[^.\n]{0,15}\bcode\b"
    r"|\b(?:write|generate|create|implement|give me|show me)\b[^.\n]{0,40}"
    r"\b(?:code|function|script|program|snippet|regex)\b",
    re.IGNORECASE,
)
_POEM_RE = re.compile(r"\b(?:poem|poetry|verse|haiku|sonnet|limerick)s?\b", re.IGNORECASE)
_DRAFT_RE = re.compile(r"\bdraft\b", re.IGNORECASE)
_EMAIL_RE = re.compile(r"\be-?mail\b", re.IGNORECASE)

# Words of the instruction, not of the content, in the prompts of apps we answer.
_INSTRUCTION_WORDS = frozenset(
    """
    questions question clarifying clarification clarifications clarify email emails user
    users sender original task tasks instructions instruction newlines newline joined
    generate generating return string empty valuable time feel leverage included asking
    chatbot responses response behalf prompt prompted mode modes draft first list less
    only must okay really code respond responding text snippet function script program
    poem poetry verse haiku sonnet limerick write information already asked received
    answers previous feedback incorporate following based assistant helpful
    """.split()
)


def _content_words(text: str, limit: int = 8) -> list[str]:
    words = [
        w for w in _salient_words(text, limit + 24) if w not in _INSTRUCTION_WORDS and "'" not in w
    ]
    if not words or words == list(_FALLBACK_WORDS):
        return list(_FALLBACK_WORDS)
    return words[:limit]


_CONTENT_SPLIT_RE = re.compile(r"(?<=[.!?])\s*(?=[A-Z*])|\n+")
_INSTRUCTION_SENTENCE_RE = re.compile(
    r"\b(?:please|respond|reply|return|your (?:first )?task|joined by|newlines?|clarif\w*"
    r"|at most|must be the only|if you do not|you are a|you have already)\b",
    re.IGNORECASE,
)


_INTRODUCER_RE = re.compile(r"^.*?\b(?:is|are|this|follows?|below)\s*:\s*", re.IGNORECASE)


def _content_text(text: str) -> str:
    """``text`` without its instruction sentences ("generate at most 3 questions"); what
    follows an introducer ("The email you are to respond to is: ...") is content."""
    kept = []
    for sentence in _CONTENT_SPLIT_RE.split(text):
        sentence = _INTRODUCER_RE.sub("", sentence or "", count=1)
        if sentence.strip() and not _INSTRUCTION_SENTENCE_RE.search(sentence):
            kept.append(sentence)
    return "\n".join(kept) or text


def _json_bullet_keys(text: str) -> list[str] | None:
    """Keys from a "json object with these keys:" line followed by ``- key: ...`` bullets."""
    lines = text.splitlines()
    for match in _JSON_BULLETS_INTRO_RE.finditer(text):
        start = text.count("\n", 0, match.start()) + 1
        keys: list[str] = []
        for line in lines[start:]:
            bullet = _BULLET_KEY_RE.match(line)
            if bullet:
                keys.append(bullet.group(1))
            elif line.strip() or keys:
                break
        if len(keys) >= 1:
            return list(dict.fromkeys(keys))
    return None


_QUESTION_TEMPLATES = (
    "Should the reply commit to {w1}, or keep it open for now?",
    "What tone do you want for the part about {w1}: formal or friendly?",
    "Is there a date or deadline for {w1} that I should mention?",
    "Do you want me to mention {w2} explicitly?",
    "Is there anything about {w1} and {w2} that should stay out of the reply?",
    "Should I propose a next step on {w2}?",
)
_LINE_TEMPLATES = (
    "{W1} and {w2}, first of all.",
    "A closer look at {w2}.",
    "What {w1} means for {w3}.",
    "The link between {w3} and {w1}.",
    "Next steps on {w2}.",
    "Open points on {w1}.",
)


def _lines_answer(user: str, rng: random.Random) -> str:
    """At most N items (questions when questions are asked for), one per line."""
    content = _content_text(user)
    words = _content_words(content)
    w = (words * 3)[:3]
    nums = _numbers(content)
    limit = _AT_MOST_RE.search(user)
    most = 3
    if limit:
        token = limit.group(1).lower()
        most = int(token) if token.isdigit() else _COUNT_WORDS[token]
    most = max(1, min(most, 6))
    questions = re.search(r"\bquestions?\b", user, re.IGNORECASE) is not None
    templates = _QUESTION_TEMPLATES if questions else _LINE_TEMPLATES
    count = rng.randint(1, most)
    picked = [
        t.format(w1=w[0], w2=w[1], w3=w[2], W1=w[0].capitalize())
        for t in rng.sample(templates, count)
    ]
    if nums and picked:
        picked[0] = (
            f"Should the reply confirm {_join(nums)} as stated?"
            if questions
            else f"The figures {_join(nums)}."
        )
    return "\n".join(picked)


_CODE_NOISE = frozenset(
    """
    code coding function script program programming snippet python javascript typescript
    java rust golang sql implement implementation language
    """.split()
)
_CODE_BODIES = (
    (("sort", "sorted", "order"), "return sorted(values)"),
    (("reverse", "reversed", "backwards"), "return values[::-1]"),
    (("sum", "total", "add"), "return sum(values)"),
    (("max", "maximum", "largest", "biggest"), "return max(values)"),
    (("min", "minimum", "smallest"), "return min(values)"),
    (("count", "length", "size"), "return len(values)"),
    (
        ("unique", "dedupe", "deduplicate", "distinct", "duplicates"),
        "return list(dict.fromkeys(values))",
    ),
)


def _code_answer(user: str, rng: random.Random) -> str:
    """Only code (no prose, no fence): a small, valid Python function named after the
    request; it is a placeholder and says so in its docstring."""
    words = [w for w in _content_words(user) if w not in _CODE_NOISE] or ["task"]
    name = "_".join(re.sub(r"[^a-z0-9]", "_", w) for w in words[:2]).strip("_") or "solve"
    if not name[0].isalpha():
        name = f"solve_{name}"
    tokens = set(_TOKEN_RE.findall(user.lower()))
    body = next(
        (code for triggers, code in _CODE_BODIES if tokens & set(triggers)),
        rng.choice(("return list(values)", "return [value for value in values]")),
    )
    lines = [
        f"def {name}(values):",
        f'    """{" ".join(words[:3]).capitalize()}: a placeholder answer from the Rewind simulator."""',
    ]
    nums = _numbers(user)
    if nums:
        lines.append(f"    # figures from the request: {', '.join(nums)}")
    lines.append(f"    {body}")
    return "\n".join(lines)


_POEM_STANZAS = (
    (
        "Of {w1} the quiet morning speaks,",
        "where {w2} and {w3} meet;",
        "a measure of {w1} the evening keeps,",
        "and {w2} makes the line complete.",
    ),
    (
        "{W1} rises with the light,",
        "{w2} follows close behind,",
        "and {w3}, held through the night,",
        "is what the dawn will find.",
    ),
)


def _poem_answer(user: str, rng: random.Random) -> str:
    words = _content_words(user)
    w = (words * 3)[:3]
    stanza = [
        line.format(w1=w[0], w2=w[1], w3=w[2], W1=w[0].capitalize())
        for line in rng.choice(_POEM_STANZAS)
    ]
    nums = _numbers(user)
    if nums:
        stanza.insert(2, f"counting {_join(nums)} along the way,")
    return "\n".join(stanza)


def _email_answer(user: str, rng: random.Random) -> str:
    content = _content_text(user)
    words = _content_words(content)
    nums = _numbers(content)
    writer = _Writer(rng, words)
    base = rng.randrange(1000)
    w = (words * 2)[:2]
    about = _join(w) if w[0] != w[1] else w[0]
    body = writer.sentence(nums, shift=0, variant=base, follow_up=False)
    closing = rng.choice(
        (
            f"Please let me know if anything about {w[0]} needs a change.",
            f"I am happy to talk through {w[1]} if that helps.",
            f"Let me know how you would like to proceed on {w[0]}.",
        )
    )
    return f"Hi,\n\nThank you for your message about {about}. {body}\n\n{closing}\n\nBest regards"


def compose_text(messages: list[dict], rng: random.Random) -> str:
    """A text answer: :func:`compose` unless the prompt has one of the shapes above."""
    system = _role_text(messages, "system", "developer")
    if _json_keys(system) is not None:
        return compose(messages, rng)
    user = _last_user(messages)
    options = _choice_options(f"{system}\n{user}")
    if options:
        return _choose_option(options, system, user, rng)
    keys = _json_bullet_keys(f"{system}\n{user}")
    if keys:
        writer = _Writer(rng, _salient_words(user))
        base = rng.randrange(1000)
        return _fill_keys(keys, _numbers(user), writer, base, rng)
    if _LINES_RE.search(user):
        return _lines_answer(user, rng)
    if _CODE_RE.search(user):
        return _code_answer(user, rng)
    if _POEM_RE.search(user) and re.search(
        r"\b(?:write|generate|compose|create|make|give)\b", user, re.IGNORECASE
    ):
        return _poem_answer(user, rng)
    if _DRAFT_RE.search(user) and _EMAIL_RE.search(f"{system}\n{user}"):
        return _email_answer(user, rng)
    return compose(messages, rng)
