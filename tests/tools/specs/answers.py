"""PRD-valid results of the tools with a described array, their lists ``rows`` long: the playlist,
catalog, insight and operator tools here, the memory and control tools in ``answers_memories``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from tests.support import playlist, track

ISO = "2025-01-01T00:00:00.000Z"
MEMORY_ID = "mem_" + "0" * 24


def _event(i: int) -> dict[str, Any]:
    return {
        "event_id": str(uuid.UUID(int=i + 1)),
        "timestamp": ISO,
        "type": "ADD_TRACKS",
        "payload": {"track_ids": [track(i)]},
    }


def _rotated(i: int) -> dict[str, Any]:
    return {
        "track_id": track(i),
        "first_seen": ISO,
        "present_since": ISO,
        "playlist_count": 1,
        "playlists": [playlist(1)],
        "name": f"Song {i}",
        "artists": ["Band"],
    }


def _scripted(rows: int) -> dict[str, Any]:
    return {
        "event_id": str(uuid.UUID(int=1)),
        "playlist_id": playlist(1),
        "timestamp": ISO,
        "new_snapshot_id": None,
        "added_count": rows,
        "removed_count": 0,
        "meta_fields": ["name", "intent_tags"] * rows,
    }


def rule_report(rows: int) -> dict[str, Any]:
    """A write's rule report (``check_rules``), its lists as long as they may be up to ``rows``."""
    return {
        "ok": False,
        "situation": None,
        "violations": [
            {"rule": "no_duplicates", "track_ids": [track(i)], "message": "m", "suggestion": "s"}
            for i in range(min(rows, 10))
        ],
        "violation_count": rows,
        "unverified": ["breathers"] * min(rows, 7),
        "unknown_tracks": [track(i) for i in range(min(rows, 50))],
        "unknown_count": rows,
    }


