"""What a command is to the capture (DESIGN.md, "Beyond HTTP libraries"): the request a process
start makes — its argv (or shell line), its stdin and the content of the files its arguments
name — and the answer it got: its exit code, stdout and stderr.

A command is keyed by what decides its answer and reads the same on every machine: never its
environment or the path of its working directory (credentials live in the one; the other
differs between machines), but the content of each file an argument names — relative to the
working directory or absolute, a regular file that exists as the process starts — so that a
script or an input that changed makes a replay miss instead of giving the old answer. The
program (argv[0]) is the tool, not an input: it is named, not hashed. A file is hashed in
chunks, the first ``FILE_BYTES`` of it (its size says the rest), at most ``MAX_FILES`` a
command.

A file the command itself writes (``-o out.json``, ``sed -i``, a formatter, a shell line's
``> out``) is part of its answer: each named file it created, changed or removed is in
``"wrote"`` (its hash, or null: removed) and, up to ``WRITTEN_BYTES`` a file and
``WRITTEN_TOTAL`` a command, its content in ``"contents"`` (text, or ``{"base64": …}``); a file
over the bound is kept as its hash and its size (``"hash_only"``). A replay that answers the
command from its recording writes each file back (``restore``) before the process it does not
start "returns" — the same bytes at the same path relative to the working directory, removed if
the command removed it; a file kept as its hash only, and not already holding that content,
fails the step naming the command and the file. The file is not an input of its replay either:
a replay whose file holds exactly what the command left is keyed with the content the recorded
command found (``as_recorded``) — found among its step's pinned entries, in memory.

Credentials an argument carries by its position (``--token=…``, ``--password X``, ``-H
"Authorization: Bearer …"``, a ``user:password@`` URL or a token as its user, ``OPENAI_API_KEY=…``
or ``PGPASSWORD=…`` before a shell command, ``-e PASSWORD=…``, ``--from-literal=password=…``,
``aws configure set <credential> …``, ``password=…`` in a query or a connection string, a JSON
field named like one, and a program's own password flag: ``mysql -p…``, ``redis-cli -a``,
``sshpass -p``, ``htpasswd -b … PASSWORD``, ``curl -u user:…`` and their kin — ``_FAMILIES``; ``-p``
is a port or a path to any other program) are never stored: each stands as its keyed
fingerprint (``sealing.mark``) where it stood, in the body keyed and stored alike, so two
commands that differ in the credential never share a key; one of ``MIN_SECRET`` characters or
more is marked wherever it reappears (another argument, the shell line, the stdin). They are
handed to the core as the request's credential headers, so that an answer or an error quoting
them is marked too. What only looks like a secret (a key's shape in an argument, a private key
on the stdin) is content: kept exactly, and keyed. A stdin the command reads a credential from
(``--password-stdin``, ``htpasswd -i``, ``sshpass`` without ``-p``) is keyed by its hash only.

To the core a command is an ``Outgoing`` with the method ``EXEC`` and the URL
``exec:///<program>``; its answer is JSON ``{"returncode", "stdout", "stderr"}`` (text, or
``{"base64": …}`` when not UTF-8; null for a stream not piped back to the caller), status 200
whatever the exit code — an exit code is the command's answer, not a transport failure. A
wait that timed out is a failed attempt (504): given back to the same wait of a replay, never
to a new run's.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shlex
import stat
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn
from urllib.parse import quote, unquote_plus

from runs.engine.calls.capture import redaction
from runs.engine.calls.capture.core import Answer, Outgoing, StepCalls, sending
from runs.engine.errors import NodeFailure
from runs.lib import sealing

METHOD = "EXEC"
OK, TIMED_OUT = 200, 504
JSON = {"content-type": "application/json"}
MAX_FILES = 64  # named files hashed per command
FILE_BYTES = 64 << 20  # of each file, hashed
CHUNK = 1 << 20
WRITTEN_BYTES = 1 << 20  # of a file a command wrote, its content kept (a larger one: its hash)
WRITTEN_TOTAL = 4 << 20  # of all the files a command wrote, their contents kept
STDIN_TEXT = 64 << 10  # a stdin up to this size is kept as text; a larger one as its hash
LABEL_CHARS = 120  # of a command, in a message
_MAX_ARG = 4096  # a longer argument is no path

# --name=value, -name=value and NAME=value (an assignment before a shell command).
_ASSIGNED = re.compile(r"^(-{0,2})([A-Za-z_][A-Za-z0-9_.-]*)=(.+)$", re.S)
_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_ENVIRONMENT = re.compile(r"^[A-Z][A-Z0-9_]*$")  # a variable's name as environments spell it
_HEADER = re.compile(r"^\s*([A-Za-z0-9-]+)\s*:\s*(\S.*)$", re.S)
# name=value pairs inside an argument: a query (?a=1&b=2), a list (a=1,b=2), a connection
# string (host=db password=x; Server=db;Pwd=x): the value's span, quotes left out.
_PAIRS = re.compile(
    r"(?:^|(?<=[?&;,\s]))([A-Za-z_][A-Za-z0-9_.\-\[\]]*)\s*=\s*"
    r"(?:'([^']*)'|\"([^\"]*)\"|([^&;,\s#'\"]*))"
)
# "name": value in a JSON argument (curl -d '{"password": "x"}'): a string's inside or a number.
_JSON_PAIRS = re.compile(
    r'"((?:[^"\\]|\\.)*)"\s*:\s*(?:"((?:[^"\\]|\\.)*)"|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?))'
)
# scheme://user[:password]@ in an argument.
_USERINFO = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*)://([^/\s:@?#]*)(?::([^/\s@?#]*))?@")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^/\s?#]*(/[^\s?#'\"]*)")
_TOKEN_USER_SCHEMES = frozenset({"http", "https", "git+http", "git+https"})
_LOOKS = "0123456789abcdefXY"  # a value that looks like a secret, to ask a name
_NEGATED = re.compile(r"^--?no-")  # --no-password: a switch, never followed by its value
_EXTRA_NAMES = frozenset({"passphrase"})  # a gpg or ssh-keygen passphrase
# The last word of an environment variable that holds a credential, whatever its value
# (PGPASSWORD, SSHPASS, MYSQL_PWD, GITHUB_TOKEN, REDISCLI_AUTH, VAULT_TOKEN).
_ENV_WORDS = frozenset({"TOKEN", "SECRET", "PASS", "PWD", "PASSPHRASE", "AUTH", "APIKEY", "PAT"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "fish"})
_BOUNDARIES = frozenset({"&&", "||", "|", "|&", ";", "&", ";;", "(", ")", "{", "}"})
_MAX_DEPTH = 3  # bash -c "… bash -c '…'": scanned this deep


def _family(*names: str) -> dict[str, str]:
    return dict.fromkeys(names, names[0])


# The programs whose own flags carry a password where other programs' mean something else
# (``-p`` is ssh's port and mkdir's parents), by the basename of the word that names them.
_FAMILIES = {
    **_family("mysql", "mariadb", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow",
              "mysqlcheck", "mysqlpump", "mysqlslap", "mysqlbinlog", "mariadb-dump",
              "mariadb-admin", "mariadb-import", "mariadb-check", "mariadb-show", "mariadb-slap"),
    **_family("redis-cli", "valkey-cli", "keydb-cli"),
    **_family("mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport",
              "mongostat", "mongotop", "mongofiles"),
    **_family("ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami", "ldapcompare",
              "ldapmodrdn", "ldapexop", "ldappasswd"),
    **_family("sqlcmd", "bcp", "osql"),
    **_family("zip", "unzip"),
    **_family("7z", "7za", "7zr", "7zz", "rar", "unrar"),
    **_family("smbclient", "rpcclient", "smbcacls", "smbget"),
    **_family("curl"),
    **_family("http", "https", "xh", "xhs"),
    **_family("docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane"),
    **_family("kubectl", "oc"),
    **_family("sshpass"), **_family("htpasswd"), **_family("gh"), **_family("vault", "bao"),
    **_family("ssh-keygen"), **_family("chpasswd"), **_family("passwd"),
    **{shell: "sh" for shell in _SHELLS},
}  # fmt: skip
# Programs that run another one (``docker exec db mysql -p…``, ``kubectl exec pod -- …``):
# a program's name after one of these words in their line names the program that follows.
_HOSTS = frozenset({"docker", "kubectl", "sh"})
_HOSTING_WORDS = frozenset({"exec", "run", "--"})
# A family's flag whose next argument is the password; and whose attached value is (``-pX``).
_SEPARATE = {
    "redis-cli": {"-a"}, "sshpass": {"-p"}, "mongo": {"-p"}, "ldapsearch": {"-w"},
    "sqlcmd": {"-P"}, "zip": {"-P"}, "ssh-keygen": {"-N", "-P"},
}  # fmt: skip
_ATTACHED = {
    "mysql": "-p", "sshpass": "-p", "mongo": "-p", "7z": "-p", "ldapsearch": "-w",
    "sqlcmd": "-P", "zip": "-P",
}  # fmt: skip
_SSHPASS_VALUED = frozenset({"-f", "-d", "-p", "-P"})
_USER_FLAGS = {  # user:password (curl, HTTPie), user%password (Samba)
    "curl": ({"-u", "--user", "-U", "--proxy-user"}, ":"),
    "http": ({"-a", "--auth"}, ":"),
    "smbclient": ({"-U", "--user"}, "%"),
}
_STDIN_FLAGS = frozenset({"--with-token"})  # gh auth login reads its token from stdin
_PASS_ARGS = frozenset({"-passin", "-passout", "-pass"})  # openssl's pass:<password>


def _credential(name: str, value: str) -> bool:
    """Whether ``name`` (a flag, a variable: ``--api-key``, ``OPENAI_API_KEY``,
    ``auth.rootPassword``) names a credential — itself or any of its tails (``api_key``)."""
    parts = [p for p in re.split(r"[-_.:/]+", name.strip("-")) if p]
    for i in range(len(parts)):
        tail = "_".join(parts[i:])
        if redaction.is_credential(tail, value) or tail.lower() in _EXTRA_NAMES:
            return True
    return False


def _environment_credential(name: str) -> bool:
    """An environment variable's name that says it holds a credential (``PGPASSWORD``)."""
    if not _ENVIRONMENT.match(name):
        return False
    last = name.rsplit("_", 1)[-1]
    return last in _ENV_WORDS or last.endswith(("PASSWORD", "PASSWD")) or name == "SSHPASS"


