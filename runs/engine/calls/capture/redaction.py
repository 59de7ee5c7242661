"""Credentials by position never stored, content kept exactly (DESIGN.md, "Exact and
private"): what a captured call is keyed and stored as, and what any text is shown as.

**By position** — a header named as a credential, a query parameter or JSON field named like one
(``api_key``, ``access_key``, ``auth``, ``secret``, ``password``, ``credentials``…; ``apiKey``,
``api-key`` and ``api_key`` are one name; a whole object or list under such a name), a URL's
``user:password@``, the token segment of a known webhook or bot URL, a path's random piece:
never stored. Its keyed fingerprint (``sealing.mark``: ``[credential:<hmac>]``) stands where it
stood, in the stored request and in the cache key alike — two different credentials never give
one key, and the value cannot be read back. Headers are not part of a key at all (a rotated
API key still hits); a credential in a query or a body enters it as its fingerprint (a rotated
one misses once). A few names are credentials only sometimes (``key``, ``token``, ``code``,
``appid``, ``sig``: ``{"key": "user:42"}``, ``?code=fr`` are data): when their value looks
random or has a known shape. A value once seen in such a position is found wherever it
reappears — in the request's strings (marked there too), in its answer (stored marked; a replay
sending the same credential gets the exact bytes back, ``KnownSecrets.restored``), in an error.

**By shape** (``runs.lib.secret_shapes``: detect-secrets' rules) inside content — a prompt, an
answer, an output: part of what was said, so kept exactly and part of the key; the column that
holds it is encrypted (``runs.models.packed``), and it is masked wherever it is shown
(``redact_text``, ``redact_body``, ``redact_answer``: pages, admin, exports, logs, OTLP).

Everything here is linear in the text and the number of matches: the known secrets are one
compiled alternation, the shapes one scan.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, unquote_plus, urlencode, urlsplit, urlunsplit

from runs.lib import sealing
from runs.lib import secret_shapes as shapes
from runs.lib.hashing import canonical_json

REDACTED = "[redacted]"
SECRET_MARK = "[secret:{}]"  # content that looks like a secret, where it must not be read


@functools.lru_cache(maxsize=4096)
def _words(name: str) -> tuple[str, ...]:
    """A name's words, lowercased: ``x_api_key``, ``X-API-Key`` and ``xApiKey`` are all
    (x, api, key)."""
    return tuple(
        w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", name.strip())
    )


@functools.lru_cache(maxsize=4096)
def _compact(name: str) -> str:
    """A name as compared whole: its words run together (``apiKey``, ``api-key``, ``api_key``
    are one name)."""
    return "".join(_words(name))


# Names whose value is a credential, in a query or a JSON body — the name, or its last words
# (``x_api_key``, ``db_password``, ``aws_secret_access_key``, ``basic_auth``; not
# ``valid_token``): compared with the words run together …
CREDENTIAL_NAMES = frozenset(
    _compact(n)
    for n in (
        "api_key", "access_key", "secret_key", "private_key", "signing_key", "subscription_key",
        "auth", "secret", "client_secret", "password", "passwd", "credentials", "credential",
        "authorization", "access_token", "refresh_token", "id_token", "auth_token", "api_token",
        "session_token", "security_token",
    )
)  # fmt: skip
# … and names that are one only whole (a ``boarding_pass`` is no password).
WHOLE_CREDENTIAL_NAMES = frozenset({"pass", "pwd", "bearer"})
# Names that are credentials when their value looks like one (see the module docstring).
SOMETIMES_CREDENTIAL_NAMES = frozenset(
    _compact(n) for n in ("key", "token", "code", "appid", "signature", "sig")
)
_SECRET_LOOKING = re.compile(r"^(?=.*[0-9])(?=.*[A-Za-z])[A-Za-z0-9_\-.~+/=:]{16,}$")
# Header names whose value is a credential (headers are not stored; their values are looked
# for elsewhere in the request and its answer). Any other header named like a credential
# (``X-RapidAPI-Key``, ``X-Auth-Token``) is one too: ``is_credential_header``.
CREDENTIAL_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "cookie",
        "x-auth-token",
        "x-access-token",
        "ocp-apim-subscription-key",
    }
)
# The shapes of API keys detect-secrets does not know (``secret_shapes.EXTRA_RULES``), in one
# pattern for the texts shown.
KEY_SHAPES = re.compile("|".join(f"(?:{rule.pattern})" for _, rule in shapes.EXTRA_RULES))
MIN_SECRET = 8  # a shorter value is not searched for elsewhere (it would match words)


@functools.lru_cache(maxsize=4096)
def credential_name(name: str) -> bool:
    """Whether ``name`` always names a credential, whatever its value."""
    words = _words(name)
    if "".join(words) in WHOLE_CREDENTIAL_NAMES:
        return True
    return any("".join(words[i:]) in CREDENTIAL_NAMES for i in range(len(words)))


def looks_secret(value: Any) -> bool:
    """Whether a value named ``key``, ``token`` … is a secret: one long word of letters and
    digits, or a known shape. Erring towards a credential costs no exactness (its fingerprint
    is as distinct as the value), only the value's readability on a page."""
    return isinstance(value, str) and (
        _SECRET_LOOKING.match(value) is not None or shapes.looks_secret(value)
    )


