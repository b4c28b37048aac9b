"""The typed-memory, play and follow-up tools end to end: seed 001's stories played by the official MCP
SSE client (which validates every answer against the tool's published outputSchema) against a real
``serve`` process with tokens; then every write is in the audit trail under its tool and token,
every call has its log line.

The stories: remember a recommendation and a strong dislike, say the same thing again (one memory,
seen twice), recall by a loosely typed artist, log what the user played, follow up on what is due
("still haven't touched that Zombies album?" / "you played it 5 times!"), and find memories by search.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.settings import Settings
from tests.support import every_tool
from tests.support.audit_checks import assert_logged_and_audited, settled_entries, tool_call_lines
from tests.support.mcp_sessions import sse_session
from tests.support.server_process import assert_rederive_clean, running_server
from tests.support.tokens import create_token, token_env

pytestmark = pytest.mark.slow

USER = 12
NOW = datetime.now(UTC)
WRITES = {"memory.add", "memory.log_plays", "memory.validate_recommendation"}
NEW_TOOLS = {
    "memory_add",
    "memory_query",
    "memory_log_plays",
    "memory_validate_recommendation",
    "memory_open_followups",
}


def ago(days: float) -> str:
    return (NOW - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def plays(artist: str, track: str, album: str, *days: float) -> list[dict[str, Any]]:
    return [{"artist": artist, "track": track, "album": album, "played_at": ago(d)} for d in days]


async def test_the_memory_stories_over_sse_are_validated_audited_and_logged(settings: Settings, tmp_path: Path) -> None:
    token_file = tmp_path / "tokens.json"
    token, token_id = create_token(token_file, USER)
    operator, _ = create_token(token_file, role="operator")
    made: list[str] = []
    wrote_nothing: set[int] = set()  # calls (by position) that change nothing: a batch of duplicate plays
    with running_server(settings, tmp_path, extra_env=token_env(token_file)) as server:
        async with sse_session(server, token) as wire:

            async def ok(tool: str, arguments: dict[str, Any]) -> Any:
                made.append(tool)
                return await wire.ok(tool, arguments)

            listed = {t.name: t for t in await every_tool(wire.client) if t.name in NEW_TOOLS}
            assert set(listed) == NEW_TOOLS
            for tool in listed.values():
                hints = tool.annotations
                assert tool.title and tool.description and tool.output_schema and hints is not None
                assert None not in (
                    hints.read_only_hint,
                    hints.destructive_hint,
                    hints.idempotent_hint,
                    hints.open_world_hint,
                ), tool.name

            zombies = await ok(
                "memory_add",
                {
                    "user_id": USER,
                    "type": "recommendation",
                    "entities": ["The Zombies", "Odessey and Oracle"],
                    "summary": "Recommended the baroque pop album after they loved complex arrangements",
                    "importance": 8,
                    "metadata": {"check_after_days": 7, "reason": "baroque pop"},
                    "timestamp": ago(14),
                },
            )
            national = await ok(
                "memory_add",
                {
                    "user_id": USER,
                    "type": "recommendation",
                    "entities": ["The National", "Boxer"],
                    "summary": "Recommended Boxer for its slow-burning songs",
                    "importance": 8,
                    "timestamp": ago(10),
                },
            )
            await ok(
                "memory_add",
                {
                    "user_id": USER,
                    "type": "feedback",
                    "entities": ["Tame Impala", "Currents"],
                    "summary": "Too psychedelic: prefers melodic over experimental",
                    "importance": 9,
                    "timestamp": ago(12),
                },
            )
            again = await ok(
                "memory_add",
                {
                    "user_id": USER,
                    "type": "recommendation",
                    "entities": ["zombies", "odessey and oracle"],
                    "summary": "Recommended the baroque pop album again",
                    "importance": 8,
                    "timestamp": ago(13),
                },
            )
            assert again["deduplicated"] and again["memory_id"] == zombies["memory_id"]
            assert again["memory"]["seen_count"] == 2

            recalled = await ok("memory_query", {"user_id": USER, "entity": "zombeis"})
            assert [m["memory_id"] for m in recalled["memories"]] == [zombies["memory_id"]]
            assert recalled["memories"][0]["days_ago"] == 14

            # What the user played, from their scrobbles: The National on repeat, the Zombies never.
            logged = await ok(
                "memory_log_plays",
                {
                    "user_id": USER,
                    "plays": (
                        plays("The National", "Fake Empire", "Boxer", 20, 8, 6, 5, 4, 3, 2)
                        + plays("Tame Impala", "Let It Happen", "Currents", 30)
                    ),
                },
            )
            assert logged["logged"] == 8 and logged["duplicates"] == 0
            wrote_nothing.add(len(made))
            assert (
                await ok(
                    "memory_log_plays", {"user_id": USER, "plays": plays("The National", "Fake Empire", "Boxer", 2)}
                )
            )["duplicates"] == 1

            due = await ok("memory_open_followups", {"user_id": USER})
            assert [f["memory_id"] for f in due["followups"]] == [zombies["memory_id"], national["memory_id"]]
            untouched = await ok("memory_validate_recommendation", {"user_id": USER, "memory_id": zombies["memory_id"]})
            assert untouched["validation"]["plays_since_rec"] == 0
            on_repeat = await ok(
                "memory_validate_recommendation", {"user_id": USER, "memory_id": national["memory_id"]}
            )
            assert on_repeat["validation"]["plays_since_rec"] == 6
            assert on_repeat["validation"]["user_heard_before"] is True
            assert (await ok("memory_open_followups", {"user_id": USER}))["followups"] == []

            hits = (await ok("memory_search", {"user_id": USER, "query": "psychedelic"}))["results"]
            assert hits and hits[0]["kind"] == "memory"

        log_lines = tool_call_lines(server)
        async with sse_session(server, operator) as audit_reader:
            trail = await settled_entries(audit_reader, settings, lambda e: len(e) >= 6, user_id=USER)

    assert_logged_and_audited(made, log_lines, trail, WRITES, token_id, USER, settings, wrote_nothing)
    assert {e["collection"] for e in trail} >= {"memories", "plays"}

    assert_rederive_clean(settings, tmp_path)  # every derived view is what the records say
