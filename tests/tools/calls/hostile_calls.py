"""Calling tools with hostile argument sets and collecting what goes wrong (shared by the
hostile-input tests)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from mcp.client.client import Client
from mcp_types import CallToolRequest, CallToolRequestParams, CallToolResult, Tool

from tests.support import EnvelopeCaller, playlist, track
from tests.tools.calls.hostile_cases import PLAYLISTS, TRACKS, USERS, Case, answer_problems, prd_name_of


async def all_tools(client: Client) -> list[Tool]:
    """Every tool, page by page, once the session lists every toolset."""
    await client.call_tool("memory_enable_toolsets", {"toolsets": ["all"]})
    tools: list[Tool] = []
    cursor: str | None = None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools += page.tools
        if page.next_cursor is None:
            return tools
        cursor = page.next_cursor


async def seed(call: EnvelopeCaller) -> None:
    """Stored playlists for the pooled users, so generated mutations and reads find them."""
    for user in USERS:
        await call.ok("memory_update_profile", {"user_id": user, "patch": {"genres": ["polka"]}})
        for playlist_id in PLAYLISTS:
            await call.ok(
                "memory_log_playlist_create",
                {"user_id": user, "playlist_id": playlist_id, "name": "seeded", "track_ids": TRACKS[:4]},
            )


async def assert_still_serving(call: EnvelopeCaller, user: int) -> None:
    """Ordinary calls for a fresh user still give the right data."""
    profile = await call.ok("memory_get_profile", {"user_id": user})
    assert (profile["version"], profile["profile"]) == (0, {}), profile
    updated = await call.ok("memory_update_profile", {"user_id": user, "patch": {"mood": "calm"}})
    assert (updated["version"], updated["profile"]) == (1, {"mood": "calm"}), updated
    pid, tracks = playlist(900), [track(901), track(902), track(903)]
    await call.ok(
        "memory_log_playlist_create",
        {"user_id": user, "playlist_id": pid, "name": "After the storm", "track_ids": tracks},
    )
    await call.ok(
        "memory_log_playlist_mutation",
        {
            "user_id": user,
            "playlist_id": pid,
            "type": "ADD_TRACKS",
            "payload": {"track_ids": [track(904)], "insert_at": 1},
        },
    )
    rebuilt = await call.ok("memory_reconstruct_playlist", {"user_id": user, "playlist_id": pid})
    assert rebuilt["track_ids"] == [tracks[0], track(904), *tracks[1:]], rebuilt
    found = await call.ok("memory_search", {"user_id": user, "query": "storm"})
    assert any((hit["kind"], hit["id"]) == ("playlist", pid) for hit in found["results"]), found


def texts(result: CallToolResult) -> list[str]:
    return [getattr(item, "text", f"<{item.type} content>") for item in result.content]


def failure(tool: str, case: Case, why: Iterable[str] | str) -> str:
    reasons = [why] if isinstance(why, str) else list(why)
    return f"{tool} [{case.source}: {case.label}] {case.short()}: {'; '.join(reasons)}"


def report(failures: list[str], sent: Counter[str]) -> str:
    shown = "\n".join(failures[:60])
    more = f"\n… and {len(failures) - 60} more" if len(failures) > 60 else ""
    return f"{len(failures)} bad answers out of {sum(sent.values())} sets:\n{shown}{more}"


def sdk_refuses(tool: str, arguments: dict[str, Any]) -> bool:
    """Whether the SDK client refuses to serialize these arguments before sending anything (a
    lone surrogate in an object key, nesting past pydantic's serializer limit)."""
    request = CallToolRequest(params=CallToolRequestParams(name=tool, arguments=arguments))
    try:
        request.model_dump(by_alias=True, mode="json", exclude_none=True)
    except (ValueError, UnicodeError):
        return True
    return False


async def send_all(client: Client, tool: Tool, cases: list[Case], failures: list[str], sent: Counter[str]) -> None:
    prd = prd_name_of(tool.name, tool.title)
    for case in cases:
        try:
            result = await client.call_tool(tool.name, case.arguments)
        except Exception as exc:
            failures.append(failure(tool.name, case, f"raised {exc!r}"[:500]))
            continue
        sent[tool.name] += 1
        if problems := answer_problems(prd, result.structured_content, texts(result), result.is_error):
            failures.append(failure(tool.name, case, problems))
