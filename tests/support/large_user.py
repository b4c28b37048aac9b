"""A large user, written in one import: a 5,000-track playlist with 650 logged changes, 10,000
preference events, 200 profile fields, 5,000 typed memories and a 5,000-track catalog. The export
is built here (every record in the shape the importer checks), so the user is stored in seconds
rather than by ten thousand tool calls; ``LargeUser`` keeps what was written, to compare pages with.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.support import playlist, track

BIG, SIDE = playlist(501), playlist(502)
START = datetime(2025, 1, 1, tzinfo=UTC)
ARTISTS = [f"Artist {n:03d}" for n in range(120)]
KINDS = ("like", "dislike", "rule", "feedback", "note")


def at(minutes: int) -> str:
    return (START + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


@dataclass
class LargeUser:
    """What the export holds, as the reads should give it back."""

    tracks: list[str] = field(default_factory=list)  # the big playlist now, in order
    profile_paths: list[str] = field(default_factory=list)
    events: int = 0
    created_at: str = at(0)
    changes: int = 0  # logged changes of the big playlist after its creation


def _profile() -> tuple[dict[str, Any], list[str]]:
    profile: dict[str, Any] = {
        "likes": {"artists": ARTISTS[:80]},
        "avoid": ARTISTS[80:110],
        "genres": [f"genre {n}" for n in range(40)],
        "rules": {f"rule_{n}": n for n in range(20)},
        "notes": {f"note_{n}": f"A note about {ARTISTS[n]} and late night drives" for n in range(30)},
    }
    paths = [f"/likes/artists/{n}" for n in range(80)] + [f"/avoid/{n}" for n in range(30)]
    paths += [f"/genres/{n}" for n in range(40)] + [f"/rules/rule_{n}" for n in range(20)]
    return profile, paths + [f"/notes/note_{n}" for n in range(30)]


def _history(profile: dict[str, Any]) -> list[dict[str, Any]]:
    keys = list(profile)
    return [
        {
            "version": v,
            "patch": {keys[v % len(keys)]: profile[keys[v % len(keys)]]},
            "reason": f"patch {v}: " + "why it changed, at some length. " * 8,
            "source": "user",
            "applied_at": at(v),
        }
        for v in range(1, 101)
    ]


def _event(n: int) -> dict[str, Any]:
    kind, artist = KINDS[n % len(KINDS)], ARTISTS[n % len(ARTISTS)]
    text = {
        "rule": f"no more than {n % 4 + 2} songs per artist please, like {artist}",
        "dislike": f"I really do not like {artist} anymore",
        "feedback": f"too many slow tracks from {artist} in the last mix",
    }.get(kind, f"{artist} is great for late night drives, event {n}")
    return {
        "event_id": f"large-event-{n:06d}",
        "user_id": 0,
        "type": kind,
        "source": "user",
        "payload": {"raw_text": text, "artist": artist, "genre": f"genre {n % 40}"},
        "timestamp": at(10 + n),
        "recorded_at": at(10 + n),
        "recorded_ns": 1_700_000_000_000_000_000 + n,
    }


def _memory(n: int) -> dict[str, Any]:
    kind = ("recommendation", "insight", "feedback", "event", "discussion")[n % 5]
    moment = at(20_000 + n)
    return {
        "memory_id": f"mem_{n:024x}",
        "type": kind,
        "entities": [ARTISTS[n % len(ARTISTS)], f"Album {n % 300}"],
        "summary": f"Memory {n} about {ARTISTS[n % len(ARTISTS)]}: liked the second side, asked for more.",
        "importance": 8 if kind == "recommendation" else 3 + n % 7,
        "metadata": {"check_after_days": 7} if kind == "recommendation" else {},
        "timestamp": moment,
        "last_seen_at": moment,
        "seen_count": 1,
        "fuzzy": False,
        "validated_at": None,
        "created_at": moment,
        "updated_at": moment,
    }


def _playlist(pid: str, created: int, first: list[str], changes: list[dict[str, Any]]) -> dict[str, Any]:
    events = [
        {
            "event_id": str(uuid.UUID(int=int(pid[-3:]) << 32 | seq)),
            "seq": seq,
            "type": change["type"],
            "payload": change["payload"],
            "timestamp": at(created + seq),
            "recorded_at": at(created + seq),
            "recorded_ns": 1_700_000_000_000_000_000 + created + seq,
            "client_event_id": None,
        }
        for seq, change in enumerate(changes, 1)
    ]
    return {
        "playlist_id": pid,
        "created_at": at(created),
        "recorded_ns": 1_700_000_000_000_000_000 + created,
        "seed_context": {"mood": "late night"},
        "idempotency_key": None,
        "request_hash": None,
        "snapshots": [
            {
                "snapshot_id": f"{pid}-snapshot-0",
                "seq": 0,
                "source": "create",
                "track_ids": first,
                "meta": {"name": f"Playlist {pid[-3:]}", "description": "long", "intent_tags": ["night"]},
                "created_at": at(created),
            }
        ],
        "events": events,
    }


def large_export(user: LargeUser) -> dict[str, Any]:
    """The export of the large user; fills ``user`` with what it holds."""
    profile, user.profile_paths = _profile()
    all_tracks = [track(n) for n in range(5_200)]
    # Creation with 1,200 tracks, then 500 additions of 8, 100 removals of 2 and 50 renames: 650 changes.
    current, changes = all_tracks[:1_200], []
    for n in range(500):
        added = all_tracks[1_200 + 8 * n : 1_208 + 8 * n]
        changes.append({"type": "ADD_TRACKS", "payload": {"track_ids": added}})
        current += added
    for n in range(100):
        gone = [current[n], current[n + 1]]
        changes.append({"type": "REMOVE_TRACKS", "payload": {"track_ids": gone}})
        current = [t for t in current if t not in gone]
    changes += [{"type": "UPDATE_META", "payload": {"name": f"Big mix v{n}"}} for n in range(50)]
    user.tracks, user.changes, user.events = current, len(changes), 10_000
    side = _playlist(SIDE, 30_000, all_tracks[::40], [])
    return {
        "format": "taste-memory-export/1",
        "as_of": at(40_000),
        "profile": {
            "user_id": 0,
            "profile": profile,
            "version": 100,
            "created_at": at(1),
            "updated_at": at(100),
            "history": _history(profile),
        },
        "preference_events": [_event(n) for n in range(user.events)],
        "playlists": [_playlist(BIG, 0, all_tracks[:1_200], changes), side],
        "tracks": [
            {
                "track_id": t,
                "name": f"Song {n} of the night",
                "artists": [ARTISTS[n % len(ARTISTS)]],
                "album": f"Album {n % 300}",
                "duration_ms": 180_000 + n,
                "energy": (n % 10) / 10,
                "first_seen_at": at(1),
                "updated_at": at(1),
            }
            for n, t in enumerate(all_tracks)
        ],
        "track_choices": [],
        "memories": [_memory(n) for n in range(5_000)],
        "plays": [],
        "memory_aging": [],
        "memory_controls": [],
        "chunks": [],
        "continuation": {"part": 1, "next_cursor": None},
    }
