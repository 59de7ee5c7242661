"""The credentials a command line carries by its position (DESIGN.md, "Exact and private"):
``scan`` reads argv (or a shell line's words, a ``bash -c`` script inside it) and finds each
credential — ``--token=…``, ``--password X``, ``-H "Authorization: Bearer …"``, a
``user:password@`` URL or a token as its user, ``OPENAI_API_KEY=…`` before a shell command,
``-e PASSWORD=…``, ``--from-literal=password=…``, ``aws configure set <credential> …``,
``password=…`` in a query or a connection string, a JSON field named like one, and a program's
own password flag (``mysql -p…``, ``redis-cli -a``, ``sshpass -p``, ``htpasswd -b``, ``curl -u
user:…`` and their kin: ``_FAMILIES``; ``-p`` is a port or a path to any other program) — and
puts its keyed fingerprint (``sealing.mark``) where it stood. ``commands`` builds the keyed
request from what this finds.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import unquote_plus

from runs.engine.calls.capture import redaction
from runs.lib import sealing

# --name=value, -name=value and NAME=value (an assignment before a shell command).
_ASSIGNED = re.compile(r"^(-{0,2})([A-Za-z_][A-Za-z0-9_.-]*)=(.+)$", re.S)
VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
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
    known = known_secrets(found.secrets)
    if known:
        found.tokens = [known.marked(t) for t in found.tokens]
    return found


def _script(script: str, found: Scan, i: int, depth: int) -> str:
    """A shell's ``-c`` script as keyed: its own credentials found as a shell line's are."""
    inner, marked = marked_line(script, depth + 1)
    found.secrets |= inner.secrets
    found.headers += inner.headers
    found.secret_stdin |= inner.secret_stdin
    found.values += [(i, value) for _, value in inner.values]
    if marked != script:
        found.secret_positions.add(i)
    return marked


def known_secrets(secrets: set[str]) -> redaction.KnownSecrets:
    """The credentials long enough to look for wherever they reappear (a shorter one would
    match words: it is marked where it stood only)."""
    return redaction.KnownSecrets(s for s in secrets if len(s) >= redaction.MIN_SECRET)


def shell_words(line: str) -> list[str]:
    """A shell line's words as the shell reads them, its operators words of their own
    (``PGPASSWORD=x; psql``: the ``;`` is no part of the password)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: the shell will say so
        return line.split()


def marked_line(line: str, depth: int = 0, rest: Sequence[str] = ()) -> tuple[Scan, str]:
    """A shell line's credentials (and those of the arguments after it), and the line as
    keyed: each word that carried one as its scan keeps it, the credentials long enough
    marked wherever they reappear, a short one whose word the line quotes otherwise marked
    wherever it appears."""
    words = shell_words(line)
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