@dataclass
class Scan:
    """The credentials among a command's tokens, and the tokens as keyed: each credential its
    keyed fingerprint (``sealing.mark``) where it stood, its reappearances marked too."""

    tokens: list[str]
    secrets: set[str] = field(default_factory=set)
    headers: list[tuple[str, str]] = field(default_factory=list)
    secret_positions: set[int] = field(default_factory=set)
    secret_stdin: bool = False
    values: list[tuple[int, str]] = field(default_factory=list)  # (position, credential)


@dataclass
class _Segment:
    """One program's part of a command (``a && b``, ``sshpass -p x ssh …``, ``docker exec c
    mysql …``): the family of the program that reads the arguments, and its words."""

    family: str | None
    start: int
    words: set[str] = field(default_factory=set)
    positions: list[int] = field(default_factory=list)


def _segments(tokens: Sequence[str]) -> list[_Segment | None]:
    out: list[_Segment | None] = [None] * len(tokens)
    seg = _Segment(None, 0)
    option_value = False  # sshpass: the next token is its option's value
    for i, token in enumerate(tokens):
        if token in _BOUNDARIES:
            seg, option_value = _Segment(None, i + 1), False
            continue
        if seg.family == "sshpass" and i > seg.start:
            if option_value:
                option_value = False
            elif token.startswith("-"):
                option_value = token in _SSHPASS_VALUED
            else:  # the command sshpass runs
                seg = _Segment(None, i)
        name = "" if token.startswith("-") else os.path.basename(token).lower()
        hosted = seg.family in _HOSTS and seg.words & _HOSTING_WORDS
        if name in _FAMILIES and (seg.family is None or hosted):
            seg = _Segment(_FAMILIES[name], i)
        seg.words.add(token)
        seg.positions.append(i)
        out[i] = seg
        if token.endswith(";") and len(token) > 1:  # shlex keeps "a;" one word
            seg, option_value = _Segment(None, i + 1), False
    return out


