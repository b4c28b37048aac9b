"""The scenario of the user-scoped-queries test: every one-user tool along its main paths (create,
mutations with snapshot and bucket rollover by count and by size, keyed retries and refusals,
cursor paging, reads with older events, reconstruction at a time, search, export in continuation
parts, a head document a crash left behind, delete, re-import), with the typed memories, the
controls and forget of its sibling modules, while a ``Recorder`` notes every storage call.
"""

from __future__ import annotations

import json
import tempfile
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from service.ledger.keys import head_id
from tests.history.history_fixtures import extended
from tests.storage.user_scoped_conflicts import conflicts_scenario
from tests.storage.user_scoped_forget import forget_scenario
from tests.storage.user_scoped_memories import controls_scenario, memories_scenario
from tests.support import playlist, track
from tests.support.query_recorder import Recorder, RecordingCaller

USER, OTHER = 901, 902

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
P = [playlist(300 + n) for n in range(7)]  # P[0] the worked one, P[5] the big one, P[6] other user's


def at(minutes: int) -> str:
    return (T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def tracks(start: int, count: int) -> list[str]:
    return [track(start + i) for i in range(count)]


async def profile_and_events(call: RecordingCaller) -> None:
    assert (await call.ok("memory_get_profile", {"user_id": USER}))["version"] == 0
    await call.error(
        "memory_update_profile",
        {"user_id": USER, "patch": {"genres": ["jazz"]}, "create_if_missing": False},
        "NOT_FOUND",
    )
    patch = {"genres": ["nordic jazz", "ambient"], "rules": {"avoid": ["christmas"]}}
    await call.ok("memory_update_profile", {"user_id": USER, "patch": patch, "reason": "onboarding"})
    await call.ok("memory_update_profile", {"user_id": USER, "patch": {"energy": "low"}, "source": "user"})
    assert (await call.ok("memory_update_profile", {"user_id": USER, "patch": patch}))["version"] == 2  # no-op
    for n, text in enumerate(["loves Esbjörn Svensson trio", "no vocals while working", "more fjord ambient"]):
        await call.ok(
            "memory_append_preference_event",
            {
                "user_id": USER,
                "type": "like" if n != 1 else "rule",
                "payload": {"raw_text": text},
                "source": "user",
                "timestamp": at(n),
            },
        )
    assert (await call.ok("memory_get_profile", {"user_id": USER}))["version"] == 2


async def playlists_scenario(call: RecordingCaller) -> None:
    create = {
        "user_id": USER,
        "playlist_id": P[0],
        "name": "Deep focus",
        "track_ids": tracks(0, 30),
        "intent_tags": ["focus", "instrumental"],
        "seed_context": {"genres": ["jazz"]},
        "created_at": at(10),
        "idempotency_key": "create-deep-focus",
    }
    first = await call.ok("memory_log_playlist_create", create)
    assert await call.ok("memory_log_playlist_create", create) == first  # keyed retry
    await call.error("memory_log_playlist_create", {**create, "name": "Other"}, "CONFLICT")  # key reused
    unkeyed = {k: v for k, v in create.items() if k != "idempotency_key"}
    await call.error("memory_log_playlist_create", unkeyed, "CONFLICT")  # already logged
    await call.error(
        "memory_log_playlist_create", {**create, "idempotency_key": "create-deep-focus-2"}, "CONFLICT"
    )  # a fresh key claimed, then released: the playlist exists
    for n in range(1, 5):
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": USER,
                "playlist_id": P[n],
                "name": f"Mix {n}",
                "track_ids": tracks(100 * n, 3),
                "created_at": at(11 + n),
            },
        )
    # Large: past MEMORY_BUCKET_MAX_TRACK_IDS, so every change opens a bucket (rollover by size).
    await call.ok(
        "memory_log_playlist_create",
        {
            "user_id": USER,
            "playlist_id": P[5],
            "name": "Long drive",
            "track_ids": tracks(1000, 150),
            "created_at": at(20),
        },
    )
    await call.ok(
        "memory_log_playlist_create",
        {"user_id": OTHER, "playlist_id": P[6], "name": "Other's", "track_ids": tracks(9000, 2), "created_at": at(20)},
    )

    def mutation(kind: str, payload: dict[str, Any], minute: int, **extra: Any) -> dict[str, Any]:
        return {
            "user_id": USER,
            "playlist_id": P[0],
            "type": kind,
            "payload": payload,
            "timestamp": at(minute),
            **extra,
        }

    key = str(uuid.uuid4())
    keyed = mutation("ADD_TRACKS", {"track_ids": tracks(50, 2), "insert_at": 0}, 30, client_event_id=key)
    done = await call.ok("memory_log_playlist_mutation", keyed)
    assert await call.ok("memory_log_playlist_mutation", keyed) == done  # keyed retry
    await call.error("memory_log_playlist_mutation", {**keyed, "payload": {"track_ids": tracks(60, 1)}}, "CONFLICT")
    await call.ok("memory_log_playlist_mutation", mutation("REMOVE_TRACKS", {"track_ids": tracks(0, 2)}, 31))
    current = (await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": P[0]}))["track_ids"]
    await call.ok("memory_log_playlist_mutation", mutation("REORDER", {"track_ids": current[::-1]}, 32))
    await call.ok("memory_log_playlist_mutation", mutation("UPDATE_META", {"name": "Deeper focus"}, 33))
    for minute in range(34, 42):  # snapshots every 3 changes: several buckets
        await call.ok(
            "memory_log_playlist_mutation", mutation("ADD_TRACKS", {"track_ids": tracks(70 + minute, 1)}, minute)
        )
    refused = mutation("REORDER", {"track_ids": tracks(0, 1)}, 43, client_event_id=str(uuid.uuid4()))
    await call.error("memory_log_playlist_mutation", refused, "CONFLICT")  # not a permutation: key released
    await call.error(
        "memory_log_playlist_mutation", mutation("ADD_TRACKS", {"track_ids": tracks(1, 1)}, 5), "CONFLICT"
    )  # before the last change
    await call.error(
        "memory_log_playlist_mutation",
        {**mutation("ADD_TRACKS", {"track_ids": tracks(1, 1)}, 50), "playlist_id": playlist(999)},
        "NOT_FOUND",
    )
    big = {
        "user_id": USER,
        "playlist_id": P[5],
        "type": "ADD_TRACKS",
        "timestamp": at(45),
        "payload": {"track_ids": tracks(2000, 250)},
    }  # kept on the document without its payload
    await call.ok("memory_log_playlist_mutation", big)
    placed = {"track_ids": tracks(3000, 5), "positions": list(range(5))}
    await call.ok("memory_log_playlist_mutation", {**big, "timestamp": at(46), "payload": placed})


async def _tracks(call: RecordingCaller) -> None:
    await call.ok(
        "memory_upsert_tracks",
        {
            "user_id": USER,
            "tracks": [
                {
                    "track_id": track(1),
                    "name": "Deeper Focus",
                    "artists": ["Svenson"],
                    "duration_ms": 200_000,
                    "energy": 0.3,
                    "genres": ["nordic jazz"],
                },
                {"track_id": track(2), "name": "Fjord", "artists": ["Svenson"]},
            ],
        },
    )
    await call.ok("memory_resolve_track", {"user_id": USER, "text": "deeper focs"})
    await call.ok("memory_confirm_track", {"user_id": USER, "text": "that svenson one", "track_id": track(2)})
    await call.ok("memory_resolve_track", {"user_id": USER, "text": "that svenson one"})
    await call.ok("memory_check_playlist", {"user_id": USER, "track_ids": [track(1), track(2), track(3)]})
    await call.ok(
        "memory_check_playlist", {"user_id": USER, "track_ids": [track(1)], "rules": {"max_tracks_per_artist": 1}}
    )


async def _moves(call: RecordingCaller) -> None:
    """The ledger moves, each also aimed at the other user's playlist (NOT_FOUND)."""
    await call.ok(
        "memory_log_playlist_mutation",
        {
            "user_id": USER,
            "playlist_id": P[4],
            "type": "ADD_TRACKS",
            "payload": {"track_ids": tracks(400, 2)},
            "timestamp": at(50),
        },
    )
    undone = await call.ok("memory_undo_last_mutation", {"user_id": USER, "playlist_id": P[4], "timestamp": at(51)})
    await call.ok(
        "memory_undo_last_mutation",
        {
            "user_id": USER,
            "playlist_id": P[4],
            "event_id": undone["event_id"],
            "client_event_id": str(uuid.uuid4()),
            "timestamp": at(52),
        },
    )
    await call.ok(
        "memory_resync_playlist",
        {"user_id": USER, "playlist_id": P[4], "track_ids": tracks(401, 3), "timestamp": at(53)},
    )
    await call.ok(
        "memory_fork_playlist",
        {"user_id": USER, "playlist_id": P[4], "new_playlist_id": playlist(40), "at_time": at(50)},
    )
    await call.ok("memory_diff_playlist", {"user_id": USER, "playlist_id": P[4], "from_time": at(1)})
    await call.ok("memory_get_playlist_timeline", {"user_id": USER, "playlist_id": P[4], "max_points": 10})
    await call.ok("memory_playlist_portability", {"user_id": USER, "playlist_id": P[4], "target": "isrc"})
    for tool, extra in (
        ("memory_undo_last_mutation", {}),
        ("memory_resync_playlist", {"track_ids": tracks(1, 1)}),
        ("memory_fork_playlist", {"new_playlist_id": playlist(41)}),
        ("memory_diff_playlist", {"from_time": at(1)}),
        ("memory_get_playlist_timeline", {}),
        ("memory_playlist_portability", {"target": "isrc"}),
    ):
        await call.error(tool, {"user_id": USER, "playlist_id": P[6], **extra}, "NOT_FOUND")
    await call.ok("memory_rotation_report", {"user_id": USER, "days": 30, "limit": 10})
    await call.ok("memory_feedback_summary", {"user_id": USER, "limit": 5})
    await call.ok("memory_get_context", {"user_id": USER, "budget_tokens": 800, "focus": "deeper focus"})
    await call.ok("memory_inspect", {"user_id": USER})
    await call.ok(
        "memory_record_choice",
        {
            "user_id": USER,
            "chose": {"kind": "track", "id": track(1)},
            "over": {"kind": "track", "id": track(2), "name": "Fjord"},
            "dimensions": ["energy"],
            "context": "focus music",
        },
    )
    await call.ok("memory_explain", {"user_id": USER, "path": "Svenson"})


async def reads_scenario(call: RecordingCaller, service: Any) -> None:
    await _tracks(call)
    items, cursor, pages = [], None, 0
    while True:
        arguments: dict[str, Any] = {"user_id": USER, "limit": 2}
        if cursor:
            arguments["cursor"] = cursor
        page = await call.ok("memory_get_playlists", arguments)
        items += page["items"]
        pages += 1
        if pages == 2:  # another user's cursor is no cursor of theirs
            await call.error(
                "memory_get_playlists", {"user_id": OTHER, "cursor": page["next_cursor"]}, "INVALID_ARGUMENT"
            )
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(items) == 6 and pages == 3
    detail = await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": P[0], "include_events_limit": 40})
    assert len(detail["recent_events"]) == 12  # past the 5 kept on the document: read from history
    await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": P[5]})
    await call.error("memory_get_playlist", {"user_id": OTHER, "playlist_id": P[0]}, "NOT_FOUND")
    await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": P[0]})
    middle = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": P[0], "at_time": at(36)})
    assert middle["reconstruction"]["applied_event_count"] < 13
    await call.error(
        "memory_reconstruct_playlist", {"user_id": USER, "playlist_id": P[0], "at_time": at(1)}, "NOT_FOUND"
    )
    for query in ("deeper focus", "svenson", '"no vocals"', "fjord", "nordic jazz", "nothingmatcheshere"):
        await call.ok("memory_search", {"user_id": USER, "query": query, "limit": 10})

    # A crash between a commit and the playlist document's update: the next calls roll it forward.
    raw = service.database.raw["playlists"]
    await raw.delete_one({"_id": head_id(USER, P[1])})
    await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": P[1]})
    await raw.delete_one({"_id": head_id(USER, P[2])})
    await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": P[2]})
    await raw.update_one({"_id": head_id(USER, P[3])}, {"$set": {"seq": -1}})
    await call.ok(
        "memory_log_playlist_mutation",
        {
            "user_id": USER,
            "playlist_id": P[3],
            "type": "UPDATE_META",
            "payload": {"description": "rolled forward"},
            "timestamp": at(60),
        },
    )
    await _moves(call)
    await memories_scenario(call, USER, OTHER)
    await controls_scenario(call, USER)
    await conflicts_scenario(call, USER, OTHER)
    await forget_scenario(call, USER, OTHER)


async def export_delete_import(call: RecordingCaller, recorder: Recorder, service: Any) -> None:
    with recorder.during("cli: memory-service age --user-id"):
        aged = await service.aging.run(user_id=USER)
    assert aged["counts"]["compressed"] == 1 and aged["counts"]["removed"] == 1, aged["counts"]
    parts, cursor = [], None
    while True:
        arguments: dict[str, Any] = {"user_id": USER}
        if cursor:
            arguments["cursor"] = cursor
        data = (await call.ok("memory_export_user_data", arguments))["data"]
        parts.append(data)
        cursor = data["continuation"]["next_cursor"]
        if cursor is None:
            break
    assert len(parts) > 3 and any(p["chunks"] for p in parts)
    with recorder.during("cli: memory-service export"):
        await service.transfer.export_all(USER)
    await call.ok("memory_delete_user_data", {"user_id": USER, "confirm": True})
    empty = (await call.ok("memory_export_user_data", {"user_id": USER}))["data"]
    assert empty["profile"] is None and not empty["playlists"]
    with recorder.during("cli: memory-service import"):
        counts = await service.transfer.import_counts(parts, USER)
    assert counts["playlists"] == 7  # six logged, one forked
    replaced = await call.ok(
        "memory_import_user_data", {"user_id": USER, "data": parts, "confirm": True, "replace": True}
    )
    assert replaced["replaced"] and replaced["imported"] == counts
    buckets = sum(len(p["plays"]) for p in parts) + sum(
        c["section"] == "play_bucket" and c["index"] == 0 for p in parts for c in p["chunks"]
    )
    assert (counts["memories"], counts["play_buckets"], counts["memory_aging"]) == (2, buckets, 2), counts
    await call.ok("memory_get_playlists", {"user_id": USER, "limit": 50})
    await call.ok("memory_search", {"user_id": USER, "query": "deeper focus"})
    await import_history(recorder, service)
    # Operators' tools (exempt, recorded for the record).
    assert any(u["user_id"] == USER for u in (await call.ok("ops_list_users", {}))["users"])
    await call.ok("ops_audit", {"user_id": USER, "limit": 20})


async def import_history(recorder: Recorder, service: Any) -> None:
    """``memory-service import-history`` (and the page's Import, the same entry point): plays into
    the play store, new tracks into the catalog after a look for recordings held under another id."""
    rows = [extended(n, T0 + timedelta(hours=n), ms=200_000 if n % 3 else 9_000) for n in range(1, 7)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "Streaming_History_Audio_2025.json"
        path.write_text(json.dumps(rows))
        with recorder.during("cli: memory-service import-history"):
            outcome = await service.history.import_history(USER, path)
    assert (outcome.report.plays, outcome.report.skips, outcome.report.tracks_added) == (4, 2, 6), outcome.report
