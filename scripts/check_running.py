"""One MCP call against a running server over SSE: ``python scripts/check_running.py [URL] [--token T]``.

Lists the tools and calls ``memory_get_profile`` (user 1 unless ``--user-id``), sending the token
(``--token`` or ``MEMORY_TOKEN``) as a bearer token. Prints what it found and exits 0, or prints
why the check failed (the envelope's error code and message, an HTTP status, a 401 with what to
send, a connection error) and exits 1. ``.ci/run`` uses it without a token on an open loopback server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

from mcp.client.client import Client
from mcp.client.sse import sse_client

from tools.specs.catalog import TOOL_SPECS

DEFAULT_URL = "http://127.0.0.1:8765/sse"


class CheckFailed(Exception):
    """The reason the check failed, as printed."""


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside the SDK's task groups' ExceptionGroups."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def describe(error: BaseException) -> str:
    """Why talking to the server failed, in one line: the HTTP status, or the connection error."""
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    if status is not None:  # a streamed answer (GET /sse) has no body to read here, only its status
        reason = getattr(response, "reason_phrase", "")
        said = f"HTTP {status} {reason} from {getattr(response.request, 'url', '?')}".replace("  ", " ")
        if status == 401:
            # A server with tokens and OAuth on (the default) answers a call without a token so.
            said += ": the server requires a token: pass --token or set MEMORY_TOKEN"
        return said
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


async def check(url: str, token: str | None, user_id: int) -> str:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with Client(sse_client(url, headers=headers), read_timeout_seconds=30) as client:
        listed = (await client.list_tools()).tools
        result = await client.call_tool("memory_get_profile", {"user_id": user_id})
        # A session lists a few toolsets at start; every tool the checkout declares is one call away.
        await client.call_tool("memory_enable_toolsets", {"toolsets": ["all"]})
        tools = (await client.list_tools()).tools
    envelope: dict[str, Any] = result.structured_content or {}
    if not envelope.get("success"):
        error = envelope.get("error") or {}
        if not error:
            raise CheckFailed(f"memory_get_profile answered no envelope: {result.content}")
        details = error.get("details") or {}
        raise CheckFailed(
            f"memory_get_profile -> {error.get('code')}: {error.get('message')}"
            + (f" {json.dumps(details)}" if details else "")
        )
    if len(tools) != len(TOOL_SPECS):
        raise CheckFailed(
            f"the server lists {len(tools)} tools with every toolset enabled, this checkout declares "
            f"{len(TOOL_SPECS)} (another version of the service?)"
        )
    return f"{len(listed)} tools listed, {len(tools)} with every toolset; memory_get_profile(user_id={user_id}) -> success=True, version {envelope['result']['version']}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="One MCP call against a running Taste Memory server over SSE.")
    parser.add_argument("url", nargs="?", default=DEFAULT_URL, help=f"the SSE endpoint (default {DEFAULT_URL})")
    parser.add_argument(
        "--token",
        default=os.environ.get("MEMORY_TOKEN"),
        help="bearer token (default: the MEMORY_TOKEN environment variable; none for an open loopback server)",
    )
    parser.add_argument("--user-id", type=int, default=1, help="the user whose profile to read (default 1)")
    args = parser.parse_args(argv)
    try:
        print(asyncio.run(check(args.url, args.token, args.user_id)))
    except CheckFailed as failed:
        print(f"check failed: {failed}", file=sys.stderr)
        return 1
    except Exception as error:  # the transport's failures arrive inside ExceptionGroups
        reasons = "; ".join(dict.fromkeys(describe(leaf) for leaf in leaves(error)))
        print(f"check failed: {args.url}: {reasons}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