def _positional(tokens: Sequence[str], segments: list[_Segment | None]) -> tuple[set[int], bool]:
    """The arguments that are a credential by their place among a program's arguments
    (``htpasswd -b file user PASSWORD``, ``aws configure set NAME VALUE``, ``vault login
    TOKEN``), and whether the command reads a credential from its stdin."""
    found: set[int] = set()
    stdin = False
    for seg in {id(s): s for s in segments if s is not None}.values():
        words, at = seg.words, seg.positions
        args = [i for i in at[1:] if not tokens[i].startswith("-")]
        if seg.family == "htpasswd":
            flags = "".join(tokens[i][1:] for i in at if re.match(r"^-[A-Za-z]+$", tokens[i]))
            valued = {i + 1 for i in at if tokens[i] == "-C"}  # -C <cost>
            args = [i for i in args if i not in valued]
            if "b" in flags and args:
                found.add(args[-1])
            stdin |= "i" in flags
        elif seg.family == "sshpass":
            stdin |= not any(tokens[i][:2] in ("-p", "-f", "-d", "-e") for i in at)
        elif seg.family == "chpasswd" or (seg.family == "passwd" and "--stdin" in words):
            stdin = True
        elif seg.family == "vault" and "login" in words:
            after = [i for i in args if i > tokens.index("login", seg.start)]
            found.update(i for i in after if "=" not in tokens[i])
            stdin |= "-" in words
        for j in at[1:]:  # aws configure set NAME VALUE, npm config set NAME VALUE
            if tokens[j] != "set" or tokens[j - 1] not in ("configure", "config"):
                continue
            rest, k = [], j + 1
            while k < len(tokens) and len(rest) < 2 and tokens[k] not in _BOUNDARIES:
                if tokens[k].startswith("-"):
                    k += 1 if "=" in tokens[k] else 2  # --profile p
                    continue
                rest.append(k)
                k += 1
            if len(rest) == 2 and _credential(tokens[rest[0]], tokens[rest[1]]):
                found.add(rest[1])
    return found, stdin


