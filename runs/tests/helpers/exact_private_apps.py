"""Burr apps for issue 40 ("Exact and private"): what a step receives holds strings that only
look like secrets — a private key block, a JWT, an OpenAI-shaped key, an AWS key id — and each
app writes what it received, exactly, to its state (the text, the bytes' sha256), so that an
unchanged replay is ``identical`` only when the caller read back the very bytes it was sent.

One app per transport: an LLM call through httpx and through the openai SDK, a tool call
through requests, aiohttp and urllib, a subprocess's stdout and stderr, a gRPC unary answer read
as raw bytes (a protobuf message with length prefixes), an MCP tool's result (the test server's
``note`` tool, which quotes what it is given); and an answer quoting the request's own
``X-RapidAPI-Key`` back. The services are on loopback: ``EXACT_BASE_URL`` (HTTP, an
``answer`` of a ``LoopbackProvider``) and ``EXACT_GRPC_TARGET`` (``ReportService``). And
``prompt_app``: an LLM step whose prompt is its ``question`` state key, for the cache-key tests
(``test_no_shared_entries.py``).

The secret-shaped values are made afresh in each process: none is in any file.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import string
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action
from mcp import ClientSession  # imported with the app, as MCP's capture needs (mcp_adapter)
from mcp.client.stdio import stdio_client

from runs.tests.helpers.mcp_apps import server_parameters

BASE_URL = "EXACT_BASE_URL"
GRPC_TARGET = "EXACT_GRPC_TARGET"
STDOUT, STDERR = "EXACT_STDOUT", "EXACT_STDERR"
STARTED = "EXACT_STARTED"  # a file each command started appends a line to
SHAPE = "EXACT_SHAPE"  # the one shape the requests app's report is asked for ("": all)
PLACE, VALUE = "EXACT_PLACE", "EXACT_VALUE"  # where the sending app puts what value
MODEL = "rewind-sim-1"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


KEY_BODY = base64.b64encode(os.urandom(48)).decode("ascii")  # one line of the key block
PRIVATE_KEY = (
    f"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA{KEY_BODY}\n-----END RSA PRIVATE KEY-----"
)
JWT = ".".join(
    (
        _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()),
        _b64url(json.dumps({"sub": secrets.token_hex(6), "name": "Ada"}).encode()),
        _b64url(os.urandom(32)),
    )
)
OPENAI_KEY = "sk-proj-" + secrets.token_hex(20)
AWS_KEY_ID = "AKIA" + "".join(secrets.choice(string.ascii_uppercase + "234567") for _ in range(16))

# What the services answer: every shape at once, with the whitespace a byte-exact copy keeps.
SECRET_TEXT = (
    "The vault held:\n"
    f"{PRIVATE_KEY}\n"
    f"  session: {JWT}\n"
    f"  openai:  {OPENAI_KEY}\r\n"
    f"  aws:\t{AWS_KEY_ID}\n"
)
# Each shape alone, by name.
SHAPES = {
    "private key": PRIVATE_KEY,
    "JWT": JWT,
    "OpenAI key": OPENAI_KEY,
    "AWS key id": AWS_KEY_ID,
}
# What no byte of the database may hold readable: each value in a form no JSON escaping alters.
NEEDLES = {
    "private key": KEY_BODY,
    "JWT": JWT,
    "OpenAI key": OPENAI_KEY,
    "AWS key id": AWS_KEY_ID,
}

# A credential sent in a header that the service quotes back in its answer.
RAPIDAPI_KEY = secrets.token_hex(25)


def base_url() -> str:
    return os.environ[BASE_URL].rstrip("/")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- the services (a LoopbackProvider's answer) -------------------------------------------------


def chat_answer_bytes() -> bytes:
    """A complete chat completion whose message is ``SECRET_TEXT``, laid out as no re-encoding
    would lay it out (indented, unsorted, ASCII-escaped)."""
    body = {
        "id": "chatcmpl-exact",
        "object": "chat.completion",
        "created": 1_760_000_000,
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": SECRET_TEXT},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 42, "total_tokens": 53},
    }
    return json.dumps(body, indent=3, ensure_ascii=True).encode("ascii")


def report_bytes(shape: str = "") -> bytes:
    """A tool's answer: plain text, not JSON; every shape, or the one named."""
    return ("report\n" + (f"{SHAPES[shape]}\n" if shape else SECRET_TEXT)).encode("utf-8")


def quota_bytes(key: str) -> bytes:
    return json.dumps({"quote": "Simplicity.", "note": f"key {key} has 99 calls left"}).encode()


def answer(call: Any) -> tuple[Any, ...]:
    path = call.path.split("?")[0]
    if path.endswith("/chat/completions"):
        return 200, chat_answer_bytes(), "application/json"
    if path.endswith("/report"):
        shape = dict(parse_qsl(urlsplit(call.path).query)).get("shape", "")
        return 200, report_bytes(shape), "text/plain; charset=utf-8"
    if path.endswith("/ack"):
        return 200, {"ok": True}
    if path.endswith("/quota"):
        return 200, quota_bytes(call.headers.get("X-RapidAPI-Key", "")), "application/json"
    return 404, {"error": f"no route {path}"}