def is_credential(name: str, value: Any) -> bool:
    """Whether a query parameter or body field ``name`` = ``value`` holds a credential."""
    if value in (None, "") or isinstance(value, bool):
        return False
    if credential_name(name):
        return True
    return _compact(name) in SOMETIMES_CREDENTIAL_NAMES and looks_secret(value)


def is_credential_header(name: str, value: str) -> bool:
    """Whether a header carries a credential: a known one, or one named like a credential
    (``X-RapidAPI-Key``: its last word is ``key``, and its value looks like a secret)."""
    if name.strip().lower() in CREDENTIAL_HEADERS:
        return True
    words = _words(name)
    return any(is_credential("_".join(words[i:]), value) for i in range(len(words)))


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str | int | float) and not isinstance(value, bool):
        yield str(value)


def secrets_in(pairs: Iterable[tuple[str, Any]]) -> set[str]:
    """The credential values among (name, value) pairs — a query, a body's fields (a value of a
    known shape elsewhere is content, not a credential by position)."""
    found: set[str] = set()
    for name, value in pairs:
        if is_credential(str(name), value):
            found.update(s for s in _strings(value) if len(s) >= MIN_SECRET)
    return found


def shapes_in(text: str) -> set[str]:
    """The secrets of known shapes in ``text`` (not a path's random pieces: those are guesses,
    fingerprinted where they stand, never searched for elsewhere)."""
    return {*shapes.found(text), *KEY_SHAPES.findall(text)}


def secrets_in_body(value: Any) -> set[str]:
    """Every credential a JSON body carries by position: named fields' values (every string of
    an object under such a name)."""
    return examine_body(value).secrets


@dataclass(frozen=True)
class Examined:
    """What one walk over a JSON body finds: the credentials it carries by position, whether
    any field is named as one (a short value is not searched for, but still marked), and its
    other strings (scanned for shapes in one pass)."""

    secrets: set[str]
    named: bool
    texts: list[str]


def examine_body(value: Any) -> Examined:
    found: set[str] = set()
    texts: list[str] = []
    named = False
    stack = [value]
    while stack:  # iterative: a deep body never hits the recursion limit
        item = stack.pop()
        if isinstance(item, dict):
            for k, v in item.items():
                if isinstance(v, str):
                    if _named_secret(str(k), v):
                        named = True
                        if len(v) >= MIN_SECRET:
                            found.add(v)
                    else:
                        texts.append(v)
                elif _named_secret(str(k), v):
                    named = True
                    found.update(s for s in _strings(v) if len(s) >= MIN_SECRET)
                elif isinstance(v, dict | list):
                    stack.append(v)
        elif isinstance(item, list):
            for v in item:
                if isinstance(v, str):
                    texts.append(v)
                elif isinstance(v, dict | list):
                    stack.append(v)
        elif isinstance(item, str):
            texts.append(item)
    return Examined(found, named, texts)