def _spans(
    i: int, tokens: Sequence[str], seg: _Segment | None, headers: list[tuple[str, str]]
) -> list[tuple[int, int]]:
    """Where the credentials are inside the argument ``tokens[i]``: (start, end) spans."""
    token = tokens[i]
    previous = tokens[i - 1] if i else ""
    family = seg.family if seg else None
    words = seg.words if seg else set()
    out: list[tuple[int, int]] = []
    whole = (0, len(token))
    # --password X; a program's own flag: redis-cli -a X, sshpass -p X, docker login -p X
    if (
        previous.startswith("-")
        and "=" not in previous
        and not token.startswith("-")
        and not _NEGATED.match(previous)
        and _credential(previous, token)
    ):
        out.append(whole)
    elif previous in _SEPARATE.get(family or "", ()):
        out.append(whole)
    elif family == "docker" and "login" in words and previous == "-p":
        out.append(whole)
    elif family == "gh" and "secret" in words and previous in ("-b", "--body"):
        out.append(whole)
    # -pX (mysql, sshpass, 7z…); docker login -pX / -p=X; gh secret set -bX / --body=X
    flag = _ATTACHED.get(family or "")
    if family == "docker" and "login" in words:
        flag = "-p"
    if family == "gh" and "secret" in words:
        out += _attached(token, "--body=") + _attached(token, "-b")
    if flag:
        out += _attached(token, flag)
    # user:password after curl -u, HTTPie -a; user%password after smbclient -U
    users = _USER_FLAGS.get(family or "")
    if users:
        flags, separator = users
        value_at = -1
        if previous in flags:
            value_at = 0
        elif token.startswith(tuple(f"{f}=" for f in flags if f.startswith("--"))):
            value_at = token.index("=") + 1  # --user=alice:pw
        elif token[:2] in flags and len(token) > 2 and not token.startswith("--"):
            value_at = 2  # -ualice:pw
        if value_at >= 0 and separator in token[value_at:]:
            out.append((token.index(separator, value_at) + 1, len(token)))
    if previous in _PASS_ARGS and token.startswith("pass:"):  # openssl -passin pass:X
        out.append((5, len(token)))
    if family == "kubectl" and "secret" in words:  # every literal of a secret is one
        if previous == "--from-literal" and "=" in token:
            out.append((token.index("=") + 1, len(token)))
        elif token.startswith("--from-literal=") and "=" in token[15:]:
            out.append((token.index("=", 15) + 1, len(token)))
    out += _assigned(token, headers)
    if "://" in token:
        out += _in_urls(token)
    if '"' in token and ":" in token:
        out += _in_json(token)
    return out


def _attached(token: str, flag: str) -> list[tuple[int, int]]:
    if token.startswith(flag) and len(token) > len(flag) and not token.startswith("--" + flag):
        start = len(flag) + (1 if token[len(flag)] == "=" and not flag.endswith("=") else 0)
        return [(start, len(token))] if start < len(token) else []
    return []


def _assigned(token: str, headers: list[tuple[str, str]]) -> list[tuple[int, int]]:
    """NAME=value, --name=value, --flag=NAME=value, name=value pairs, a header."""
    out: list[tuple[int, int]] = []
    offset, text = 0, token
    assigned = _ASSIGNED.match(token)
    if assigned:
        dashes, name, value = assigned.groups()
        start = len(token) - len(value)
        if _credential(name, value) or (not dashes and _environment_credential(name)):
            return [(start, len(token))]
        if dashes:  # --set=auth.password=x, --from-literal=password=x, --header=…
            offset, text = start, value
            inner = _ASSIGNED.match(value)
            if inner and not inner[1] and _credential(inner[2], inner[3]):
                return [(len(token) - len(inner[3]), len(token))]
    if "=" in text:
        for match in _PAIRS.finditer(text):
            group = next((g for g in (2, 3, 4) if match[g] is not None), 4)
            if match[group] and _credential(match[1], unquote_plus(match[group])):
                out.append((offset + match.start(group), offset + match.end(group)))
    header = _HEADER.match(text)
    if header and (
        header[1].lower() in redaction.CREDENTIAL_HEADERS
        or _credential(header[1], header[2].split()[-1])  # X-RapidAPI-Key: …
    ):
        value = header[2].rstrip()
        scheme, _, credential = value.partition(" ")
        if credential and scheme.isalpha() and " " not in credential.strip():
            value = credential.strip()  # "Bearer <token>": the token
        headers.append((header[1].lower(), value))
        start = offset + text.index(value, header.start(2))
        out.append((start, start + len(value)))
    return out


