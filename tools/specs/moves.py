"""Ledger moves: undo (and redo), resync, fork, diff and timeline of a logged playlist."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from service.timeutil import parse_iso
from tools.specs.base import ENVELOPE, ToolSpec
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
        "When the user says 'undo that' / 'put it back': reverses the latest change of a logged playlist that is "
        "not already undone (tracks and metadata as they were before it), by appending an UNDO event; nothing is "
        "deleted from history. Calling it again walks back one more change. To redo, pass event_id = the UNDO "
        "event to re-apply (only the latest undo still standing; after a new change there is nothing to redo). "
        "Make the same change on the music service, then report it. Returns the UNDO event (undid names the "
        "reversed change; added_count/removed_count/meta_fields say what moved). Nothing left to undo (a "
        "playlist's creation or fork cannot be undone) is CONFLICT with details.reason='nothing_to_undo'." + ENVELOPE,
        undo_last_mutation,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.resync_playlist",
        "Resync a playlist edited elsewhere (memory.resync_playlist)",
        "When the user changed a logged playlist outside the assistant (in the music app) and you can see its "
        "real contents: pass the exact ordered track_ids it holds now. Records a RESYNC event with the exact "
        "difference and a snapshot, so memory_reconstruct_playlist returns these tracks from now on and the old "
        "contents for earlier moments; it can be undone like any change. Returns the event with "
        "added_count/removed_count (0/0: memory already matched)." + ENVELOPE,
        resync_playlist,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.fork_playlist",
        "Fork a playlist (memory.fork_playlist)",
        "For 'make a v2 of that playlist': after creating the new playlist on the music service with the same "
        "tracks, log it here with new_playlist_id. It starts with the source's tracks and metadata now (or as "
        "of at_time), optionally renamed, and keeps its lineage (forked_from {playlist_id, at}, shown by "
        "memory_get_playlist); the source is unchanged. Log later edits of the fork with "
        "memory_log_playlist_mutation. A retry of the same request returns the same answer; a new_playlist_id "
        "already logged otherwise is CONFLICT." + ENVELOPE,
        fork_playlist,
        read_only=False,
        destructive=False,
        idempotent=True,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.diff_playlist",
        "Diff a playlist between two moments (memory.diff_playlist)",
        "What changed in a logged playlist between from_time and to_time (default now): tracks added (index in "
        "the later list), removed (index in the earlier list) and moved, metadata changes (name, description, "
        "intent_tags) and the events in between, oldest first. Use it for 'what did we change since last week'. "
        "Exact counts are in counts; long lists are cut to keep the answer small (truncated=true). A from_time "
        "before the playlist existed compares against an empty playlist (existed_at_from_time=false)." + ENVELOPE,
        diff_playlist,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.get_playlist_timeline",
        "Track count of a playlist over time (memory.get_playlist_timeline)",
        "How a logged playlist grew and shrank over its whole life: the track count after every event, "
        "replayed from the ledger, in at most max_points (default 500) time bins, oldest first. Each point has "
        "its time range (from, to), seq range, the track count's min, max and end value, and how many events "
        "of each type it holds (the creation is seq 0, type CREATE or FORK). Use it for 'when did that playlist "
        "get so long' or to pick a moment, then memory_reconstruct_playlist(at_time) for the tracks then and "
        "memory_diff_playlist between two moments." + ENVELOPE,
        get_playlist_timeline,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
]
