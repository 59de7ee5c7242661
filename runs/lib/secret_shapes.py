"""What a credential looks like, whatever it is called: the rules of detect-secrets, Yelp's
maintained secret scanner, rather than a list of ours (DESIGN.md, "Credentials are never
stored"). ``redaction`` uses them on every text it cleans.

- Its regex plugins — provider key prefixes and formats (AWS, Azure storage, GitHub, GitLab,
  Slack, Stripe, SendGrid, Twilio, Mailchimp, npm, PyPI, Discord, Telegram, OpenAI, Square),
  JWTs, passwords in a URL, private keys — every one it ships, so a release that knows a new
  provider is used as it is, except those listed in ``NOT_USED`` (why: beside each).
- Its high-entropy checks (base64 above 4.5 bits a character, hex above 3.0, an all-digit
  number discounted, with its own filters for sequences and UUIDs), on the pieces of a URL's
  path only — a token in a webhook's path —, never on every word of a text. What entropy finds
  is a guess (a document's id is as random as a token), so it is replaced by a fingerprint,
  ``[redacted:<12 hex digits of its sha256>]``: two different ones never share a cache key or an
  answer, and nothing that random can be read back from 48 bits of its hash.

The plugins are only asked to match text, never to ``verify`` a match (that would send it to
its provider). detect-secrets is imported on first use (``warm``): its logging module turns
``logging.captureWarnings`` on as it is imported, which is turned back off here.
"""

from __future__ import annotations

import functools
import logging
import math
import re
import warnings
from collections.abc import Callable
from typing import Any

from runs.lib import sealing

# detect-secrets' regex plugins not used, by class name.
NOT_USED = {
    "IPPublicDetector": "an address is no credential, and prompts are full of them",
    "ArtifactoryDetector": "its password rule (AP, a hex digit, 8 letters) matches words",
    # Written for source files (a keyword, then an assignment): nothing a call sends looks so,
    # and together they would take 6 times as long as every other rule.
    "CloudantDetector": "keyword context for source files",
    "IbmCloudIamDetector": "keyword context for source files",
    "IbmCosHmacDetector": "keyword context for source files",
    "SoftlayerDetector": "keyword context for source files",
}
_FINGERPRINTED = re.compile(r"\[(?:redacted|credential)(?::[0-9a-f]{12,20})?\]")
# What follows a match and still belongs to its token (a JWT's signature after its payload).
_TAIL = re.compile(r"[A-Za-z0-9_\-.+=]*")
# A private key's whole block, when a plugin recognised its first line.
_PRIVATE_KEY = re.compile(
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|\Z)"
    r"|PuTTY-User-Key-File-\d.*\Z",
    re.DOTALL,
)
# A path in a text: a URL's (after its host), or one standing on its own ("/api/x" after a
# space, a quote, "=" …). Not "a/b" inside a word, nor a base64 blob's slashes.
_PATH = re.compile(
    r"""(?:(?<=[\s"'(<\[=,])|^)(?:[A-Za-z][A-Za-z0-9+.\-]*://[^\s/"'<>?#]*)?/[^\s"'<>?#]*"""
)
_PIECE = re.compile(r"\[(?:redacted|credential)(?::[0-9a-f]{12,20})?\]|[A-Za-z0-9+_\-=]+")
# Key shapes of providers agents call that detect-secrets does not know (yet): its rules are
# used besides. A key is random: it has a digit (``sk-task-management-release`` is a word).
EXTRA_RULES = [
    ("OpenAI Token", re.compile(r"sk-(?:ant-(?:api\d\d-)?|proj-)?(?=[A-Za-z_\-]*\d)[A-Za-z0-9_\-]{20,}")),
    ("Google API key", re.compile(r"AIza[0-9A-Za-z_\-]{35}")),
    ("GitHub Token", re.compile(r"gh[pousr]_[A-Za-z0-9]{36,}")),
    ("Slack Token", re.compile(r"xox[abposr]-(?=[A-Za-z\-]*\d)[A-Za-z0-9\-]{10,}")),
    ("Tavily API key", re.compile(r"tvly-(?:dev-)?(?=[A-Za-z_\-]*\d)[A-Za-z0-9_\-]{16,}")),
    ("Telegram bot token", re.compile(r"\b\d{6,}:AA[A-Za-z0-9_\-]{30,}")),
]  # fmt: skip
MIN_TEXT = 8  # a shorter text holds no shape worth a scan
# Texts up to this long keep what was found in them (a conversation sends its earlier messages
# again with every call): at most CACHED_TEXTS of them, a few megabytes.
CACHED_TEXT = 16384
CACHED_TEXTS = 1024