def _in_urls(token: str) -> list[tuple[int, int]]:
    """A URL's password, a token as its user (``https://TOKEN@github.com``), the token of a
    webhook or bot URL."""
    out = []
    for match in _USERINFO.finditer(token):
        scheme, user, password = match.groups()
        if password:
            out.append(match.span(3))
        elif password is None and scheme.lower() in _TOKEN_USER_SCHEMES:
            if len(user) >= redaction.MIN_SECRET:
                out.append(match.span(2))
    for match in _URL.finditer(token):
        path = match[1]
        for secret in redaction.webhook_tokens(path):
            at = token.find(secret, match.start(1))
            if at >= 0:
                out.append((at, at + len(secret)))
    return out


def _in_json(token: str) -> list[tuple[int, int]]:
    out = []
    for match in _JSON_PAIRS.finditer(token):
        try:
            name = json.loads(f'"{match[1]}"')
            value = json.loads(f'"{match[2]}"') if match[2] is not None else match[3]
        except ValueError:
            continue
        if _credential(name, value):
            group = 2 if match[2] is not None else 3
            out.append(match.span(group))
    return out


def scan(tokens: Sequence[str], depth: int = 0) -> Scan:
    """The credentials among ``tokens`` (a command's argv, or its shell line's words), each
    replaced by its fingerprint where it stood; a credential of ``MIN_SECRET`` characters or
    more is marked wherever else it appears among them too."""
    tokens = list(tokens)
    found = Scan(list(tokens))
    segments = _segments(tokens)
    positional, found.secret_stdin = _positional(tokens, segments)
    for i, token in enumerate(tokens):
        seg = segments[i]
        previous = tokens[i - 1] if i else ""
        name = token.strip("-").lower().replace("-", "_")
        if token.startswith("-") and (
            (name.endswith("_stdin") and _credential(name[:-6], _LOOKS)) or token in _STDIN_FLAGS
        ):
            found.secret_stdin = True
        if previous == "--passphrase-fd" and token == "0" or token == "--passphrase-fd=0":
            found.secret_stdin = True
        if seg and seg.family == "sh" and re.match(r"^-[a-z]*c$", previous) and depth < _MAX_DEPTH:
            found.tokens[i] = _script(token, found, i, depth)  # bash -c "mysql -p…"
            continue
        spans = [(0, len(token))] if i in positional else _spans(i, tokens, seg, found.headers)
        kept, at = [], 0
        for start, end in sorted(spans, key=lambda s: (s[0], -s[1])):
            if start < at or start >= end:
                continue  # inside a span already taken (a URL's password in a named value)
            value = token[start:end]
            kept += [token[at:start], sealing.mark(value)]
            found.values.append((i, value))
            found.secrets.add(value)
            if unquote_plus(value) != value:
                found.secrets.add(unquote_plus(value))
            at = end
        if kept:
            found.tokens[i] = "".join(kept) + token[at:]
            found.secret_positions.add(i)
    known = _known(found.secrets)
    if known:
        found.tokens = [known.marked(t) for t in found.tokens]
    return found


def _script(script: str, found: Scan, i: int, depth: int) -> str:
    """A shell's ``-c`` script as keyed: its own credentials found as a shell line's are."""
    inner, marked = _marked_line(script, depth + 1)
    found.secrets |= inner.secrets
    found.headers += inner.headers
    found.secret_stdin |= inner.secret_stdin
    found.values += [(i, value) for _, value in inner.values]
    if marked != script:
        found.secret_positions.add(i)
    return marked


def _known(secrets: set[str]) -> redaction.KnownSecrets:
    """The credentials long enough to look for wherever they reappear (a shorter one would
    match words: it is marked where it stood only)."""
    return redaction.KnownSecrets(s for s in secrets if len(s) >= redaction.MIN_SECRET)


