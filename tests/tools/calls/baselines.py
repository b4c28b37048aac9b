"""A valid argument set per tool (every optional property present where that makes a write likely),
the valid payloads of each playlist mutation type, and the store they act on: ``seed`` writes it,
``store_state`` reads what a rejected call must leave unchanged, ``live_baseline`` completes a
baseline with what exists only once the store holds it.
"""

from __future__ import annotations

import copy
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.support import playlist, track

EXISTING = playlist(1)
CLIENT_EVENT_ID = str(uuid.uuid4())
LATER = "2099-01-01T00:00:00Z"

BASELINES: dict[str, dict[str, Any]] = {
    "memory.upsert_tracks": {
        "user_id": 1,
        "tracks": [
            {
                "track_id": track(3),
                "name": "Polka Time",
                "artists": ["Polka Band"],
                "album": "Polka",
                "duration_ms": 180000,
                "popularity": 50,
                "genres": ["polka"],
                "energy": 0.5,
            }
        ],
    },
    "memory.resolve_track": {"user_id": 1, "text": "polka time", "limit": 3},
    "memory.confirm_track": {"user_id": 1, "text": "that polka one", "track_id": track(1)},
    "memory.check_playlist": {
        "user_id": 1,
        "track_ids": [track(1), track(2)],
        "rules": {
            "max_tracks_per_artist": 2,
            "target_duration_minutes": {"min": 1, "max": 60, "target": 30, "tolerance": 5},
            "avoid_artists": ["Nickelback"],
            "avoid_tracks": [track(9)],
            "avoid_genres": ["dubstep"],
            "no_duplicates": True,
            "breathers": {"placement": "mid", "max_energy": 0.4},
            "rest": {"max_plays": 3, "days": 7},
        },
    },
    "ops.list_users": {"limit": 10},
    "ops.audit": {
        "user_id": 1,
        "playlist_id": EXISTING,
        "since": "2020-01-01T00:00:00Z",
        "until": "2100-01-01T00:00:00Z",
        "limit": 10,
    },
    "memory.get_profile": {"user_id": 1},
    "memory.update_profile": {
        "user_id": 1,
        "patch": {"genres": ["polka"]},
        "reason": "because",
        "source": "user",
        "create_if_missing": True,
    },
    "memory.append_preference_event": {
        "user_id": 1,
        "type": "like",
        "payload": {"raw_text": "more polka"},
        "source": "user",
        "timestamp": LATER,
    },
    "memory.log_playlist_create": {
        "user_id": 1,
        "playlist_id": playlist(2),
        "name": "New one",
        "description": "d",
        "track_ids": [track(1), track(2)],
        "intent_tags": ["x"],
        "seed_context": {"k": "v"},
        "created_at": LATER,
        "idempotency_key": "idem-key-0001",
    },
    "memory.log_playlist_mutation": {
        "user_id": 1,
        "playlist_id": EXISTING,
        "type": "ADD_TRACKS",
        "payload": {"track_ids": [track(9)]},
        "timestamp": LATER,
        "client_event_id": CLIENT_EVENT_ID,
    },
    "memory.get_playlists": {"user_id": 1, "limit": 10},
    "memory.get_playlist": {"user_id": 1, "playlist_id": EXISTING, "include_events_limit": 5, "include_tracks": True},
    "memory.reconstruct_playlist": {"user_id": 1, "playlist_id": EXISTING, "at_time": LATER, "include_tracks": True},
    "memory.search": {"user_id": 1, "query": "jazz", "limit": 5},
    "memory.export_user_data": {"user_id": 1},
    "memory.delete_user_data": {"user_id": 1, "confirm": True},
    "memory.undo_last_mutation": {
        "user_id": 1,
        "playlist_id": EXISTING,
        "event_id": str(uuid.uuid4()),
        "client_event_id": str(uuid.uuid4()),
        "timestamp": LATER,
    },
    "memory.resync_playlist": {
        "user_id": 1,
        "playlist_id": EXISTING,
        "track_ids": [track(2), track(3)],
        "reason": "edited in the app",
        "client_event_id": str(uuid.uuid4()),
        "timestamp": LATER,
    },
    "memory.fork_playlist": {
        "user_id": 1,
        "playlist_id": EXISTING,
        "new_playlist_id": playlist(3),
        "name": "v2",
        "at_time": LATER,
    },
    "memory.diff_playlist": {
        "user_id": 1,
        "playlist_id": EXISTING,
        "from_time": "2020-01-01T00:00:00Z",
        "to_time": LATER,
    },
    "memory.get_playlist_timeline": {"user_id": 1, "playlist_id": EXISTING, "max_points": 100},
    "memory.playlist_portability": {"user_id": 1, "playlist_id": EXISTING, "target": "spotify"},
    "memory.rotation_report": {"user_id": 1, "days": 30, "limit": 50},
    "memory.feedback_summary": {"user_id": 1, "limit": 20},
    "memory.add": {
        "user_id": 1,
        "type": "recommendation",
        "entities": ["Polka Band", "Polka Time"],
        "summary": "Recommended their polka album",
        "importance": 8,
        "metadata": {"check_after_days": 7},
        "timestamp": "2026-01-01T00:00:00Z",
        "skip_dedup": True,
    },
    "memory.query": {
        "user_id": 1,
        "entity": "polka band",
        "text": "polka",
        "type": "recommendation",
        "since_days": 30,
        "importance_min": 5,
        "limit": 5,
    },
    "memory.log_plays": {
        "user_id": 1,
        "plays": [
            {
                "artist": "Polka Band",
                "track": "Polka Time",
                "album": "Polka",
                "track_id": track(3),
                "played_at": "2020-01-01T00:00:00Z",
            }
        ],
    },
    "memory.validate_recommendation": {"user_id": 1, "memory_id": "mem_" + "0" * 24},  # a live one at the end
    "memory.open_followups": {"user_id": 1, "limit": 10},
    "memory.set_enabled": {"user_id": 1, "enabled": True},
    "memory.pause": {"user_id": 1, "until": LATER},
    "memory.status": {"user_id": 1},
    "memory.inspect": {"user_id": 1},
    "memory.get_context": {"user_id": 1, "budget_tokens": 500, "focus": "polka"},
    # A constant export; it replaces the seeded user at the end.
    "memory.import_user_data": {
        "user_id": 1,
        "confirm": True,
        "replace": True,
        "data": [
            {
                "format": "taste-memory-export/1",
                "tracks": [
                    {
                        "track_id": track(4),
                        "name": "Imported",
                        "artists": ["Importer"],
                        "first_seen_at": "2026-01-01T00:00:00Z",
                        "updated_at": "2026-01-01T00:00:00Z",
                    }
                ],
            }
        ],
    },
    "memory.record_choice": {
        "user_id": 1,
        "chose": {"kind": "track", "id": track(1), "name": "Seed"},
        "over": {"kind": "track", "id": track(2), "name": "Other"},
        "dimensions": ["energy"],
        "context": "picking an opener",
    },
    "memory.explain": {"user_id": 1, "path": "/genres/0"},
    "memory.list_conflicts": {"user_id": 1, "limit": 5},
    "memory.resolve_conflict": {"user_id": 1, "conflict_id": "cf_0", "resolution": "dismiss", "note": "n"},
    "memory.forget": {"user_id": 1, "kind": "profile_field", "id": "/genres", "confirm": True},
    "memory.enable_toolsets": {"toolsets": ["ledger"]},
}

