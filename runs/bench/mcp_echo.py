"""The MCP server ``rewind_bench`` calls over stdio (``transports``): one ``echo`` tool. Run as
a script; it imports nothing of Rewind's."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("echo")


@server.tool()
def echo(text: str) -> str:
    """Answer the text sent."""
    return text


if __name__ == "__main__":
    server.run("stdio")