def _words(line: str) -> list[str]:
    """A shell line's words as the shell reads them, its operators words of their own
    (``PGPASSWORD=x; psql``: the ``;`` is no part of the password)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: the shell will say so
        return line.split()


def _marked_line(line: str, depth: int = 0, rest: Sequence[str] = ()) -> tuple[Scan, str]:
    """A shell line's credentials (and those of the arguments after it), and the line as
    keyed: each word that carried one as its scan keeps it, the credentials long enough
    marked wherever they reappear, a short one whose word the line quotes otherwise marked
    wherever it appears."""
    words = _words(line)
    found = scan(words + list(rest), depth)
    changed = {w: k for w, k in zip(words, found.tokens, strict=False) if w != k and w in line}
    text = line
    if changed:
        find = re.compile("|".join(map(re.escape, sorted(changed, key=len, reverse=True))))
        text = find.sub(lambda m: changed[m[0]], line)
    unplaced = {v for i, v in found.values if i < len(words) and words[i] not in changed}
    return found, redaction.KnownSecrets(
        {s for s in found.secrets if len(s) >= redaction.MIN_SECRET} | unplaced
    ).marked(text)


@dataclass
class Command:
    """A command as the capture keys it: what it asks (argv or shell line, its credentials each
    a keyed fingerprint), the program it names, the files its arguments name, and the
    credentials it carries."""

    body: dict[str, Any]  # {"argv": [...]} or {"shell": "...", "argv": [...]}; "executable"
    program: str
    label: str  # for messages: the command as keyed, shortened
    paths: list[tuple[str, str]]  # (the argument, as keyed; the path it names)
    headers: list[tuple[str, str]]  # the credentials, as the core reads them
    secrets: frozenset[str]
    secret_stdin: bool = False

    @classmethod
    def of(
        cls, args: Any, *, shell: bool = False, executable: Any = None, cwd: Any = None
    ) -> Command:
        seq = [args] if isinstance(args, str | bytes | os.PathLike) else list(args)
        given = [os.fsdecode(a) for a in seq]  # TypeError for what no process takes either
        base = os.fsdecode(cwd) if cwd is not None else os.getcwd()
        if shell:
            line, rest = (given[0] if given else ""), given[1:]
            found, shown = _marked_line(line, rest=rest)
            words = _words(line)
            body: dict[str, Any] = {"shell": shown}
            if rest:
                body["argv"] = found.tokens[len(words) :]
            # Its program: the first word after the variables it sets (``KEY=… git push``).
            programs = [w for w in words if not _VARIABLE.match(w)]
            program = os.path.basename(programs[0]) if programs else "sh"
            label = body["shell"]
            named = list(enumerate(words + rest))[1:]
        else:
            found = scan(given)
            body = {"argv": found.tokens}
            program = os.path.basename(given[0]) if given else ""
            label = shlex.join([program, *found.tokens[1:]])
            named = list(enumerate(given))[1:]
        if executable is not None:
            body["executable"] = os.fsdecode(executable)
        keyed = found.tokens
        paths = []
        for i, token in named:
            if i in found.secret_positions:
                continue
            for candidate in _candidates(token):
                if len(paths) < MAX_FILES * 4:
                    arg = keyed[i] if i < len(keyed) and candidate == token else candidate
                    paths.append((arg, os.path.join(base, candidate)))
        secrets = frozenset(found.secrets)
        headers = found.headers + [("x-api-key", s) for s in sorted(secrets)]
        label = label.replace("\n", "\\n")  # one line in a message
        short = label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"
        return cls(body, program or "sh", short, paths, headers, secrets, found.secret_stdin)

    def files(self) -> dict[str, str]:
        """The content of each named file that exists now (a regular file): its sha256."""
        found: dict[str, str] = {}
        for arg, path in self.paths:
            if len(found) >= MAX_FILES:
                break
            if arg not in found:
                digest = file_digest(path)
                if digest is not None:
                    found[arg] = digest
        return found

    def wrote(self, before: dict[str, str]) -> Written:
        """The named files whose content the command changed (``before``: as it found them):
        what each holds now (None: it removed it), with its content up to the bounds."""
        after = self.files()
        changed = sorted(a for a in {*before, *after} if before.get(a) != after.get(a))
        written = Written({a: after.get(a) for a in changed})
        where = self._where()
        budget = WRITTEN_TOTAL
        for arg in changed:
            if written.digests[arg] is None:
                continue
            data, size = _content(where[arg], min(WRITTEN_BYTES, budget))
            if data is None:
                written.hash_only[arg] = size
                continue
            budget -= len(data)
            # The bytes kept and their hash read at once (the hash taken first may be older).
            written.digests[arg] = f"sha256:{hashlib.sha256(data).hexdigest()}"
            written.contents[arg] = _stream(data)
        return written

    def _where(self) -> dict[str, str]:
        """Each named argument's path (the first, where one names two)."""
        where: dict[str, str] = {}
        for arg, path in self.paths:
            where.setdefault(arg, path)
        return where

    def stdin_field(self, data: bytes | None) -> Any:
        """How a stdin is keyed: its text, or its hash (large, binary, or a credential)."""
        if data is None:
            return None
        if not self.secret_stdin and len(data) <= STDIN_TEXT:
            try:
                return _known(set(self.secrets)).marked(data.decode("utf-8"))
            except UnicodeDecodeError:
                pass
        return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}

    def request(
        self,
        library: str,
        stdin: bytes | None,
        files: dict[str, str],
        calls: StepCalls | None = None,
    ) -> Outgoing:
        """The ``Outgoing`` the core keys: ``stdin`` None when the process reads none from the
        caller (not piped); ``files`` as the process found them."""
        body = dict(self.body)
        field_ = self.stdin_field(stdin)
        if field_ is not None:
            body["stdin"] = field_
        if files:
            body["files"] = files
        if calls is not None:
            body = as_recorded(calls, body, self.headers)
        content = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        url = f"exec:///{quote(self.program, safe='')}"
        return Outgoing(METHOD, url, list(self.headers), content.encode("utf-8"), library)