# A PRD-valid result of each playlist, catalog, insight and operator tool with a described array,
# its lists `rows` long.
PLAYLIST_ANSWERS: dict[str, Callable[[int], dict[str, Any]]] = {
    "ops.list_users": lambda rows: {
        "users": [
            {
                "user_id": i + 1,
                "profile_version": i,
                "playlist_count": 3,
                "preference_event_count": 4,
                "updated_at": ISO if i % 2 else None,
            }
            for i in range(rows)
        ]
    },
    "memory.get_playlists": lambda rows: {
        "items": [
            {
                "playlist_id": playlist(i),
                "name": f"List {i}",
                "created_at": ISO,
                "updated_at": ISO,
                "intent_tags": ["calm", "late night"],
                "track_count": 30,
            }
            for i in range(rows)
        ],
        "next_cursor": None,
    },
    "memory.get_playlist": lambda rows: {
        "playlist": {
            "playlist_id": playlist(1),
            "user_id": 1,
            "name": "P",
            "created_at": ISO,
            "updated_at": ISO,
            "intent_tags": [f"tag{i}" for i in range(rows)],
        },
        "latest_snapshot": {
            "snapshot_id": str(uuid.UUID(int=1)),
            "created_at": ISO,
            "track_ids": [track(i) for i in range(rows)],
        },
        "recent_events": [_event(i) for i in range(rows)],
    },
    "memory.reconstruct_playlist": lambda rows: {
        "playlist_id": playlist(1),
        "as_of": ISO,
        "track_ids": [track(i) for i in range(rows)],
        "reconstruction": {"used_snapshot_id": None, "applied_event_count": 0},
    },
    "memory.search": lambda rows: {
        "results": [
            {
                "kind": "playlist",
                "id": playlist(i),
                "score": 1 / (i + 1),
                "snippet": "late night synthwave",
                "metadata": {"name": f"List {i}"},
            }
            for i in range(rows)
        ]
    },
    "ops.audit": lambda rows: {
        "entries": [
            {
                "entry_id": f"entry{i}",
                "time": ISO,
                "collection": "playlists",
                "operation": "update",
                "user_id": 1,
                "playlist_id": playlist(1),
                "document_key": playlist(1),
                "tool": "memory.log_playlist_mutation",
                "request_id": f"req{i}",
                "principal": "local",
                "via": "write_path",
                "source": "mcp",
            }
            for i in range(rows)
        ],
        "next_cursor": None,
    },
    "memory.undo_last_mutation": lambda rows: {
        **_scripted(rows),
        "undid": {"event_id": str(uuid.UUID(int=2)), "type": "ADD_TRACKS", "redo": False},
    },
    "memory.resync_playlist": lambda rows: {**_scripted(rows), "new_snapshot_id": str(uuid.UUID(int=3))},
    "memory.resolve_track": lambda rows: {
        "user_id": 1,
        "resolved": True,
        "best": {
            "track_id": track(0),
            "name": "n",
            "artists": [f"a{i}" for i in range(rows)],
            "confidence": 0.9,
            "reason": "r",
        },
        "alternatives": [
            {"track_id": track(i), "name": "n", "artists": ["a"], "confidence": 0.5, "reason": "r"}
            for i in range(min(rows, 20))
        ],
    },  # at most 20 alternatives
    "memory.confirm_track": lambda rows: {
        "user_id": 1,
        "text": "t",
        "track": {"track_id": track(0), "name": "n", "artists": [f"a{i}" for i in range(rows)]},
        "confirmations": 1,
        "confirmed_at": ISO,
    },
    "memory.log_playlist_create": lambda rows: {
        "playlist_id": playlist(1),
        "snapshot_id": str(uuid.UUID(int=1)),
        "created_at": ISO,
        "stored_track_count": rows,
        "rule_report": rule_report(rows),
    },
    "memory.log_playlist_mutation": lambda rows: {
        "event_id": str(uuid.UUID(int=2)),
        "playlist_id": playlist(1),
        "timestamp": ISO,
        "new_snapshot_id": None,
        "rule_report": rule_report(rows),
    },
    "memory.check_playlist": lambda rows: {
        "user_id": 1,
        "ok": False,
        "rules_source": "inline",
        "violation_count": rows,
        "unknown_count": rows,
        "violations": [
            {"rule": "no_duplicates", "track_ids": [track(i)], "message": "m", "suggestion": "s"}
            for i in range(min(rows, 50))
        ],
        "unverified": [{"rule": "breathers", "track_ids": [track(i)], "message": "m"} for i in range(min(rows, 10))],
        "unknown_tracks": [track(i) for i in range(min(rows, 500))],
        "next_cursor": None,
        "rules": {
            "no_duplicates": True,
            "avoid_artists": ["a"] * rows,
            "avoid_tracks": [track(i) for i in range(rows)],
            "avoid_genres": ["g"] * rows,
        },
    },
    "memory.diff_playlist": lambda rows: {
        "playlist_id": playlist(1),
        "from_time": ISO,
        "to_time": ISO,
        "existed_at_from_time": True,
        "added": [{"track_id": track(i), "index": i} for i in range(rows)],
        "removed": [{"track_id": track(i), "index": i} for i in range(rows)],
        "moved": [{"track_id": track(i), "from_index": i, "to_index": i + 1} for i in range(rows)],
        "meta_changes": [{"field": "name", "from": f"n{i}", "to": None} for i in range(rows)],
        "events": [
            {k: v for k, v in _event(i).items() if k != "payload"} | {"seq": i, "detail": {}} for i in range(rows)
        ],
        "counts": {"added": rows, "removed": rows, "moved": rows, "events": rows},
        "truncated": False,
        "next_cursor": None,
    },
    "memory.get_playlist_timeline": lambda rows: {
        "user_id": 1,
        "playlist_id": playlist(1),
        "events_total": rows,
        "track_count": rows,
        "points": [
            {
                "from": ISO,
                "to": ISO,
                "seq_from": i,
                "seq_to": i,
                "track_count_min": i,
                "track_count_max": i,
                "track_count_end": i,
                "types": {"ADD_TRACKS": 1},
            }
            for i in range(rows)
        ],
        "point_count": rows,
        "next_cursor": None,
    },
    "memory.rotation_report": lambda rows: {
        "as_of": ISO,
        "days": 30,
        "window_start": ISO,
        "truncated": False,
        "next_cursor": None,
        "totals": {"playlists": 3, "tracks_in_rotation": 2 * rows, "new": rows, "staples": rows, "other": 0},
        "new": [_rotated(i) for i in range(rows)],
        "staples": [_rotated(i) | {"reasons": ["in_3_or_more_playlists"]} for i in range(rows)],
    },
    "memory.upsert_tracks": lambda rows: {
        "user_id": 1,
        "inserted": 0,
        "updated": rows,
        "unchanged": 0,
        "merged": [{"track_id": track(i + 1000), "into": track(i), "by": "isrc"} for i in range(min(rows, 500))],
    },  # at most 500 tracks a call
    "memory.playlist_portability": lambda rows: {
        "user_id": 1,
        "playlist_id": playlist(1),
        "target": "apple_music",
        "as_of": ISO,
        "track_count": rows,
        "counts": {"matched": rows, "unmatched": 0},
        "tracks": [
            {
                "position": i,
                "track_id": track(i),
                "name": "n",
                "artists": ["a"],
                "target_id": "1440857781",
                "status": "matched",
                "reason": "external_id",
            }
            for i in range(rows)
        ],
        "next_cursor": None,
    },
}
