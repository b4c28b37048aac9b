"""The transport floor of the benchmark: one trivial MCP tool on the same SDK as the service.

``python scripts/bench_floor_server.py sse PORT`` serves it over SSE on 127.0.0.1:PORT (uvicorn, as
``memory-service serve`` does); ``python scripts/bench_floor_server.py stdio`` serves it over stdio.
The benchmark (``scripts/benchmarks/sections/floor.py`` and ``tools.py``) imports ``floor_server()``
for the in-process figures.
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

HOST = "127.0.0.1"


def floor_server() -> MCPServer:
    mcp = MCPServer("bench-floor")

    @mcp.tool()
    def ping() -> str:
        """Answer pong."""
        return "pong"

    return mcp


def main(argv: list[str]) -> None:
    transport = argv[1] if len(argv) > 1 else "sse"
    mcp = floor_server()
    if transport == "stdio":
        mcp.run("stdio")
        return
    if transport != "sse" or len(argv) < 3:
        raise SystemExit("usage: bench_floor_server.py sse PORT | stdio")
    import uvicorn

    uvicorn.run(mcp.sse_app(host=HOST), host=HOST, port=int(argv[2]), log_level="warning")


if __name__ == "__main__":
    main(sys.argv)
