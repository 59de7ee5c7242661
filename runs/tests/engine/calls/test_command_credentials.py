"""A command's credentials are found by their position and enter its key as their keyed
fingerprint (issue 40; DESIGN.md, "Exact and private"; ``capture.commands``): ``mysql -pX``,
``kubectl create secret … --from-literal=password=X``, ``aws configure set … X``, a token as a
URL's user, ``redis-cli -a X``, ``sshpass -p X`` and their kin are never stored, two commands
that differ only in the credential never share a key, and the same credential keys the same.
What only flags a port or a path (``ssh -p 22``, ``mkdir -p``, ``grep -a``) stays data, and
content that merely looks like a secret (``task-management-…`` holds ``sk-…``, a JWT, a
private key's armour) is kept exactly: two commands differing inside it get two keys.
"""

from __future__ import annotations

import json
import subprocess
import sys
from types import SimpleNamespace

import pytest
from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action

from runs.engine.apps import registry
from runs.engine.calls.capture.commands import Command
from runs.engine.calls.capture.core import StepCalls
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.lib import sealing
from runs.models import Run, ToolCacheEntry
from runs.tests.conftest import everything_stored

FIRST, SECOND = "Hunter2-alpha-x9", "Hunter2-omega-x9"  # two credentials, one length
SHORT_FIRST, SHORT_SECOND = "pw1", "pw2"  # shorter than any search elsewhere
URL = "https://api.example.com/v1/items"


def keyed(command, *, shell: bool = False, stdin: bytes | None = None):
    """The command as captured, its key, what the core keys (and stores) of it, and its
    request's bytes."""
    cmd = Command.of(command, shell=shell)
    out = cmd.request("subprocess.run", stdin, {})
    _, call, described = StepCalls(sequence_id=0, action="t").prepare(out)
    return cmd, call.key, described, out


def stored_text(cmd: Command, described: dict, out) -> str:
    """Everything of a command that is written anywhere: its body, label, the request the core
    keys (headers are never stored) and what the core describes of it."""
    return "\n".join(
        [json.dumps(cmd.body), cmd.label, out.content.decode(), json.dumps(described), out.url]
    )


def fill(template, secret: str):
    if isinstance(template, str):
        return template.replace("{s}", secret)
    return [t.replace("{s}", secret) for t in template]


# (command, shell?, what stands where the credential stood)
FORMS = [
    (["mysql", "-uroot", "-p{s}", "-e", "select 1"], False, "-p[credential:"),
    (["mariadb", "-h", "db", "-p{s}", "shop"], False, "-p[credential:"),
    (["mysqldump", "-p{s}", "shop"], False, "-p[credential:"),
    (["/usr/bin/mysqladmin", "-uroot", "-p{s}", "status"], False, "-p[credential:"),
    (["mysql", "--password={s}", "shop"], False, "--password=[credential:"),
    (["tool", "--password", "{s}"], False, "[credential:"),
    (
        ["kubectl", "create", "secret", "generic", "db", "--from-literal=password={s}"],
        False,
        "--from-literal=password=[credential:",
    ),
    (
        ["kubectl", "create", "secret", "generic", "db", "--from-literal=dsn={s}"],
        False,
        "--from-literal=dsn=[credential:",
    ),
    (["helm", "install", "db", "bitnami/mysql", "--set", "auth.rootPassword={s}"], False, None),
    (["aws", "configure", "set", "aws_secret_access_key", "{s}"], False, "[credential:"),
    (["git", "clone", "https://{s}@github.com/org/repo.git"], False, "https://[credential:"),
    (
        ["git", "clone", "https://x-access-token:{s}@github.com/org/repo.git"],
        False,
        "x-access-token:[credential:",
    ),
    (["redis-cli", "-h", "cache", "-a", "{s}", "ping"], False, "[credential:"),
    (["redis-cli", "-u", "redis://:{s}@cache:6379", "ping"], False, "redis://:[credential:"),
    ("export PGPASSWORD={s}; psql -h db", True, "PGPASSWORD=[credential:"),
    (["sshpass", "-p", "{s}", "ssh", "-p", "22", "deploy@host"], False, "[credential:"),
    ("PGPASSWORD={s} psql -h db -c 'select 1'", True, "PGPASSWORD=[credential:"),
    ("MYSQL_PWD={s} mysql -e 'select 1'", True, "MYSQL_PWD=[credential:"),
    ("mysql -uroot -p{s} -e 'select 1' | grep -a pattern", True, "-p[credential:"),
    (["docker", "run", "-e", "POSTGRES_PASSWORD={s}", "postgres:16"], False, None),
    (["htpasswd", "-b", "users.htpasswd", "alice", "{s}"], False, "[credential:"),
    (["htpasswd", "-nbB", "alice", "{s}"], False, "[credential:"),
    (["curl", "-u", "alice:{s}", URL], False, "alice:[credential:"),
    (["curl", "-H", "Authorization: Bearer {s}", URL], False, "Bearer [credential:"),
    (
        ["curl", "-H", "Cookie: session={s}; theme=dark", URL],
        False,
        "Cookie: [credential:",
    ),  # whole
    (["curl", f"{URL}?api_key={{s}}&page=2"], False, "?api_key=[credential:"),
    (["curl", "-d", '{"user": "alice", "password": "{s}"}', URL], False, '"[credential:'),
    (["psql", "host=db user=app password={s} dbname=shop"], False, "password=[credential:"),
    (["bash", "-c", "mysql -p{s} shop < dump.sql"], False, "-p[credential:"),
    (["docker", "login", "-u", "me", "-p", "{s}", "registry.example.com"], False, None),
    (["openssl", "rsa", "-in", "key.pem", "-passin", "pass:{s}"], False, "pass:[credential:"),
    (["ldapsearch", "-x", "-D", "cn=admin", "-w", "{s}"], False, "[credential:"),
    (["mongosh", "-u", "admin", "-p", "{s}", "mongodb://db"], False, "[credential:"),
    (["smbclient", "//files/share", "-U", "alice%{s}"], False, "alice%[credential:"),
    (["7z", "x", "-p{s}", "backup.7z"], False, "-p[credential:"),
    (["gh", "secret", "set", "DEPLOY", "--body", "{s}"], False, "[credential:"),
    ("GITHUB_TOKEN={s} gh api /user", True, "GITHUB_TOKEN=[credential:"),
]
IDS = [(f if isinstance(f, str) else " ".join(f))[:40] for f, _, _ in FORMS]


