"""An MCP server written with the SDK's own server API (``MCPServer``, mcp 2.x's FastMCP), for
``test_capture_mcp.py``. Its tools:

- ``note(text)``: a side effect — appends ``text`` as a line to the file ``MCP_NOTES_FILE``
  names — answered ``noted: <text>``;
- ``refuse(reason)``: answers a JSON-RPC error (invalid params) carrying the reason as data;
- ``ask_client(question)``: asks the client's model (sampling: a request from the server to
  the client, which its ``sampling_callback`` answers) and answers with what it said.

Run as a script (``python mcp_server.py``, what ``stdio_client`` starts) it first appends its
pid to the file ``MCP_STARTED_FILE`` names, so a test sees whether it was ever started, then
serves over stdio until its stdin closes. ``build_server()`` gives a fresh one for a test to
serve over Streamable HTTP. It imports nothing of Rewind's, nor Django.
"""

from __future__ import annotations

import os
import warnings

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import INVALID_PARAMS, SamplingMessage, TextContent


def build_server() -> MCPServer:
    server = MCPServer("notes")

    @server.tool()
    def note(text: str) -> str:
        """Append a line to the notes file."""
        with open(os.environ["MCP_NOTES_FILE"], "a", encoding="utf-8") as notes:
            notes.write(text + "\n")
        return f"noted: {text}"

    @server.tool()
    def refuse(reason: str) -> str:
        """Always answers a JSON-RPC error."""
        raise MCPError(code=INVALID_PARAMS, message=f"refused: {reason}", data={"reason": reason})

    @server.tool()
    async def ask_client(question: str, ctx: Context) -> str:
        """Ask the client's model."""
        with warnings.catch_warnings():  # sampling is deprecated from protocol 2026-07-28 on
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            said = await ctx.session.create_message(
                [SamplingMessage(role="user", content=TextContent(type="text", text=question))],
                max_tokens=64,
                related_request_id=ctx.request_id,
            )
        return f"the client's model said: {said.content.text}"

    return server


if __name__ == "__main__":
    with open(os.environ["MCP_STARTED_FILE"], "a", encoding="utf-8") as started:
        started.write(f"{os.getpid()}\n")
    build_server().run("stdio")
