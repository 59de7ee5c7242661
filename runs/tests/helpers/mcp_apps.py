"""Burr apps that use MCP tools as a user writes them, for ``test_capture_mcp.py``: an async
``@action`` opens a transport — the test's server (``mcp_server.py``) started over stdio, or
reached over Streamable HTTP at ``MCP_SERVER_URL`` — and a ``ClientSession`` over it, makes
the handshake, lists the tools and calls them. The ``note`` tool appends a line to the file
``MCP_NOTES_FILE`` names (the side effect a replay must not repeat); the server started over
stdio appends its pid to ``MCP_STARTED_FILE`` (so a test sees whether a replay started it).

- ``stdio_notes`` / ``http_notes``: two notes, over stdio / Streamable HTTP;
- ``stdio_clock``: a plain step (``begin``), then a note that embeds ``time.time()`` read in
  ``live_values()`` (not replayed) — every run asks something new;
- ``stdio_refused``: a tool call the server answers with a JSON-RPC error (caught: the step
  writes the ``MCPError`` it got), then a note;
- ``stdio_client_api``: a note through mcp 2's ``Client`` (which negotiates with
  ``server/discover`` rather than ``initialize``);
- ``http_sampling``: a tool that asks the client's model back (sampling), over Streamable HTTP:
  the session's ``sampling_callback`` asks the LLM at ``OPENAI_BASE_URL`` with httpx.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CreateMessageResult, TextContent

from runs.recording import live_values

SERVER = str(Path(__file__).with_name("mcp_server.py"))
NOTES = ("first note", "second note")


def server_parameters() -> StdioServerParameters:
    env = {name: os.environ[name] for name in ("MCP_NOTES_FILE", "MCP_STARTED_FILE")}
    return StdioServerParameters(command=sys.executable, args=[SERVER], env=env)


@action(reads=[], writes=["tools", "answers"])
async def take_notes_over_stdio(state: State) -> State:
    async with stdio_client(server_parameters()) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            answers = []
            for text in NOTES:
                result = await session.call_tool("note", {"text": text})
                answers.append(result.content[0].text)
    return state.update(tools=sorted(tool.name for tool in tools.tools), answers=answers)


@action(reads=[], writes=["tools", "answers"])
async def take_notes_over_http(state: State) -> State:
    async with streamable_http_client(os.environ["MCP_SERVER_URL"]) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            answers = []
            for text in NOTES:
                result = await session.call_tool("note", {"text": text})
                answers.append(result.content[0].text)
    return state.update(tools=sorted(tool.name for tool in tools.tools), answers=answers)


@action(reads=["n"], writes=["topic"])
def begin(state: State) -> State:
    return state.update(topic=f"topic {state['n']}")


@action(reads=[], writes=["answers"])
async def note_the_time(state: State) -> State:
    async with stdio_client(server_parameters()) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            with live_values():  # the clock kept live: every replay asks something new
                now = time.time()
            result = await session.call_tool("note", {"text": f"at {now}"})
    return state.update(answers=[result.content[0].text])


@action(reads=[], writes=["error", "answers"])
async def ask_to_be_refused(state: State) -> State:
    async with stdio_client(server_parameters()) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            try:
                await session.call_tool("refuse", {"reason": "not today"})
                error = None
            except MCPError as exc:
                error = {"type": type(exc).__name__, "code": exc.code, "message": exc.message}
                error["data"] = exc.data
            result = await session.call_tool("note", {"text": "after the refusal"})
    return state.update(error=error, answers=[result.content[0].text])


async def ask_my_model(context: Any, params: Any) -> CreateMessageResult:
    """The client's model, for the server's sampling requests: a chat completion."""
    messages = [{"role": m.role, "content": m.content.text} for m in params.messages]
    body = {"model": "rewind-sim-1", "temperature": 0, "messages": messages}
    async with httpx.AsyncClient(timeout=5) as client:
        reply = await client.post(f"{os.environ['OPENAI_BASE_URL']}/chat/completions", json=body)
    said = reply.json()["choices"][0]["message"]["content"]
    return CreateMessageResult(
        role="assistant", content=TextContent(type="text", text=said), model="rewind-sim-1"
    )


@action(reads=[], writes=["answers"])
async def ask_through_the_server(state: State) -> State:
    async with streamable_http_client(os.environ["MCP_SERVER_URL"]) as (read, write):
        async with ClientSession(read, write, sampling_callback=ask_my_model) as session:
            await session.initialize()
            result = await session.call_tool("ask_client", {"question": "Which region?"})
    return state.update(answers=[result.content[0].text])


def _one_step(step) -> Application:
    return ApplicationBuilder().with_actions(step=step).with_entrypoint("step").build()


def stdio_notes() -> Application:
    return _one_step(take_notes_over_stdio)


def http_notes() -> Application:
    return _one_step(take_notes_over_http)


def stdio_refused() -> Application:
    return _one_step(ask_to_be_refused)


def http_sampling() -> Application:
    return _one_step(ask_through_the_server)


def stdio_clock() -> Application:
    return (
        ApplicationBuilder()
        .with_actions(begin=begin, note=note_the_time)
        .with_transitions(("begin", "note"))
        .with_state(n=1)
        .with_entrypoint("begin")
        .build()
    )


@action(reads=[], writes=["answers"])
async def take_a_note_with_client(state: State) -> State:
    async with Client(server_parameters()) as client:
        result = await client.call_tool("note", {"text": "with Client"})
    return state.update(answers=[result.content[0].text])


def stdio_client_api() -> Application:
    return _one_step(take_a_note_with_client)
