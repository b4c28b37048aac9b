"""Ledger moves: undo (and redo), resync, fork, diff and timeline of a logged playlist."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from service.timeutil import parse_iso
from tools.specs.base import ToolSpec
from tools.specs.prd import time_argument


async def undo_last_mutation(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.moves.undo(a, time_argument(a, "timestamp"))


async def resync_playlist(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.moves.resync(a, time_argument(a, "timestamp"))


async def fork_playlist(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.moves.fork(a, time_argument(a, "at_time"))


async def diff_playlist(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.moves.diff(
        a["user_id"], a["playlist_id"], parse_iso(a["from_time"]), time_argument(a, "to_time"), a.get("cursor")
    )


async def get_playlist_timeline(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.moves.timeline(a["user_id"], a["playlist_id"], a.get("max_points", 500), a.get("cursor"))


MOVE_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.undo_last_mutation",
        "Undo the last playlist change (memory.undo_last_mutation)",
        "Call when the user says 'undo that' or 'put it back': reverses the latest change of a logged playlist not "
        "already undone; each call walks back one more. To redo, pass the UNDO event as event_id. Make the same "
        "change on the music service. Returns the UNDO event; with nothing left to undo, CONFLICT.",
        undo_last_mutation,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.resync_playlist",
        "Resync a playlist edited elsewhere (memory.resync_playlist)",
        "Call when the user changed a logged playlist outside the assistant and you can see its real contents: pass "
        "the exact ordered track_ids it holds now. Memory matches them from now on (earlier moments keep the old "
        "contents); it can be undone. Returns the RESYNC event with added and removed counts.",
        resync_playlist,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.fork_playlist",
        "Fork a playlist (memory.fork_playlist)",
        "Call for 'make a v2 of that playlist', after creating the new playlist (new_playlist_id) on the music "
        "service: it starts with the source's tracks and metadata (now or at at_time) and keeps its lineage; the "
        "source is unchanged. Log later edits of the fork with memory_log_playlist_mutation.",
        fork_playlist,
        read_only=False,
        destructive=False,
        idempotent=True,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.diff_playlist",
        "Diff a playlist between two moments (memory.diff_playlist)",
        "Call for 'what did we change since last week?': what changed in a logged playlist between from_time and "
        "to_time, i.e. tracks added, removed and moved, metadata changes and the events in between. counts are "
        "exact; long lists are cut (truncated).",
        diff_playlist,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.get_playlist_timeline",
        "Track count of a playlist over time (memory.get_playlist_timeline)",
        "Call for 'when did that playlist get so long?' or to pick a moment: a logged playlist's track count over "
        "its whole life, in time bins, oldest first. Then memory_reconstruct_playlist at that time, or "
        "memory_diff_playlist between two moments.",
        get_playlist_timeline,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
]
