#!/usr/bin/env python
"""The memory tools (typed memories, plays, follow-ups, the context block, status, explain,
inspect, search by words and by meaning, the playlist timeline) at 1 and 50 users in one store: a
cost that grows with other users' data is a bug. Every user gets the same data (a profile, 20
preference events, 100 typed memories, 500 plays over a year, a playlist of 50 tracks changed 30
times); user 1 is measured through the in-process MCP client (search by meaning on, the default),
p50 / p95 in ms.

    python scripts/bench_memories_scale.py [--users 1,50] [--repeat 40]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.bench_playlists_scale import pct, print_table
from service.settings import Settings
from tests.support import Caller, connected

ARTISTS = [f"Band {n}" for n in range(40)]
NOW = datetime.now(UTC)


def ago(days: float) -> str:
    return (NOW - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


async def seed(call: Caller, user: int) -> str:
    """The user's data; returns the id of a recommendation to validate."""
    rng = random.Random(user)
    await call.ok(
        "memory_update_profile",
        {
            "user_id": user,
            "patch": {
                "likes": {"artists": rng.sample(ARTISTS, 5)},
                "avoid": [rng.choice(ARTISTS)],
                "playlist_rules": {"max_tracks_per_artist": 2},
            },
        },
    )
    for n in range(20):
        await call.ok(
            "memory_append_preference_event",
            {
                "user_id": user,
                "type": rng.choice(["like", "dislike", "rule"]),
                "payload": {"artist": rng.choice(ARTISTS), "raw_text": f"note {n}"},
            },
        )
    rec = ""
    for n in range(100):
        added = await call.ok(
            "memory_add",
            {
                "user_id": user,
                "type": rng.choice(["recommendation", "insight", "event", "feedback"]),
                "entities": [rng.choice(ARTISTS), f"Album {n}"],
                "summary": f"Memory {n} about arrangements and mood",
                "importance": rng.randint(1, 10),
                "timestamp": ago(rng.uniform(0, 90)),
                "skip_dedup": True,
            },
        )
        rec = added["memory_id"] if added["memory"]["type"] == "recommendation" else rec
    playlist = f"playlist{user:018d}"
    await call.ok(
        "memory_log_playlist_create",
        {
            "user_id": user,
            "playlist_id": playlist,
            "name": "Night drive",
            "track_ids": [f"track{user:06d}{i:010d}" for i in range(50)],
            "created_at": ago(200),
        },
    )
    for n in range(30):
        kind = "ADD_TRACKS" if n % 2 == 0 else "REMOVE_TRACKS"
        await call.ok(
            "memory_log_playlist_mutation",
            {
                "user_id": user,
                "playlist_id": playlist,
                "type": kind,
                "timestamp": ago(199 - n),
                "payload": {"track_ids": [f"track{user:06d}{(50 + n if kind == 'ADD_TRACKS' else n):010d}"]},
            },
        )
    await call.ok(
        "memory_log_plays",
        {
            "user_id": user,
            "plays": [
                {
                    "artist": rng.choice(ARTISTS),
                    "track": f"Song {n % 60}",
                    "album": f"Album {n % 100}",
                    "played_at": ago(rng.uniform(0, 365)),
                }
                for n in range(500)
            ],
        },
    )
    return rec


async def measure(users: int, repeat: int) -> dict[str, tuple[float, float]]:
    with tempfile.TemporaryDirectory() as directory:
        async with connected(Settings(data_dir=Path(directory))) as call:
            recommendation = ""
            for user in range(users, 0, -1):
                recommendation = await seed(call, user)  # user 1 last: its recommendation
            calls = {
                "memory_add (new)": lambda: {
                    "user_id": 1,
                    "type": "insight",
                    "entities": [random.choice(ARTISTS)],
                    "summary": f"bench {random.random()}",
                    "importance": 5,
                    "skip_dedup": True,
                },
                "memory_query (entity)": lambda: {"user_id": 1, "entity": "band 7"},
                "memory_query (text)": lambda: {"user_id": 1, "text": "arrangements"},
                "memory_log_plays (duplicate)": lambda: {
                    "user_id": 1,
                    "plays": [{"artist": "Band 1", "track": "Song 1", "played_at": ago(400)}],
                },
                "memory_validate_recommendation": lambda: {"user_id": 1, "memory_id": recommendation},
                "memory_open_followups": lambda: {"user_id": 1},
                "memory_get_context": lambda: {"user_id": 1, "budget_tokens": 1000, "focus": "band 3"},
                "memory_status": lambda: {"user_id": 1},
                "memory_explain": lambda: {"user_id": 1, "path": "/likes/artists/0"},
                "memory_inspect": lambda: {"user_id": 1},
                "memory_search (words)": lambda: {"user_id": 1, "query": "arrangements"},
                "memory_search (meaning)": lambda: {"user_id": 1, "query": "songs for a late car ride"},
                "memory_get_playlist_timeline": lambda: {"user_id": 1, "playlist_id": f"playlist{1:018d}"},
            }
            found: dict[str, tuple[float, float]] = {}
            for label, arguments in calls.items():
                tool, samples = label.split(" ")[0], []
                for _ in range(repeat):
                    start = time.perf_counter()
                    await call.ok(tool, arguments())
                    samples.append((time.perf_counter() - start) * 1000)
                found[label] = (pct(samples, 50), pct(samples, 95))
            return found


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", default="1,50")
    parser.add_argument("--repeat", type=int, default=40)
    options = parser.parse_args()
    sizes = [int(n) for n in options.users.split(",")]
    print_table({n: await measure(n, options.repeat) for n in sizes}, sizes)


if __name__ == "__main__":
    import logging

    logging.disable(logging.INFO)
    asyncio.run(main())