def _candidates(token: str) -> list[str]:
    """What an argument may name as a file: itself, and the value of ``--flag=value``."""
    out = [token]
    if token.startswith("-") and "=" in token:
        out.append(token.partition("=")[2])
    return [t for t in out if t and len(t) < _MAX_ARG and "\0" not in t]


def _content(path: str, limit: int) -> tuple[bytes | None, int]:
    """A regular file's bytes (None when it holds more than ``limit``), and its size."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > limit:
                return None, size
            data = handle.read(limit + 1)
    except (OSError, ValueError):
        return None, 0
    return (data, len(data)) if len(data) <= limit else (None, len(data))


def file_digest(path: str) -> str | None:
    """``sha256:<hex>`` of a regular file's content (its first ``FILE_BYTES``), or None."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return None
        digest = hashlib.sha256()
        left = FILE_BYTES
        with open(path, "rb") as handle:
            while left > 0:
                chunk = handle.read(min(CHUNK, left))
                if not chunk:
                    break
                digest.update(chunk)
                left -= len(chunk)
    except (OSError, ValueError):
        return None
    more = "" if info.st_size <= FILE_BYTES else f" (first {FILE_BYTES} of {info.st_size} bytes)"
    return f"sha256:{digest.hexdigest()}{more}"


def as_recorded(calls: StepCalls, body: dict[str, Any], headers: list[tuple[str, str]]) -> dict:
    """``body`` with its files as the recorded command found them, when each named file now
    holds either that or what the recorded command left in it — the same command (argv,
    stdin), asked in this step of the run being followed. Otherwise ``body`` as it is."""
    files = body.get("files") or {}
    if not calls.pins:
        return body
    asked = {k: v for k, v in as_stored(body, headers).items() if k != "files"}
    chosen = None
    for (sequence_id, _, _), entry in list(calls.pins.items()):
        args = getattr(entry, "args", None)
        if sequence_id != calls.sequence_id or not isinstance(args, dict):
            continue
        recorded = args.get("body")
        if args.get("method") != METHOD or not isinstance(recorded, dict):
            continue
        if {k: v for k, v in recorded.items() if k != "files"} != asked:
            continue
        before = recorded.get("files") or {}
        if before == files:
            return body
        wrote = _wrote(entry)
        if all(
            files.get(a) == before.get(a) or (a in wrote and files.get(a) == wrote[a])
            for a in {*files, *before}
        ):
            chosen = before
    if chosen is None:
        return body
    kept = {k: v for k, v in body.items() if k != "files"}
    return {**kept, "files": chosen} if chosen else kept


def as_stored(body: dict[str, Any], headers: list[tuple[str, str]]) -> Any:
    """A command's body as the core keeps it in a tool entry's args (``describe_request``,
    ``_entry_fields``): the request's credentials marked in its strings, and — when its content
    looks like a secret somewhere — that content as its fingerprint (``masked_shapes``)."""
    known = redaction.KnownSecrets(
        redaction.secrets_in_headers(headers) | redaction.secrets_in_body(body)
    )
    keyed = redaction.keyed_body(body, known)
    return redaction.masked_shapes(keyed) if redaction.kinds_of_secrets(keyed) else keyed


def _wrote(entry: Any) -> dict[str, Any]:
    try:
        answer = json.loads((getattr(entry, "result", None) or {}).get("text") or "{}")
    except (TypeError, ValueError):
        return {}
    wrote = answer.get("wrote") if isinstance(answer, dict) else None
    return wrote if isinstance(wrote, dict) else {}


# -- answers --------------------------------------------------------------------------------


@dataclass
class Written:
    """What a command left in the named files it changed: each one's hash (None: removed), the
    content of those within the bounds (text, or ``{"base64": …}``), the size of the others."""

    digests: dict[str, str | None]
    contents: dict[str, Any] = field(default_factory=dict)
    hash_only: dict[str, int] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.digests)


class NotRestored(NodeFailure):
    """A replay could not write back a file the recorded command wrote (kept as its hash)."""