def _named_secret(name: str, value: Any) -> bool:
    """A field whose whole value is redacted: a credential's scalar, or any object or list
    under a name that is always a credential's."""
    if isinstance(value, Mapping | list):
        return bool(value) and credential_name(name)
    return is_credential(name, value) and _scalar(value)


def secrets_in_headers(headers: Iterable[tuple[str, str]]) -> set[str]:
    """The credential values a request carries in its headers (``Bearer x`` gives ``x``)."""
    found: set[str] = set()
    for name, value in headers:
        if not value or not is_credential_header(name, value):
            continue
        token = value.split(None, 1)[-1] if " " in value else value
        for candidate in (value, token):
            if len(candidate) >= MIN_SECRET:
                found.add(candidate)
    return found


def secrets_in_url(url: str) -> set[str]:
    """The credentials a URL carries outside its query, to look for in its answer and errors:
    a password in its authority, the token of a known webhook or bot URL, secrets of known
    shapes and the random pieces of its path (a path is an address: what looks like a secret
    there is one by position)."""
    parts = urlsplit(url)
    path = unquote_plus(parts.path)
    found = shapes.random_path_pieces(path) | shapes_in(path) | set(webhook_tokens(path))
    if parts.password and len(parts.password) >= MIN_SECRET:
        found.add(parts.password)
    if parts.username and parts.password is None and len(parts.username) >= MIN_SECRET:
        found.add(parts.username)  # https://TOKEN@host/repo.git: the token is the user
    return found


# The token segment of webhook and bot URLs as their services issue them (Discord and Slack
# webhooks, Telegram bots, Teams incoming webhooks, Zapier's catch hooks): the group is the token.
_TOKEN = r"([^/?#\s\"'<>]{%d,})"
_WEBHOOK_TOKENS = re.compile(
    r"/webhooks?/[^/\s]+/"
    + _TOKEN % 8
    + r"|/services/T[A-Z0-9]+/B[A-Z0-9]+/"
    + _TOKEN % 8
    + r"|/bot(\d{5,}:[A-Za-z0-9_\-]{20,})"
    + r"|/IncomingWebhook/"
    + _TOKEN % 8
    + r"|/hooks/catch/[^/\s]+/"
    + _TOKEN % 4
)


def webhook_tokens(path: str) -> list[str]:
    """The tokens of known webhook and bot URL shapes in ``path``."""
    return [next(g for g in m.groups() if g) for m in _WEBHOOK_TOKENS.finditer(path)]


