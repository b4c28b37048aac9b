"""A rich user for the import tool's tests (tests/tools/test_import_tool*.py), what the tests
compare of two users, and the export read back through the tool (every part)."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.support import Caller, playlist, track

MIX, ROAD, FORKED = playlist(1), playlist(2), playlist(3)
NOW = datetime(2026, 6, 1, tzinfo=UTC)  # the aging run's moment
T = "2026-01-{:02d}T10:00:00Z"


async def write_rich_user(call: Caller, user: int) -> None:
    """Profile with patch history, events of every type, playlists with every event kind (and a
    fork), catalog and confirmed choices, typed memories, plays and aging records."""
    for n, patch in enumerate(
        (
            {"genres": ["jazz"], "energy": {"max": 0.7}},
            {"rules": {"max_tracks_per_artist": 2}, "avoid": ["Nickelback"]},
            {"energy": None, "genres": ["jazz", "soul"]},
        ),
        1,
    ):
        await call.ok(
            "memory_update_profile", {"user_id": user, "patch": patch, "reason": f"patch {n}", "source": "user"}
        )
    for n, kind in enumerate(("like", "dislike", "rule", "feedback", "note"), 1):
        await call.ok(
            "memory_append_preference_event",
            {
                "user_id": user,
                "type": kind,
                "source": "user",
                "timestamp": T.format(n),
                "payload": {"raw_text": f"{kind}: Miles Davis, «quoted» ünïcode", "artist": "Miles Davis", "n": n},
            },
        )
    await call.ok(
        "memory_upsert_tracks",
        {
            "user_id": user,
            "tracks": [
                {
                    "track_id": track(n),
                    "name": f"Song {n}",
                    "artists": [f"Band {n % 3}"],
                    "album": "Blue",
                    "duration_ms": 200_000 + n,
                    "popularity": n,
                    "genres": ["jazz"],
                    "energy": n / 10,
                }
                for n in range(1, 9)
            ],
        },
    )
    await call.ok("memory_confirm_track", {"user_id": user, "text": "that blue song", "track_id": track(2)})
    await call.ok("memory_confirm_track", {"user_id": user, "text": "That Blue Song!", "track_id": track(3)})
    await _playlists(call, user)
    for n, (importance, days) in enumerate(((9, 400), (6, 45), (3, 90), (8, 2)), 1):
        await call.ok(
            "memory_add",
            {
                "user_id": user,
                "type": ["recommendation", "insight", "event", "feedback"][n - 1],
                "entities": [f"Band {n}", "Blue"],
                "summary": f"Memory {n}. With a second sentence about Band {n}.",
                "importance": importance,
                "metadata": {"check_after_days": 7, "n": n},
                "timestamp": (NOW - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "skip_dedup": True,
            },
        )
    await call.ok(
        "memory_log_plays",
        {
            "user_id": user,
            "plays": [
                {
                    "artist": f"Band {n % 3}",
                    "track": f"Song {n}",
                    "album": "Blue",
                    "track_id": track(n),
                    "played_at": f"2026-0{1 + n % 3}-1{n}T08:00:00Z",
                }
                for n in range(1, 8)
            ],
        },
    )
    report = await call.service.aging.run(NOW, user_id=user)
    assert report["counts"]["compressed"] and report["counts"]["removed"], report  # aging records exist


async def _mutate(call: Caller, user: int, pid: str, day: int, kind: str, payload: dict[str, Any]) -> Any:
    return await call.ok(
        "memory_log_playlist_mutation",
        {"user_id": user, "playlist_id": pid, "type": kind, "payload": payload, "timestamp": T.format(day)},
    )


async def _playlists(call: Caller, user: int) -> None:
    await call.ok(
        "memory_log_playlist_create",
        {
            "user_id": user,
            "playlist_id": MIX,
            "name": "Blue mix",
            "description": "late night",
            "intent_tags": ["calm"],
            "track_ids": [track(1), track(2), track(3)],
            "seed_context": {"mood": "calm", "artists": ["Band 1"]},
            "created_at": T.format(10),
            "idempotency_key": "mix-create-0001",
        },
    )
    await call.ok(
        "memory_log_playlist_create",
        {"user_id": user, "playlist_id": ROAD, "name": "Road", "track_ids": [track(4)], "created_at": T.format(10)},
    )
    await _mutate(call, user, MIX, 11, "ADD_TRACKS", {"track_ids": [track(4)], "insert_at": 1})
    await _mutate(call, user, MIX, 12, "ADD_TRACKS", {"track_ids": [track(5), track(6)], "positions": [0, 3]})
    await _mutate(call, user, MIX, 13, "REMOVE_TRACKS", {"track_ids": [track(2)]})
    current = (await call.ok("memory_reconstruct_playlist", {"user_id": user, "playlist_id": MIX}))["track_ids"]
    await _mutate(call, user, MIX, 14, "REORDER", {"track_ids": list(reversed(current))})
    await _mutate(call, user, MIX, 15, "UPDATE_META", {"name": "Bluer mix", "intent_tags": ["calm", "blue"]})
    await call.ok(
        "memory_log_playlist_mutation",
        {
            "user_id": user,
            "playlist_id": MIX,
            "type": "ADD_TRACKS",
            "payload": {"track_ids": [track(7)]},
            "timestamp": T.format(16),
            "client_event_id": "0f8fad5b-d9cb-469f-a165-70867728950e",
        },
    )
    await call.ok("memory_undo_last_mutation", {"user_id": user, "playlist_id": MIX, "timestamp": T.format(17)})
    await call.ok(
        "memory_resync_playlist",
        {
            "user_id": user,
            "playlist_id": MIX,
            "reason": "edited in the app",
            "track_ids": [track(8), track(1), track(3)],
            "timestamp": T.format(18),
        },
    )
    for day in range(19, 29):  # enough events for later snapshots
        await _mutate(call, user, ROAD, day, "ADD_TRACKS", {"track_ids": [track(day % 8 + 1)]})
    await call.ok(
        "memory_fork_playlist",
        {"user_id": user, "playlist_id": MIX, "new_playlist_id": FORKED, "name": "Blue fork", "at_time": T.format(15)},
    )


async def export_parts(call: Caller, user: int) -> list[dict[str, Any]]:
    parts, arguments = [], {"user_id": user}
    while True:
        data = (await call.ok("memory_export_user_data", arguments))["data"]
        parts.append(data)
        if data["continuation"]["next_cursor"] is None:
            return parts
        arguments = {"user_id": user, "cursor": data["continuation"]["next_cursor"]}


def same_user(value: Any, user: int) -> Any:
    """``value`` with every ``user_id`` of ``user`` written as "U": two users' data then compare."""
    if isinstance(value, dict):
        return {k: ("U" if k == "user_id" and v == user else same_user(v, user)) for k, v in value.items()}
    if isinstance(value, list):
        return [same_user(v, user) for v in value]
    return value