# Valid payloads of memory.log_playlist_mutation per type (every optional payload field present).
MUTATION_PAYLOADS: dict[str, dict[str, Any]] = {
    "ADD_TRACKS": {"track_ids": [track(9)], "insert_at": 0},
    "REMOVE_TRACKS": {"track_ids": [track(1)]},
    "REORDER": {"track_ids": [track(2), track(1)]},
    "UPDATE_META": {"name": "Renamed", "description": "new", "intent_tags": ["t"]},
}


async def seed(call: Any) -> None:
    await call.ok(
        "memory_upsert_tracks",
        {"user_id": 1, "tracks": [{"track_id": track(1), "name": "Seed", "artists": ["Seeder"]}]},
    )
    await call.ok("memory_update_profile", {"user_id": 1, "patch": {"genres": ["jazz"]}, "reason": "seed"})
    await call.ok("memory_append_preference_event", {"user_id": 1, "type": "like", "payload": {"raw_text": "jazz"}})
    await call.ok(
        "memory_log_playlist_create",
        {
            "user_id": 1,
            "playlist_id": EXISTING,
            "name": "Existing",
            "track_ids": [track(1), track(2)],
            "idempotency_key": "seed-create-1",
        },
    )


async def store_state(call: Any) -> dict[str, Any]:
    export = await call.ok("memory_export_user_data", {"user_id": 1})
    data = dict(export["data"])
    data.pop("as_of")
    return {
        "export": data,
        "users": await call.ok("ops_list_users", {}),
        "playlist": await call.ok("memory_get_playlist", {"user_id": 1, "playlist_id": EXISTING}),
    }


async def live_baseline(call: Any, prd_name: str) -> dict[str, Any]:
    """The baseline, with what only exists once the store holds it: a redo names a real UNDO, a
    validation a real recommendation."""
    arguments = copy.deepcopy(BASELINES[prd_name])
    if prd_name == "memory.undo_last_mutation":
        await call.ok(
            "memory_log_playlist_mutation",
            {"user_id": 1, "playlist_id": EXISTING, "type": "ADD_TRACKS", "payload": {"track_ids": [track(5)]}},
        )
        undone = await call.ok("memory_undo_last_mutation", {"user_id": 1, "playlist_id": EXISTING})
        arguments["event_id"] = undone["event_id"]
    if prd_name == "memory.validate_recommendation":
        arguments["memory_id"] = (
            await call.ok(
                "memory_add",
                {
                    "user_id": 1,
                    "type": "recommendation",
                    "entities": ["Polka Band"],
                    "summary": "Recommended polka",
                    "importance": 8,
                },
            )
        )["memory_id"]
    if prd_name == "memory.resolve_conflict":
        arguments["conflict_id"] = await open_conflict(call)
    return arguments


async def open_conflict(call: Any, user_id: int = 1) -> str:
    """The id of a real stated-versus-played conflict: a dislike, then five plays of it today."""
    await call.ok(
        "memory_append_preference_event", {"user_id": user_id, "type": "dislike", "payload": {"artist": "Polka"}}
    )
    now = datetime.now(UTC).replace(microsecond=0)
    plays = [{"artist": "polka", "played_at": (now - timedelta(hours=h)).isoformat()} for h in range(5)]
    await call.ok("memory_log_plays", {"user_id": user_id, "plays": plays})
    conflicts = (await call.ok("memory_list_conflicts", {"user_id": user_id}))["conflicts"]
    return str(next(c["conflict_id"] for c in conflicts if c["subject"] == {"artist": "Polka"}))
