"""A Burr app that imports its MCP SDK inside the action, not at module level, as agent code
often does (an optional dependency, a tool loaded on demand): the first step that runs is where
``mcp`` is first imported. The action starts the test's server (``mcp_server.py``) over stdio,
lists its tools and takes two notes — the side effect a replay must not repeat
(``MCP_NOTES_FILE``; the server appends its pid to ``MCP_STARTED_FILE`` when started).

Nothing of ``mcp`` is imported here at module level, nor by a module this one imports: run in
a fresh process (``test_sdk_imported_in_action.py``), the action's import really is the first.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from burr.core import ApplicationBuilder, State
from burr.core.action import action

SERVER = str(Path(__file__).with_name("mcp_server.py"))
NOTES = ("first note", "second note")


@action(reads=[], writes=["tools", "answers"])
async def take_notes(state: State) -> State:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {name: os.environ[name] for name in ("MCP_NOTES_FILE", "MCP_STARTED_FILE")}
    server = StdioServerParameters(command=sys.executable, args=[SERVER], env=env)
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            answers = []
            for text in NOTES:
                result = await session.call_tool("note", {"text": text})
                answers.append(result.content[0].text)
    return state.update(tools=sorted(tool.name for tool in tools.tools), answers=answers)


def notes_application():
    return ApplicationBuilder().with_actions(take_notes).with_entrypoint("take_notes").build()