# -- gRPC: a unary method answering raw protobuf bytes ------------------------------------------

GRPC_METHOD = "/rewind.test.Vault/Report"


def grpc_answer_bytes(small: bool = False) -> bytes:
    """A ``google.protobuf.Struct`` holding the secrets, serialised: its fields' length prefixes
    only hold for these exact bytes. ``small``: one whose every length is below 128, so that
    its bytes are valid UTF-8 with no U+0000 (stored as text, as issue 40's 31-byte answer)."""
    from google.protobuf import struct_pb2

    made = struct_pb2.Struct()
    if small:
        made.update({"aws": AWS_KEY_ID, "openai": OPENAI_KEY})
    else:
        made.update({"text": SECRET_TEXT, "jwt": JWT, "aws": AWS_KEY_ID, "n": 3})
    return made.SerializeToString(deterministic=True)


class ReportService:
    """The gRPC service on loopback (an OS-assigned port, in ``target``), counting its calls."""

    def __init__(self) -> None:
        import grpc

        self.reached = 0
        self.server = grpc.server(ThreadPoolExecutor(max_workers=2))

        def report(request: bytes, context: Any) -> bytes:
            self.reached += 1
            return grpc_answer_bytes(small=request == b"small")

        handler = grpc.unary_unary_rpc_method_handler(report)  # bytes in, bytes out
        service, method = GRPC_METHOD.strip("/").split("/")
        self.server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(service, {method: handler}),)
        )
        port = self.server.add_insecure_port("127.0.0.1:0")
        self.target = f"127.0.0.1:{port}"
        self.server.start()

    def stop(self) -> None:
        self.server.stop(None).wait()


# -- the apps --------------------------------------------------------------------------------


def _one_step(step: Any, **state: Any) -> Application:
    builder = ApplicationBuilder().with_actions(fetch=step).with_entrypoint("fetch")
    return builder.with_state(**state).build() if state else builder.build()


@action(reads=[], writes=["text", "sha256"])
def llm_httpx(state: State) -> State:
    import httpx

    body = {"model": MODEL, "temperature": 0, "messages": [{"role": "user", "content": "Vault?"}]}
    with httpx.Client(timeout=5) as client:
        reply = client.post(f"{base_url()}/chat/completions", json=body)
        reply.raise_for_status()
    raw = reply.content
    return state.update(
        text=json.loads(raw)["choices"][0]["message"]["content"], sha256=digest(raw)
    )


@action(reads=[], writes=["text"])
def llm_openai(state: State) -> State:
    import openai

    client = openai.OpenAI(base_url=base_url(), api_key="sk-test-not-a-real-key-00", max_retries=0)
    reply = client.chat.completions.create(
        model=MODEL, temperature=0, messages=[{"role": "user", "content": "Vault?"}]
    )
    return state.update(text=reply.choices[0].message.content)


@action(reads=[], writes=["text", "sha256"])
def tool_requests(state: State) -> State:
    import requests

    params = {"for": "ada"}
    if os.environ.get(SHAPE):
        params["shape"] = os.environ[SHAPE]
    reply = requests.get(f"{base_url()}/report", params=params, timeout=5)
    reply.raise_for_status()
    return state.update(text=reply.content.decode("utf-8"), sha256=digest(reply.content))


@action(reads=[], writes=["text", "sha256"])
async def tool_aiohttp(state: State) -> State:
    import aiohttp

    async with aiohttp.ClientSession() as session:
        async with session.get(f"{base_url()}/report", params={"for": "ada"}) as reply:
            reply.raise_for_status()
            raw = await reply.read()
    return state.update(text=raw.decode("utf-8"), sha256=digest(raw))


@action(reads=[], writes=["text", "sha256"])
def tool_urllib(state: State) -> State:
    import urllib.request

    with urllib.request.urlopen(f"{base_url()}/report?for=ada", timeout=5) as reply:
        raw = reply.read()
    return state.update(text=raw.decode("utf-8"), sha256=digest(raw))


# Prints what the environment holds (the environment is no part of a command's key: the
# command line holds nothing secret-shaped, only its output does).
PRINT = (
    "import os, sys\n"
    f"open(os.environ[{STARTED!r}], 'a').write('started\\n')\n"
    f"sys.stdout.buffer.write(os.environ[{STDOUT!r}].encode())\n"
    f"sys.stderr.buffer.write(os.environ[{STDERR!r}].encode())\n"
)


@action(reads=[], writes=["stdout", "stderr", "returncode"])
def command(state: State) -> State:
    done = subprocess.run([sys.executable, "-c", PRINT], capture_output=True, check=False)
    return state.update(
        stdout=done.stdout.decode("utf-8"),
        stderr=done.stderr.decode("utf-8"),
        returncode=done.returncode,
    )