class _Scanner:
    """detect-secrets' plugins and entropy checks, loaded once."""

    def __init__(self) -> None:
        before = warnings.showwarning
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.filters.heuristic import is_potential_uuid, is_sequential_string
        from detect_secrets.plugins.base import RegexBasedDetector
        from detect_secrets.plugins.high_entropy_strings import (
            Base64HighEntropyString,
            HexHighEntropyString,
        )

        if warnings.showwarning is not before:  # its logger turned warnings into log records
            logging.captureWarnings(False)
        self.plugins = [
            plugin()
            for plugin in get_mapping_from_secret_type_to_class().values()
            if issubclass(plugin, RegexBasedDetector) and plugin.__name__ not in NOT_USED
        ]
        # Each rule with what any text it matches must contain (``needles``): most texts hold
        # none of them, and a substring test costs a fraction of the rule's scan.
        self.rules = [
            (getattr(plugin, "is_formally_valid", None), plugin.secret_type, rule, needles(rule))
            for plugin in self.plugins
            for rule in plugin.denylist
        ] + [(None, kind, rule, needles(rule)) for kind, rule in EXTRA_RULES]
        self.entropy = [HexHighEntropyString(), Base64HighEntropyString()]
        self.charsets = [frozenset(check.charset) for check in self.entropy]
        self.ordinary = (is_sequential_string, is_potential_uuid)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where the plugins' rules find a secret in ``text`` (``scan``'s spans)."""
        return self.scan(text)[0]

    def scan(self, text: str) -> tuple[list[tuple[int, int]], frozenset[str]]:
        """Where the plugins' rules find a secret in ``text`` — a rule's last group when it has
        one (a URL's password, not the URL), with the rest of its token (a JWT's signature, a
        GitLab token after its prefix), a private key's whole block; overlaps merged — and the
        kinds found (the plugins' own names: "Private Key", "JSON Web Token")."""
        found: list[tuple[int, int]] = []
        kinds: set[str] = set()
        folded = (
            text.casefold() if any(r.flags & re.IGNORECASE for _, _, r, _ in self.rules) else text
        )
        for valid, kind, rule, needed in self.rules:  # valid: the JWT plugin's own check
            if needed and not any(
                n in (folded if rule.flags & re.IGNORECASE else text) for n in needed
            ):
                continue
            for match in rule.finditer(text):
                if valid is not None and not valid(match.group(0)):
                    continue
                groups = [g for g in range(1, rule.groups + 1) if match.group(g)]
                found.append(_whole(text, *match.span(groups[-1] if groups else 0)))
                kinds.add(kind)
        merged: list[tuple[int, int]] = []
        for start, end in sorted(found):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return merged, frozenset(kinds)

    def random(self, piece: str) -> bool:
        """Whether a path's piece is random enough to be a token, by the scanner's measure."""
        letters = set(piece)
        # n different characters hold at most log2(n) bits each: most pieces ("v1", "users")
        # cannot pass either check, and are not measured.
        possible = [
            check
            for check, charset in zip(self.entropy, self.charsets, strict=True)
            if math.log2(len(letters)) > check.entropy_limit and letters <= charset
        ]
        if not possible or any(ordinary(piece) for ordinary in self.ordinary):
            return False
        return any(
            check.calculate_shannon_entropy(piece) > check.entropy_limit for check in possible
        )


def needles(rule: re.Pattern[str]) -> tuple[str, ...]:
    """Substrings one of which every match of ``rule`` contains (casefolded for a rule that
    ignores case), read from the rule itself; () when it has none worth testing — then the
    rule always runs. ``AKIA[0-9A-Z]{16}`` → ("AKIA",); ``(?:ghp|gho)_…`` → ("ghp_", "gho_")."""
    try:
        parsed = re._parser.parse(rule.pattern, rule.flags)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 — a pattern the parser does not take: always run it
        return ()
    found = _alternatives(list(parsed))
    if not found or min(map(len, found)) < MIN_NEEDLE:
        return ()
    if rule.flags & re.IGNORECASE:
        found = {n.casefold() for n in found}
    return tuple(sorted(found))


MIN_NEEDLE = 2  # a single character is in every text


def _alternatives(items: list) -> set[str] | None:
    """Literals one of which a match of the sequence ``items`` contains (the longest such
    set the sequence shows), or None. Reads the parser's tree: runs of literal characters, and
    a group whose every branch has its own literal."""
    from re._constants import BRANCH, LITERAL, SUBPATTERN  # type: ignore[import-not-found]

    best: set[str] | None = None
    run: list[str] = []

    def consider(candidate: set[str] | None) -> None:
        nonlocal best
        if candidate and (best is None or min(map(len, candidate)) > min(map(len, best))):
            best = candidate

    for op, arg in [*items, (None, None)]:
        if op is LITERAL:
            run.append(chr(arg))
            continue
        if run:
            consider({"".join(run)})
        prefix, run = "".join(run), []
        if op is SUBPATTERN:
            inner = _alternatives(list(arg[-1]))
            consider(inner)
            if len(arg[-1]) == 1 and arg[-1][0][0] is BRANCH:
                branches = [_alternatives(list(b)) for b in arg[-1][0][1][1]]
                if all(branches):
                    consider(
                        {prefix + n for b in branches for n in b}
                        if prefix
                        else set().union(*branches)
                    )
        elif op is BRANCH:
            branches = [_alternatives(list(b)) for b in arg[1]]
            if all(branches):
                consider(set().union(*branches))
    return best


@functools.cache
def scanner() -> _Scanner:
    return _Scanner()


def warm() -> None:
    """Load the scanner now (at install), not in a step's first call."""
    scanner()


def _whole(text: str, start: int, end: int) -> tuple[int, int]:
    if "PRIVATE KEY" in text[start:end] or text.startswith("PuTTY-User-Key-File", start):
        block = _PRIVATE_KEY.search(text, max(0, start - 16))
        if block is not None and block.start() <= start:
            return block.start(), max(end, block.end())
    # The rest of its token, but not the full stops that end a sentence after it.
    tail = _TAIL.match(text, end).end()
    while tail > end and text[tail - 1] == ".":
        tail -= 1
    return start, tail


@functools.lru_cache(maxsize=CACHED_TEXTS)
def _scan_cached(text: str) -> tuple[tuple[tuple[int, int], ...], frozenset[str]]:
    spans, kinds = scanner().scan(text)
    return tuple(spans), kinds


def _scan(text: str) -> tuple[tuple[tuple[int, int], ...], frozenset[str]]:
    if len(text) < MIN_TEXT:
        return (), frozenset()
    if len(text) <= CACHED_TEXT:
        return _scan_cached(text)
    spans, kinds = scanner().scan(text)
    return tuple(spans), kinds


def _spans(text: str) -> tuple[tuple[int, int], ...]:
    return _scan(text)[0]


def kinds(text: str) -> frozenset[str]:
    """The kinds of secret ``text`` seems to hold ("Private Key", "AWS Access Key"…)."""
    return _scan(text)[1]


def found(text: str) -> tuple[str, ...]:
    """The secrets of known shapes in ``text`` long enough to be looked for elsewhere (a short
    password is redacted in its URL only), longest first."""
    hits = {text[start:end] for start, end in _spans(text) if end - start >= MIN_TEXT}
    return tuple(sorted(hits, key=len, reverse=True))


def looks_secret(value: Any) -> bool:
    """Whether a value holds a secret of a known shape."""
    return isinstance(value, str) and bool(_spans(value))


def redact_shapes(text: str, replacement: str | Callable[[str], str]) -> str:
    """``text`` with every secret of a known shape replaced where it stands: by
    ``replacement``, or by what it makes of the secret. One pass, linear in the matches."""
    spans = _spans(text)
    if not spans:
        return text
    make = replacement if callable(replacement) else (lambda _secret: replacement)
    out, at = [], 0
    for start, end in spans:
        out += [text[at:start], make(text[start:end])]
        at = end
    out.append(text[at:])
    return "".join(out)


def fingerprint(piece: str) -> str:
    """A path's random piece as stored: its keyed fingerprint (``sealing.mark``)."""
    return sealing.mark(piece)


def _paths(text: str) -> list[tuple[int, int]]:
    """Where the paths in ``text`` are (a URL's path without its scheme and host)."""
    found_paths = []
    for match in _PATH.finditer(text) if "/" in text else ():
        start, end = match.span()
        scheme = text.find("://", start, end)
        if scheme >= 0:
            start = text.find("/", scheme + 3, end)
            if start < 0:
                continue
        found_paths.append((start, end))
    return found_paths


def _random(piece: str) -> bool:
    return not _FINGERPRINTED.fullmatch(piece) and scanner().random(piece)


def redact_random_path_pieces(text: str) -> str:
    """``text`` with every random piece of a path in it (a URL's, or a path's standing on its
    own) replaced by its fingerprint; a URL's scheme and host are left as they are."""
    out, at = [], 0
    for start, end in _paths(text):
        path = _PIECE.sub(lambda m: fingerprint(m[0]) if _random(m[0]) else m[0], text[start:end])
        out += [text[at:start], path]
        at = end
    return "".join(out) + text[at:] if out else text


def random_path_pieces(text: str) -> set[str]:
    """The pieces of the paths in ``text`` that ``redact_random_path_pieces`` replaces."""
    return {p for start, end in _paths(text) for p in _PIECE.findall(text[start:end]) if _random(p)}