@pytest.mark.parametrize(("template", "shell", "stands"), FORMS, ids=IDS)
def test_a_credential_on_a_command_line_is_keyed_by_its_fingerprint(template, shell, stands):
    cmd, key, described, out = keyed(fill(template, FIRST), shell=shell)
    other, other_key, _, _ = keyed(fill(template, SECOND), shell=shell)
    again, again_key, _, _ = keyed(fill(template, FIRST), shell=shell)

    text = stored_text(cmd, described, out)
    assert FIRST not in text  # (a) never stored, nor shown
    assert "Hunter2" not in text
    value = f"session={FIRST}; theme=dark" if "Cookie" in str(template) else FIRST
    assert sealing.mark(value) in json.dumps(described["body"])  # where it stood
    if stands:
        assert stands.replace("[credential:", sealing.mark(value)) in text
    assert value in cmd.secrets  # what the core looks for in the answer
    assert key != other_key  # (b) another credential, another key
    assert key == again_key  # (c) the same one, the same key
    assert described == keyed(fill(template, FIRST), shell=shell)[2]


@pytest.mark.parametrize(
    "template",
    [
        ["mysql", "-uroot", "-p{s}", "shop"],
        "mysql -uroot -p{s} -e 'select * from passengers'",
        ["redis-cli", "-a", "{s}", "ping"],
    ],
    ids=["argv", "shell", "redis"],
)
def test_a_short_credential_is_keyed_by_its_fingerprint_too(template):
    shell = isinstance(template, str)
    cmd, key, described, out = keyed(fill(template, SHORT_FIRST), shell=shell)
    _, other_key, _, _ = keyed(fill(template, SHORT_SECOND), shell=shell)

    assert SHORT_FIRST not in stored_text(cmd, described, out)
    assert sealing.mark(SHORT_FIRST) in json.dumps(described["body"])
    assert key != other_key
    assert key == keyed(fill(template, SHORT_FIRST), shell=shell)[1]
    if shell:  # the rest of the line is kept as it was
        assert "select * from passengers" in described["body"]["shell"]


def test_a_credential_that_reappears_is_marked_there_too():
    cmd, _, described, out = keyed(
        ["mysql", f"-p{FIRST}", "-e", f"ALTER USER app IDENTIFIED BY '{FIRST}'"],
        stdin=f"-- {FIRST}\nselect 1;\n".encode(),
    )
    mark = sealing.mark(FIRST)
    assert FIRST not in stored_text(cmd, described, out)
    assert described["body"]["argv"] == [
        "mysql", f"-p{mark}", "-e", f"ALTER USER app IDENTIFIED BY '{mark}'"
    ]  # fmt: skip
    assert described["body"]["stdin"] == f"-- {mark}\nselect 1;\n"