@action(reads=[], writes=["hex", "fields", "small_hex", "small_fields"])
def grpc_unary(state: State) -> State:
    import grpc
    from google.protobuf import struct_pb2
    from google.protobuf.json_format import MessageToDict

    with grpc.insecure_channel(os.environ[GRPC_TARGET]) as channel:
        report = channel.unary_unary(GRPC_METHOD)  # no (de)serializer: the raw bytes
        raw = report(b"full", timeout=5)
        small = report(b"small", timeout=5)
    return state.update(
        hex=raw.hex(),
        fields=MessageToDict(struct_pb2.Struct.FromString(raw)),
        small_hex=small.hex(),
        small_fields=MessageToDict(struct_pb2.Struct.FromString(small)),
    )


@action(reads=[], writes=["text", "structured"])
async def mcp_tool(state: State) -> State:
    async with stdio_client(server_parameters()) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("note", {"text": SECRET_TEXT})
    return state.update(text=result.content[0].text, structured=result.structured_content)


@action(reads=[], writes=["sent"])
def send_http(state: State) -> State:
    """Sends ``VALUE`` where ``PLACE`` says — a query value or a JSON body field (requests) —
    and keeps only that it was answered."""
    import requests

    place, value = os.environ[PLACE], os.environ[VALUE]
    if place == "query":
        reply = requests.get(f"{base_url()}/ack", params={"q": value}, timeout=5)
    else:
        reply = requests.post(f"{base_url()}/ack", json={"text": value}, timeout=5)
    return state.update(sent=reply.json()["ok"])


@action(reads=[], writes=["sent"])
async def send_mcp(state: State) -> State:
    """Sends ``VALUE`` as an MCP tool's argument (the note tool quotes it back)."""
    async with stdio_client(server_parameters()) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("note", {"text": os.environ[VALUE]})
    return state.update(sent=not result.is_error)


@action(reads=[], writes=["note", "sha256"])
def quoted_key(state: State) -> State:
    import requests

    reply = requests.get(
        f"{base_url()}/quota",
        headers={"X-RapidAPI-Key": RAPIDAPI_KEY, "X-RapidAPI-Host": "quotes.p.rapidapi.com"},
        timeout=5,
    )
    reply.raise_for_status()
    # The app keeps the note with its own key taken out (so the state holds no credential):
    # it reads "<key>" only where the answer quoted exactly the key this request sent.
    note = reply.json()["note"].replace(RAPIDAPI_KEY, "<key>")
    return state.update(note=note, sha256=digest(reply.content))


def llm_httpx_app() -> Application:
    return _one_step(llm_httpx)


def llm_openai_app() -> Application:
    return _one_step(llm_openai)


def tool_requests_app() -> Application:
    return _one_step(tool_requests)


def tool_aiohttp_app() -> Application:
    return _one_step(tool_aiohttp)


def tool_urllib_app() -> Application:
    return _one_step(tool_urllib)


def command_app() -> Application:
    return _one_step(command)


def grpc_app() -> Application:
    return _one_step(grpc_unary)


def mcp_app() -> Application:
    return _one_step(mcp_tool)


def send_http_app() -> Application:
    return _one_step(send_http)


def send_mcp_app() -> Application:
    return _one_step(send_mcp)


def quoted_key_app() -> Application:
    return _one_step(quoted_key)


# -- an LLM step whose prompt is a state key (cache keys) ---------------------------------------

RSA_HEADER = "-----BEGIN RSA PRIVATE KEY-----"
ALPHA = f"What does this line mean? {RSA_HEADER}\nMIIEpAIBAAKCAQEAalpha"
OMEGA = f"What does this line mean? {RSA_HEADER}\nMIIEpAIBAAKCAQEAomega"


@action(reads=["question"], writes=["answer"])
def ask(state: State) -> State:
    import httpx

    body = {
        "model": MODEL,
        "temperature": 0,
        "messages": [{"role": "user", "content": state["question"]}],
    }
    with httpx.Client(timeout=5) as client:
        reply = client.post(f"{base_url()}/chat/completions", json=body)
        reply.raise_for_status()
    return state.update(answer=reply.json()["choices"][0]["message"]["content"])


def prompt_app(question: str) -> Application:
    return (
        ApplicationBuilder()
        .with_actions(ask=ask)
        .with_state(question=question)
        .with_entrypoint("ask")
        .build()
    )


def alpha_prompt_app() -> Application:
    return prompt_app(ALPHA)


def omega_prompt_app() -> Application:
    return prompt_app(OMEGA)


_HERE = __name__
APPS = {
    name: f"{_HERE}.{name}_app"
    for name in (
        "llm_httpx",
        "llm_openai",
        "tool_requests",
        "tool_aiohttp",
        "tool_urllib",
        "command",
        "grpc",
        "mcp",
        "quoted_key",
        "send_http",
        "send_mcp",
    )
} | {
    "rsa_prompt_alpha": f"{_HERE}.alpha_prompt_app",
    "rsa_prompt_omega": f"{_HERE}.omega_prompt_app",
}