def restore(calls: StepCalls, command: Command, given: Answer) -> None:
    """Write back the files the recorded command wrote, as it left them, before its replayed
    process returns: the same bytes at the same path (relative to this process's working
    directory, or the ``cwd`` it is given), a file it removed removed. A file already holding
    what the command left is not touched; one kept as its hash only (over the bounds, or
    recorded before contents were kept) fails the step naming the command and the file — the
    app would otherwise read a file that is not there, or stale."""
    if given.status != OK:
        return
    try:
        data = json.loads(given.body)
    except ValueError:
        return
    wrote = data.get("wrote") if isinstance(data, dict) else None
    if not isinstance(wrote, dict) or not wrote:
        return
    contents = data.get("contents") or {}
    sizes = data.get("hash_only") or {}
    where = command._where()
    for arg in sorted(wrote):
        digest, path = wrote[arg], where.get(arg)
        if path is None:
            _refuse(
                calls, f"`{command.label}` wrote {arg}, which this replay's command never names"
            )
        try:
            if digest is None:
                if os.path.lexists(path) and not os.path.isdir(path):
                    os.unlink(path)
            elif file_digest(path) == digest:
                continue
            elif arg in contents:
                folder = os.path.dirname(path)
                if folder:
                    os.makedirs(folder, exist_ok=True)
                with open(path, "wb") as handle:
                    handle.write(_bytes(contents[arg]) or b"")
            else:
                size = sizes.get(arg)
                why = (
                    f" ({size} bytes), over the {WRITTEN_BYTES} bytes a recording keeps of a "
                    f"file ({WRITTEN_TOTAL} of a command)"
                    if isinstance(size, int)
                    else ", recorded before a command's files were kept"
                )
                _refuse(
                    calls,
                    f"`{command.label}` wrote {arg}{why}: only its hash was recorded, so this "
                    "replay cannot write it back; record the step again (a new run) to replay "
                    "a step that reads it",
                )
        except OSError as exc:
            _refuse(
                calls, f"`{command.label}` wrote {arg}, which this replay could not write: {exc}"
            )


def _refuse(calls: StepCalls, message: str) -> NoReturn:
    # The step fails even if the app catches the error (``recorder.step_failure``).
    calls.refused = calls.refused or message
    raise NotRestored(message)


@dataclass
class Outcome:
    """What a command answered, as its caller reads it back."""

    returncode: int | None
    stdout: bytes | None
    stderr: bytes | None
    timeout: float | None = None  # the wait timed out: the process had not finished
    polls: int = 0  # ``poll()`` calls that found it running before this answer


def answer(
    returncode: int | None,
    stdout: bytes | None,
    stderr: bytes | None,
    *,
    wrote: Written | None = None,
    timeout: float | None = None,
    polls: int = 0,
) -> Answer:
    data: dict[str, Any] = {
        "returncode": returncode,
        "stdout": _stream(stdout),
        "stderr": _stream(stderr),
    }
    if wrote:
        data["wrote"] = wrote.digests
        if wrote.contents:
            data["contents"] = wrote.contents
        if wrote.hash_only:
            data["hash_only"] = wrote.hash_only
    if timeout is not None:
        data["timeout"] = timeout
    if polls:
        data["polls"] = polls
    body = json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return Answer(OK if timeout is None else TIMED_OUT, dict(JSON), body)


def outcome(given: Answer) -> Outcome:
    data = json.loads(given.body)
    timeout = data.get("timeout")
    return Outcome(
        data.get("returncode"),
        _bytes(data.get("stdout")),
        _bytes(data.get("stderr")),
        float(timeout) if timeout is not None else None,
        int(data.get("polls") or 0),
    )


def _stream(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def _bytes(value: Any) -> bytes | None:
    if value is None:
        return None
    if isinstance(value, dict):
        return base64.b64decode(value.get("base64", ""))
    return str(value).encode("utf-8")


PID = 4_194_305  # the pid of a process not started: above Linux's (and any) pid limit


# -- recording a process that runs ------------------------------------------------------------


def follows(calls: StepCalls) -> bool:
    """Whether the step answers its processes from a recording (they are deferred)."""
    if calls.guarded or calls.preview:
        return True
    return not calls.live and any(key[0] == calls.sequence_id for key in list(calls.pins))


def record(calls: StepCalls, out: Outgoing, finish: Callable[[], tuple[Answer, Any]]) -> Any:
    """A process already running, recorded as it answers: what ``exchange`` does with a live
    send (key and occurrence, the answer stored, a failure noted) without asking the cache."""
    _, call, described = calls.prepare(out)
    started = time.perf_counter()
    try:
        with sending():
            answer, native = finish()
    except Exception as exc:
        calls.failed(call, started, exc)
        raise
    # Stored when the step ends, in the run's thread (``store_pending``): a process is often
    # waited for in a thread of the step's library (``asyncio.to_thread``), with no database.
    calls.recorded(call, described, answer, started, now=False)
    return answer, native


async def arecord(
    calls: StepCalls, out: Outgoing, finish: Callable[[], Awaitable[tuple[Answer, Any]]]
) -> Any:
    _, call, described = calls.prepare(out)
    started = time.perf_counter()
    try:
        with sending():
            answer, native = await finish()
    except Exception as exc:
        calls.failed(call, started, exc)
        raise
    calls.recorded(call, described, answer, started, now=False)  # stored at the step's end
    return answer, native