@pytest.mark.parametrize(
    "command",
    [
        ["ssh", "-p", "22", "deploy@host"],
        ["ssh", "-p22", "host", "uptime"],
        ["mkdir", "-p", "out/reports"],
        ["grep", "-a", "pattern", "log.bin"],
        ["tar", "-p", "-xf", "backup.tar"],
        ["docker", "run", "-p", "8080:80", "-u", "1000:1000", "nginx"],
        ["scp", "-P", "2222", "file", "host:/tmp"],
        ["psql", "--no-password", "shop"],
        ["git", "clone", "git@github.com:org/repo.git"],
        ["git", "clone", "https://alice@github.com/org/repo.git"],
        ["curl", f"{URL}?page=2&key=fr"],
        ["kubectl", "create", "configmap", "app", "--from-literal=mode=fast"],
        ["docker", "run", "-e", "MODE=fast", "-e", "LANG=C.UTF-8", "app"],
        ["htpasswd", "-D", "users.htpasswd", "alice"],
        ["aws", "configure", "set", "region", "eu-west-1"],
        "ssh -p 2222 host 'mkdir -p /srv/x' && grep -a -p pattern f",
    ],
    ids=lambda c: (c if isinstance(c, str) else " ".join(c))[:40],
)
def test_what_only_looks_like_a_credential_flag_stays_data(command):
    shell = isinstance(command, str)
    cmd, _, described, _ = keyed(command, shell=shell)

    if shell:
        assert described["body"]["shell"] == command
    else:
        assert described["body"]["argv"] == command
    assert "[credential:" not in json.dumps(described)
    assert not cmd.secrets


