#!/usr/bin/env python
"""The playlist tools (track resolution, rule checks, ledger moves, rotation and feedback reports)
at 1 and 50 users in one store: a cost that grows with other users' data is a bug. Every user gets
the same data (a 300-track catalog, 5 playlists × 50 tracks × 20 changes, 20 preference events);
user 1 is measured through the in-process MCP client, p50 / p95 in ms.

    python scripts/bench_playlists_scale.py [--users 1,50] [--repeat 40]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.settings import Settings
from tests.support import Caller, connected, playlist, track

PLAYLISTS, TRACKS, CHANGES, CATALOG = 5, 50, 20, 300


async def seed(call: Caller, user: int) -> None:
    rng = random.Random(user)
    await call.ok(
        "memory_upsert_tracks",
        {
            "user_id": user,
            "tracks": [
                {
                    "track_id": track(n),
                    "name": f"Song {n} {rng.choice(['night', 'fire', 'blue', 'storm'])}",
                    "artists": [f"Band {n % 40}"],
                    "duration_ms": 200_000,
                    "energy": rng.random(),
                }
                for n in range(CATALOG)
            ],
        },
    )
    for p in range(PLAYLISTS):
        pid = playlist(p)
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": user,
                "playlist_id": pid,
                "name": f"Mix {p}",
                "track_ids": [track(rng.randrange(CATALOG)) for _ in range(TRACKS)],
                "created_at": "2025-01-01T00:00:00Z",
            },
        )
        for _ in range(CHANGES):
            await call.ok(
                "memory_log_playlist_mutation",
                {
                    "user_id": user,
                    "playlist_id": pid,
                    "type": "ADD_TRACKS",
                    "payload": {"track_ids": [track(rng.randrange(CATALOG))]},
                },
            )
    for n in range(20):
        await call.ok(
            "memory_append_preference_event",
            {"user_id": user, "type": "rule", "payload": {"raw_text": f"no more than {n % 3 + 2} per artist"}},
        )


CALLS = {
    "memory_resolve_track": {"user_id": 1, "text": "song 12 nigth"},
    "memory_check_playlist": {
        "user_id": 1,
        "track_ids": [track(n) for n in range(40)],
        "rules": {"max_tracks_per_artist": 2},
    },
    "memory_diff_playlist": {"user_id": 1, "playlist_id": playlist(0), "from_time": "2025-01-01T00:00:00Z"},
    "memory_rotation_report": {"user_id": 1},
    "memory_feedback_summary": {"user_id": 1},
    "memory_reconstruct_playlist": {"user_id": 1, "playlist_id": playlist(0), "include_tracks": True},
}


def pct(samples: list[float], q: int) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


async def measure(users: int, repeat: int) -> dict[str, tuple[float, float]]:
    with tempfile.TemporaryDirectory() as directory:
        async with connected(Settings(data_dir=Path(directory))) as call:
            for user in range(1, users + 1):
                await seed(call, user)
            found: dict[str, tuple[float, float]] = {}
            for tool, arguments in [*CALLS.items(), ("undo+redo", {})]:
                samples = []
                for _ in range(repeat):
                    start = time.perf_counter()
                    if tool == "undo+redo":
                        undone = await call.ok("memory_undo_last_mutation", {"user_id": 1, "playlist_id": playlist(1)})
                        await call.ok(
                            "memory_undo_last_mutation",
                            {"user_id": 1, "playlist_id": playlist(1), "event_id": undone["event_id"]},
                        )
                    else:
                        await call.ok(tool, arguments)
                    samples.append((time.perf_counter() - start) * 1000)
                found[tool] = (pct(samples, 50), pct(samples, 95))
            return found


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", default="1,50")
    parser.add_argument("--repeat", type=int, default=40)
    options = parser.parse_args()
    sizes = [int(n) for n in options.users.split(",")]
    print_table({n: await measure(n, options.repeat) for n in sizes}, sizes)


def print_table(results: dict[int, dict[str, tuple[float, float]]], sizes: list[int]) -> None:
    """One markdown row per tool: p50 / p95 at each store size, and the largest over the smallest p50."""
    print("| tool | " + " | ".join(f"{n} users p50 / p95" for n in sizes) + f" | {sizes[-1]}/{sizes[0]} p50 |")
    print("|" + "---|" * (len(sizes) + 2))
    for tool in results[sizes[0]]:
        cells = [f"{results[n][tool][0]:.2f} / {results[n][tool][1]:.2f}" for n in sizes]
        ratio = results[sizes[-1]][tool][0] / results[sizes[0]][tool][0]
        print(f"| {tool} | " + " | ".join(cells) + f" | {ratio:.2f}× |")


if __name__ == "__main__":
    import logging

    logging.disable(logging.INFO)
    asyncio.run(main())