class KnownSecrets:
    """The credentials a request carried by position, found in any text in one pass: marked
    (``[credential:<fingerprint>]``) where they reappear, and given back where a mark of one of
    them stands (a replay sending the same credential reads the exact answer it recorded)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        wanted = {s for s in secrets if s and len(s) >= 1}
        forms: dict[str, str] = {}
        for secret in wanted:
            forms[secret] = secret
            quoted = quote(secret, safe="")
            if quoted != secret:
                forms[quoted] = secret  # percent-encoded in a URL: the same credential
        self.secrets = frozenset(wanted)
        self._marks = {secret: sealing.mark(secret) for secret in wanted}
        self._by_mark = {m: secret for secret, m in self._marks.items()}
        self._forms = forms
        self._all = frozenset(forms)

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def absent_from(self, raw: bytes) -> bool:
        """Whether none of the secrets can be in the JSON document ``raw``: each is written in
        JSON as it is (no character JSON escapes) and none is in its bytes."""
        return all(_PLAIN.fullmatch(s) and s.encode("utf-8") not in raw for s in self.secrets)

    def _present(self, text: str | bytes) -> frozenset[str]:
        """The forms to look for in ``text``: a few are first tested one by one (a substring
        test, no pattern to build: most texts hold none); many go into one alternation."""
        if len(self._all) > FEW_SECRETS:
            return self._all
        if isinstance(text, bytes):
            return frozenset(f for f in self._all if f.encode("utf-8") in text)
        return frozenset(f for f in self._all if f in text)

    def marked(self, text: str) -> str:
        present = self._present(text) if self._all and text else None
        if not present:
            return text
        return _finders(present)[0].sub(lambda m: self._marks[self._forms[m[0]]], text)

    def marked_bytes(self, data: bytes) -> bytes:
        present = self._present(data) if self._all and data else None
        if not present:
            return data
        return _finders(present)[1].sub(
            lambda m: self._marks[self._forms[m[0].decode("utf-8")]].encode("ascii"), data
        )

    def restored(self, text: str) -> str:
        if not self._by_mark or "[credential:" not in text:
            return text
        return _MARKS.sub(lambda m: self._by_mark.get(m[0], m[0]), text)

    def restored_bytes(self, data: bytes) -> bytes:
        if not self._by_mark or b"[credential:" not in data:
            return data
        return _MARKS_BYTES.sub(
            lambda m: self._by_mark.get(m[0].decode("ascii"), m[0].decode("ascii")).encode("utf-8"),
            data,
        )


_PLAIN = re.compile(r"[A-Za-z0-9_\-.~+=:@!$*,;]+")  # never escaped by a JSON encoder
FEW_SECRETS = 8  # up to this many, each is tested as a substring before a pattern is built


@functools.lru_cache(maxsize=256)
def _finders(forms: frozenset[str]) -> tuple[re.Pattern[str], re.Pattern[bytes]]:
    """One alternation of ``forms``, longest first (a secret holding another is replaced
    whole), for text and for bytes; kept for the calls of a step, which carry the same ones."""
    ordered = sorted(forms, key=len, reverse=True)
    return (
        re.compile("|".join(map(re.escape, ordered))),
        re.compile(b"|".join(re.escape(f.encode("utf-8")) for f in ordered)),
    )


_MARKS = re.compile(rf"\[credential:[0-9a-f]{{{sealing.FINGERPRINT_HEX}}}\]")
_MARKS_BYTES = re.compile(_MARKS.pattern.encode("ascii"))


def keyed_text(text: str, known: KnownSecrets) -> str:
    """A string of a request as it is keyed and stored: the request's credentials marked where
    they reappear; everything else exactly (what looks like a secret included)."""
    return known.marked(text)


def keyed_query(pairs: Iterable[tuple[str, str]], known: KnownSecrets) -> list[tuple[str, str]]:
    """A query as it is keyed and stored: a credential's value its fingerprint."""
    return [
        (name, sealing.mark(value) if is_credential(name, value) else known.marked(value))
        for name, value in pairs
    ]


def keyed_body(value: Any, known: KnownSecrets, *, named: bool | None = None) -> Any:
    """A JSON body as it is keyed and stored: each credential-named field's value (an object or
    a list under an always-credential name, whole) its fingerprint, the request's credentials
    marked in its strings; every other value exactly (the body itself when it carries neither:
    no copy)."""
    if not known and not (_holds_named(value) if named is None else named):
        return value

    def walk(item: Any) -> Any:
        if isinstance(item, dict):
            return {
                k: (_mark_value(v) if _named_secret(str(k), v) else walk(v))
                for k, v in item.items()
            }
        if isinstance(item, list):
            return [walk(v) for v in item]
        if isinstance(item, str):
            return known.marked(item)
        return item

    return walk(value)