@pytest.mark.parametrize(
    ("first", "second", "shell"),
    [
        (
            ["echo", "task-management-alpha-release"],
            ["echo", "task-management-omega-release"],
            False,
        ),
        (
            "echo deploy sk-proj-aaaaaaaaaaaaaaaaaaaa1 >> notes.txt",
            "echo deploy sk-proj-aaaaaaaaaaaaaaaaaaaa2 >> notes.txt",
            True,
        ),
        (
            ["jwt", "decode", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlQQ"],
            ["jwt", "decode", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlQg"],
            False,
        ),
        (
            ["printf", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAalpha\n"],
            ["printf", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAomega\n"],
            False,
        ),
        (
            ["git", "commit", "-m", "rotate ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1"],
            ["git", "commit", "-m", "rotate ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2"],
            False,
        ),
    ],
    ids=["sk-in-a-word", "sk-in-a-shell-line", "jwt", "private-key", "github-token-in-text"],
)
def test_content_that_looks_like_a_secret_is_kept_exactly_and_keyed(first, second, shell):
    cmd, key, described, _ = keyed(first, shell=shell)
    _, other_key, _, _ = keyed(second, shell=shell)

    assert key != other_key
    assert not cmd.secrets  # not a credential by position: nothing to look for elsewhere
    if shell:
        assert described["body"]["shell"] == first
    else:
        assert described["body"]["argv"] == first


def test_a_stdin_that_looks_like_a_secret_is_kept_exactly_and_keyed():
    armour = b"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA%s\n-----END RSA PRIVATE KEY-----\n"
    _, key, described, _ = keyed(["ssh-add", "-"], stdin=armour % b"alpha")
    _, other_key, _, _ = keyed(["ssh-add", "-"], stdin=armour % b"omega")

    assert key != other_key
    assert described["body"]["stdin"] == (armour % b"alpha").decode()


@pytest.mark.parametrize(
    "command",
    [
        ["htpasswd", "-i", "users.htpasswd", "alice"],
        ["sshpass", "ssh", "deploy@host"],
        ["docker", "login", "-u", "me", "--password-stdin"],
        ["chpasswd"],
        ["gpg", "--batch", "--passphrase-fd", "0", "-d", "secret.gpg"],
    ],
    ids=lambda c: " ".join(c)[:40],
)
def test_a_stdin_a_command_reads_its_credential_from_is_keyed_by_its_hash(command):
    _, key, described, _ = keyed(command, stdin=f"{FIRST}\n".encode())
    _, other_key, _, _ = keyed(command, stdin=f"{SECOND}\n".encode())

    assert FIRST not in json.dumps(described)
    assert set(described["body"]["stdin"]) == {"sha256", "bytes"}
    assert key != other_key


def test_a_file_the_command_wrote_is_keyed_as_recorded_with_its_credential_and_shapes(tmp_path):
    """``as_recorded`` compares the args as the core stores them: credentials marked, and — a
    command whose content looks like a secret — that content masked."""
    (tmp_path / "out.txt").write_text("before\n")
    argv = ["tool", f"--password={FIRST}", "--note", "AKIAIOSFODNN7EXAMPLE", "out.txt"]
    cmd = Command.of(argv, cwd=tmp_path)
    recording = StepCalls(sequence_id=0, action="t")
    _, call, described = recording.prepare(cmd.request("subprocess.run", b"in", cmd.files()))
    (tmp_path / "out.txt").write_text("after\n")  # what the command left in its file
    wrote = {"out.txt": cmd.files()["out.txt"]}
    answer = {"returncode": 0, "stdout": "", "stderr": "", "wrote": wrote}
    fields = recording._entry_fields(
        call, described, {"status": 200, "headers": {}, "text": json.dumps(answer)}
    )
    assert fields["args"] != described  # the AWS key's shape is masked in the stored args
    assert "AKIAIOSFODNN7EXAMPLE" not in json.dumps(fields["args"])
    entry = SimpleNamespace(args=fields["args"], result=fields["result"])
    replaying = StepCalls(sequence_id=0, action="t", pins={(0, call.key, call.occurrence): entry})

    out = Command.of(argv, cwd=tmp_path).request("subprocess.run", b"in", cmd.files(), replaying)
    _, again, _ = replaying.prepare(out)

    assert again.key == call.key  # keyed with the files the recorded command found


# -- a recorded run -------------------------------------------------------------------------

RUN_SECRETS = {
    "mysql": "mysql-Run-Secret-1",
    "literal": "literal-Run-Secret-2",
    "aws": "aws-Run-Secret-3",
    "url": "url-Run-Secret-4",
    "redis": "redis-Run-Secret-5",
    "sshpass": "sshpass-Run-Secret-6",
    "shell": "shell-Run-Secret-7",
}
PRINT_OK = "print('ok')"


@action(reads=[], writes=["codes"])
def administer(state: State) -> State:
    s = RUN_SECRETS
    python = sys.executable
    argvs = [
        [python, "-c", PRINT_OK, "mysql", "-uroot", f"-p{s['mysql']}", "shop"],
        [python, "-c", PRINT_OK, "kubectl", "create", "secret", "generic", "db",
         f"--from-literal=password={s['literal']}"],
        [python, "-c", PRINT_OK, "aws", "configure", "set", "aws_secret_access_key", s["aws"]],
        [python, "-c", PRINT_OK, "git", "clone", f"https://{s['url']}@github.com/o/r.git"],
        [python, "-c", PRINT_OK, "redis-cli", "-a", s["redis"], "ping"],
        [python, "-c", PRINT_OK, "sshpass", "-p", s["sshpass"], "ssh", "-p", "22", "host"],
    ]  # fmt: skip
    codes = [subprocess.run(argv, capture_output=True).returncode for argv in argvs]
    shell = subprocess.run(
        f'PGPASSWORD={s["shell"]} {python} -c "{PRINT_OK}"', shell=True, capture_output=True
    )
    return state.update(codes=[*codes, shell.returncode])


def administration() -> Application:
    return ApplicationBuilder().with_actions(admin=administer).with_entrypoint("admin").build()


@pytest.fixture
def administration_app(rewind_settings, db):
    name = "command_credentials"
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        name: f"{__name__}.administration",
    }
    registry._load.cache_clear()
    yield name
    registry._load.cache_clear()


def test_a_recorded_run_stores_no_credential_of_its_commands_and_replays(
    administration_app, caplog
):
    source = execute_run(create_run(administration_app, {}).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    assert source.nodes.get(name="admin").output["codes"] == [0] * 7

    again = execute_run(create_replay(source).pk)

    assert replay_verdict(source, again).verdict == "identical", again.error
    stored = everything_stored()
    for secret in RUN_SECRETS.values():
        assert secret not in stored, secret
        assert secret not in caplog.text
    argvs = [e.args["body"].get("argv") or [] for e in ToolCacheEntry.objects.all()]
    assert ["ssh", "-p", "22", "host"] in [a[-4:] for a in argvs]  # ssh's port is data
    assert any(f"-p{sealing.mark(RUN_SECRETS['mysql'])}" in a for a in argvs)  # where it stood