async def comparable_export(call: Caller, user: int) -> dict[str, Any]:
    """The user's whole export (one document, whatever the part size) without the moment it was
    taken (``as_of``) and the paging (``continuation``, ``chunks``), its user ids written as "U"."""
    data = copy.deepcopy(await call.service.transfer.export_all(user))
    for moment in ("as_of", "continuation", "chunks"):
        data.pop(moment, None)
    return same_user(data, user)


async def reads(call: Caller, user: int) -> dict[str, Any]:
    """What the assistant reads of the user: profile, playlists and their contents now and at
    earlier moments, search, recalled memories, resolved tracks, feedback (without ``as_of``)."""
    answers: dict[str, Any] = {
        "profile": await call.ok("memory_get_profile", {"user_id": user}),
        "playlists": await call.ok("memory_get_playlists", {"user_id": user, "limit": 50}),
    }
    for pid in (MIX, ROAD, FORKED):
        answers[pid] = await call.ok(
            "memory_get_playlist", {"user_id": user, "playlist_id": pid, "include_events_limit": 50}
        )
        for at in (None, T.format(12), T.format(16), T.format(30)):
            answers[f"{pid}@{at}"] = await call(
                "memory_reconstruct_playlist",
                {  # NOT_FOUND before a fork
                    "user_id": user,
                    "playlist_id": pid,
                    **({"at_time": at} if at else {}),
                },
            )
    for query in ("blue", "miles davis", "calm", "nickelback"):
        answers[f"search {query}"] = await call.ok(
            "memory_search", {"user_id": user, "query": query, "limit": 20, "detail": "full"}
        )
    answers["memories"] = await call.ok("memory_query", {"user_id": user, "text": "memory", "limit": 50})
    answers["resolve"] = await call.ok("memory_resolve_track", {"user_id": user, "text": "that blue song"})
    answers["feedback"] = await call.ok("memory_feedback_summary", {"user_id": user, "limit": 20})
    for answer in answers.values():  # the moment each was answered
        (answer.get("result") or answer).pop("as_of", None)
    return same_user(answers, user)
