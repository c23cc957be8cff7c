"""An MCP server over a `Toolset`, on the official SDK's low-level `Server`.

The low-level server is used (not `MCPServer`'s decorators) because the tools are data: their
names, descriptions and JSON schemas come from the apps' OpenAPI documents at run time, and
the low-level `on_list_tools`/`on_call_tool` handlers publish them as they are. A call runs in
a worker thread (the API session is synchronous) so one slow call never stalls the others.

    server = build_server(Toolset(session, ["chat"]))
    anyio.run(serve_stdio, server)          # or serve_http(server, "127.0.0.1", 8765)
"""

from __future__ import annotations

import socket
from collections.abc import Callable

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from officegym import __version__
from officegym.bearer import BearerAuth, require_token_off_loopback

from .toolset import Toolset, UnknownTool

HTTP_PATH = "/mcp"


def instructions(toolset: Toolset) -> str:
    """What the server tells a client about itself: who it acts as and where."""
    apps = ", ".join(toolset.apps)
    return (
        f"Tools for the officegym apps {apps}, acting as {toolset.session.user} (signed in; the "
        "apps' own permissions apply). Each tool is one operation of an app's JSON API; a "
        "refusal comes back as a tool error with the API's message."
    )


def build_server(toolset: Toolset, name: str | None = None) -> Server:
    """A low-level MCP server publishing `toolset`'s tools."""

    async def list_tools(
        ctx: object, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=toolset.tools())

    async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            return await anyio.to_thread.run_sync(toolset.call, params.name, params.arguments)
        except UnknownTool as error:
            raise MCPError(code=types.INVALID_PARAMS, message=str(error)) from None

    return Server(
        name or f"officegym-{'-'.join(toolset.apps)}",
        version=__version__,
        title="officegym " + ", ".join(toolset.apps),
        instructions=instructions(toolset),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(server: Server) -> None:
    """Serve `server` over this process's stdin and stdout until the client closes them."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_http(
    server: Server,
    host: str,
    port: int,
    ready: Callable[[str], None] | None = None,
    *,
    token: str | None = None,
) -> None:
    """Serve `server` over streamable HTTP at `http://host:port/mcp` (blocks; Ctrl+C stops).

    With a `token` every request must carry `Authorization: Bearer <token>` (401 otherwise);
    without one only a loopback `host` is allowed (`PublicWithoutToken`). The port is bound
    first (OSError if it is taken; port 0 picks a free one), then `ready` gets the URL, so a
    caller learns where the server is before it accepts."""
    import uvicorn

    require_token_off_loopback(host, token)

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        bound = sock.getsockname()[1]
        shown = f"[{host}]" if family == socket.AF_INET6 else host
        app = BearerAuth(
            server.streamable_http_app(streamable_http_path=HTTP_PATH, host=host), token
        )
        if ready is not None:
            ready(f"http://{shown}:{bound}{HTTP_PATH}")
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    finally:
        sock.close()


__all__ = ["HTTP_PATH", "build_server", "instructions", "serve_http", "serve_stdio"]
