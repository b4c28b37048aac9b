"""Read answers of a large playlist exceed the 1 MiB message the official MCP SSE client accepts.

SPEC §2/§5: the official SSE client refuses any single event over 1 MiB; the export is split
into parts for that reason, but memory.get_playlist (latest snapshot + up to 50 whole recent
events, default 50) and memory.reconstruct_playlist (all track_ids) have no such bound, and the
envelope travels twice (structuredContent and the text content). With ordinary 22-character
Spotify IDs, a 10,000-track playlist with a few large edits already produces a get_playlist
answer of several MiB: the agent can no longer read the playlist it logged over SSE.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support import connected, track

ONE_MIB = 1 << 20
USER = 71
PID = "q" * 30


def _message_bytes(raw: Any) -> int:
    message = {"jsonrpc": "2.0", "id": 1, "result": raw.model_dump(mode="json", by_alias=True, exclude_none=True)}
    return len(json.dumps(message).encode())


async def test_get_playlist_answer_fits_one_sse_message(settings: Any) -> None:
    tracks = [track(i) for i in range(10_000)]  # 22-character IDs, the Spotify length
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create", {"user_id": USER, "playlist_id": PID, "name": "big", "track_ids": tracks}
        )
        for kind in ("REMOVE_TRACKS", "ADD_TRACKS") * 2:  # "replace everything" twice
            await call.ok(
                "memory_log_playlist_mutation",
                {"user_id": USER, "playlist_id": PID, "type": kind, "payload": {"track_ids": tracks}},
            )
        raw = await call.client.call_tool("memory_get_playlist", {"user_id": USER, "playlist_id": PID})
        assert raw.structured_content["success"]
        size = _message_bytes(raw)
    assert size < ONE_MIB, f"get_playlist answer is {size / ONE_MIB:.1f} MiB"