def _holds_named(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_named_secret(str(k), v) or _holds_named(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_named(v) for v in value)
    return False


def _mark_value(value: Any) -> str:
    return sealing.mark(value if isinstance(value, str) else canonical_json(value))


def keyed_path(path: str, known: KnownSecrets) -> str:
    """A URL's path as it is keyed and stored: the request's credentials, the token of a known
    webhook or bot URL and its random pieces (``secret_shapes``' entropy measure) marked."""
    path = known.marked(path)
    tokens = [t for t in webhook_tokens(path) if not _MARKS.fullmatch(t)]
    if tokens:
        path = KnownSecrets(tokens).marked(path)
    return shapes.redact_random_path_pieces(path)


def masked_shapes(value: Any) -> Any:
    """A JSON value with what looks like a secret in its strings replaced by its keyed
    fingerprint (``[secret:<hmac>]``): for a column that is looked into in SQL and so cannot
    be sealed (a tool call's request). Two different secrets stay two different texts."""
    if isinstance(value, Mapping):
        return {k: masked_shapes(v) for k, v in value.items()}
    if isinstance(value, list | tuple):  # a query's (name, value) pairs are tuples
        return [masked_shapes(v) for v in value]
    if isinstance(value, str):
        return shapes.redact_shapes(value, _secret_mark)
    return value


def _secret_mark(secret: str) -> str:
    return SECRET_MARK.format(sealing.fingerprint(secret))


def holds_named_secret(text: str) -> bool:
    """Whether a JSON answer hands out a credential by name (``access_token``…): its stored
    form is sealed, whatever the value looks like."""
    if len(text) < MIN_SECRET or not _names_a_credential(text):
        return False
    try:
        document = json.loads(text)
    except ValueError:
        return False
    return isinstance(document, dict | list) and any(
        len(s) >= MIN_SECRET for _, v in _named_fields(document) for s in _strings(v)
    )


# The end of a JSON member's name (``"access_token":``), and the ends a credential's name has:
# the cheap test before parsing an answer (a search for a literal ``"`` then a look back, not a
# case-insensitive alternation tried at every position: 0.5 ms on 1 MB, not 120).
_MEMBER_END = re.compile(r'"\s*:')
_CREDENTIAL_ENDINGS = (
    "key", "token", "secret", "password", "passwd", "pass", "pwd", "auth", "credential",
    "credentials", "bearer", "code", "appid", "sig", "signature", "authorization",
)  # fmt: skip


def _names_a_credential(text: str) -> bool:
    return any(
        text[max(0, m.start() - 24) : m.start()].lower().endswith(_CREDENTIAL_ENDINGS)
        for m in _MEMBER_END.finditer(text)
    )


def kinds_of_secrets(value: Any, texts: list[str] | None = None) -> frozenset[str]:
    """The kinds of secret a JSON value's strings (or ``texts``) seem to hold, found in one
    scan of them all."""
    if texts is None:
        texts = list(_texts(value))
    texts = [t for t in texts if len(t) >= shapes.MIN_TEXT]
    if not texts:
        return frozenset()
    return shapes.kinds("\x00".join(texts)) if len(texts) > 1 else shapes.kinds(texts[0])


def _texts(value: Any) -> Iterable[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, str):
        yield value


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every known secret, every secret of a known shape, every credential query
    parameter of a URL and every random piece of a path in it replaced (an error message
    quoting a URL, a path, a span's attribute)."""
    if len(text) >= shapes.MIN_TEXT:
        text = _by_rules(text) if len(text) <= shapes.CACHED_TEXT else _by_rules.__wrapped__(text)
    # The call's known secrets after the rules: a path's random piece is fingerprinted where
    # it stands even when the secrets hold it (the same token is a plain [redacted] elsewhere).
    return _redact_known(text, secrets)


@functools.lru_cache(maxsize=shapes.CACHED_TEXTS)
def _by_rules(text: str) -> str:
    """``text`` with what the rules find redacted, whatever call it belongs to (cached: a
    conversation sends its earlier messages again with every call)."""
    text = shapes.redact_shapes(text, _secret_mark)  # two secrets, two marks: a diff tells
    text = _CREDENTIAL_PARAM.sub(_param, shapes.redact_random_path_pieces(text))
    tokens = [t for t in webhook_tokens(text) if not _MARKS.fullmatch(t)]
    return KnownSecrets(tokens).marked(text) if tokens else text


def _redact_known(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each of ``secrets`` (and its percent-encoded form) replaced, in one pass."""
    wanted = {s for s in secrets if s}
    if not wanted or not text:
        return text
    forms = wanted | {quote(s, safe="") for s in wanted}
    find = re.compile("|".join(map(re.escape, sorted(forms, key=len, reverse=True))))
    return find.sub(REDACTED, text)


def redact_answer(text: str, secrets: Iterable[str] = ()) -> str:
    """An answer's body as stored: the request's secrets, the secrets of known shapes and — in a
    JSON answer — the values of fields named like credentials (a token an endpoint hands out)
    replaced; nothing else changes, byte for byte (no path's piece is guessed at: an answer's
    URLs are the app's data)."""
    found = set(secrets)
    try:
        document = json.loads(text)
    except ValueError:
        document = None
    if isinstance(document, dict | list):
        found |= {
            s for k, v in _named_fields(document) for s in _strings(v) if len(s) >= MIN_SECRET
        }
    text = shapes.redact_shapes(_redact_known(text, found), _secret_mark)
    return _CREDENTIAL_PARAM.sub(_param, text)


def _named_fields(value: Any) -> Iterable[tuple[str, Any]]:
    """An answer's credential fields, at any depth: scalars only (an answer's ``auth`` object
    also holds its scopes and types; the credentials in it are named, or have a shape)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            if _scalar(v) and is_credential(str(k), v):
                yield str(k), v
            else:
                yield from _named_fields(v)
    elif isinstance(value, list):
        for v in value:
            yield from _named_fields(v)


# name=value in a query string (after ?, & or ;): redacted when the name is a credential's.
_CREDENTIAL_PARAM = re.compile(r"([?&;])([A-Za-z0-9_.\-\[\]]+)=([^&#\s'\"<>]*)")


def _param(match: re.Match[str]) -> str:
    mark, name, value = match.groups()
    if value and value != REDACTED and is_credential(name, unquote_plus(value)):
        return f"{mark}{name}={REDACTED}"
    return match.group(0)


def redact_query(
    pairs: Iterable[tuple[str, str]], secrets: Iterable[str] = ()
) -> list[tuple[str, str]]:
    secrets = tuple(secrets)
    return [
        (name, REDACTED if is_credential(name, value) else redact_text(value, secrets))
        for name, value in pairs
    ]


def redact_body(value: Any, secrets: Iterable[str] = ()) -> Any:
    """A JSON value with every credential-named field's value (an object or a list under an
    always-credential name, whole) replaced and every secret removed from its strings."""
    secrets = tuple(secrets)

    def walk(item: Any) -> Any:
        if isinstance(item, Mapping):
            return {k: (REDACTED if _named_secret(str(k), v) else walk(v)) for k, v in item.items()}
        if isinstance(item, list):
            return [walk(v) for v in item]
        if isinstance(item, str):
            return redact_text(item, secrets)
        return item

    return walk(value)


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def redact_url(url: str, secrets: Iterable[str] = ()) -> str:
    """A URL with credential query parameters, known secrets, secrets of known shapes and
    random path pieces replaced; no user:password in its authority."""
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    query = urlencode(redact_query(parse_qsl(parts.query, keep_blank_values=True), secrets))
    path = redact_text(parts.path, secrets)
    return urlunsplit((parts.scheme, netloc, path, query, parts.fragment))


# -- the HTTP libraries' own logs -------------------------------------------------------------

# Loggers of the HTTP libraries that write a request's URL (httpx logs each one at INFO).
URL_LOGGERS = ("httpx", "httpx2", "urllib3.connectionpool", "aiohttp.client", "requests")


class RedactingFilter(logging.Filter):
    """Rewrites a record's message with credentials in URLs and key shapes redacted."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 — a record that cannot format is left as it is
            return True
        redacted = redact_text(message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        return True


_FILTER = RedactingFilter()


def redact_library_logs() -> None:
    """Put the filter on the HTTP libraries' loggers (once; idempotent), and load the secret
    scanner's rules now rather than in a step's first call."""
    shapes.warm()
    for name in URL_LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
