"""Answers to hostile argument sets must reach an agent that uses the official SSE client.

That client (httpx2's EventSource, as in ``mcp.client.sse``) refuses an event over 1 MiB and
ends the session: such an answer never arrives, and nothing after it either. The hand-made sets
that the input schemas allow (a 1 MB string, 10,000 keys) are stored; every answer to them, and
every later read of what they stored, must still fit in one event.
"""

from __future__ import annotations

from mcp.client.streamable_http import DEFAULT_MAX_SSE_EVENT_SIZE
from mcp_types import CallToolResult

from service.settings import Settings
from tests.support import connected
from tests.tools.calls.hostile_calls import all_tools, failure, sdk_refuses, seed
from tests.tools.calls.hostile_cases import PLAYLISTS, USERS, Case, handmade

# 1 MiB: the SSE client's EventSource default, the number the SDK names for its HTTP client.
OFFICIAL_CLIENT_EVENT_LIMIT = DEFAULT_MAX_SSE_EVENT_SIZE


def message_bytes(result: CallToolResult) -> int:
    """Size of the SSE event that carries this answer (the JSON-RPC frame adds ~40 bytes)."""
    return len(result.model_dump_json(by_alias=True, exclude_none=True).encode()) + 40


async def test_answers_to_hostile_arguments_fit_one_sse_event(settings: Settings) -> None:
    oversized: list[str] = []
    async with connected(settings) as call:

        async def check(tool: str, case: Case) -> None:
            size = message_bytes(await call.client.call_tool(tool, case.arguments))
            if size > OFFICIAL_CLIENT_EVENT_LIMIT:
                oversized.append(failure(tool, case, f"answer of {size:,} bytes"))

        tools = await all_tools(call.client)
        await seed(call)
        for tool in tools:
            for case in handmade(tool.input_schema):
                if not sdk_refuses(tool.name, case.arguments):
                    await check(tool.name, case)
        for user in USERS:
            reads = [
                ("memory_get_profile", {"user_id": user}),
                ("memory_get_playlists", {"user_id": user}),
                ("memory_search", {"user_id": user, "query": "hostile"}),
            ]
            reads += [
                (tool, {"user_id": user, "playlist_id": pid})
                for pid in PLAYLISTS
                for tool in ("memory_get_playlist", "memory_reconstruct_playlist")
            ]
            for tool, arguments in reads:
                await check(tool, Case("read", "after the barrage", arguments))
    assert not oversized, (
        f"{len(oversized)} answers exceed the official SSE client's {OFFICIAL_CLIENT_EVENT_LIMIT:,}"
        "-byte event limit:\n" + "\n".join(oversized)
    )
