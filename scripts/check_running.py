"""One MCP call against a running server over SSE: ``python scripts/check_running.py URL``.

Used by .ci/run and handy after ``memory-service serve``: lists the tools and calls
``memory_get_profile`` for user 1.
"""

from __future__ import annotations

import asyncio
import sys

from mcp.client.client import Client
from mcp.client.sse import sse_client

from tools.specs.catalog import TOOL_SPECS


async def main(url: str) -> int:
    async with Client(sse_client(url)) as client:
        tools = (await client.list_tools()).tools
        result = await client.call_tool("memory_get_profile", {"user_id": 1})
    envelope = result.structured_content or {}
    print(f"{len(tools)} tools; memory_get_profile -> success={envelope.get('success')}")
    return 0 if envelope.get("success") and len(tools) == len(TOOL_SPECS) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8765/sse")))
