#!/usr/bin/env python
"""Insights benchmark: p50/p95 of memory_rotation_report and memory_feedback_summary in process,
for one user with 50 playlists × 100 tracks × 50 events each (and 10 other users of the same
size in the store, so the per-user reads are measured among others' data).

    python scripts/bench_insights.py [--playlists 50] [--tracks 100] [--events 50] [--repeat 30]

The history is written through the service facade (the real write path: buckets, snapshots);
each report is timed through the in-process MCP client (validation, envelope, the client's
output-schema check) and at the facade.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.settings import Settings
from tests.support import connected, playlist, track

USER = 1
RULES = [
    "no more than 3 songs per artist",
    "too many songs by one band",
    "no christmas music",
    "less pop",
    "keep it under 2 hours",
    "more Nightwish",
    "add breathers mid-playlist",
    "no screamo please",
]


async def seed(service, user: int, playlists: int, tracks: int, events: int, rng: random.Random) -> None:
    start = datetime.now(UTC) - timedelta(days=310)  # the newest changes reach the last weeks
    pool = [track(user * 1_000_000 + i) for i in range(playlists * tracks // 2)]  # tracks recur across playlists
    for p in range(playlists):
        moment = start + timedelta(days=rng.uniform(0, 200))
        current = rng.sample(pool, tracks)
        await service.playlists.create(
            {"user_id": user, "playlist_id": playlist(user * 1000 + p), "name": f"Mix {p}", "track_ids": current},
            moment,
        )
        for _ in range(events):
            moment += timedelta(hours=rng.uniform(1, 96))
            kind = rng.choice(["ADD_TRACKS", "ADD_TRACKS", "REMOVE_TRACKS", "REORDER"])
            if kind == "ADD_TRACKS":
                payload = {"track_ids": rng.sample(pool, 2)}
                current = current + payload["track_ids"]
            elif kind == "REMOVE_TRACKS":
                payload = {"track_ids": rng.sample(current, 2)}
                current = [t for t in current if t not in payload["track_ids"]]
            else:
                payload = {"track_ids": rng.sample(current, len(current))}
                current = payload["track_ids"]
            await service.playlists.mutate(
                {"user_id": user, "playlist_id": playlist(user * 1000 + p), "type": kind, "payload": payload}, moment
            )
    for n in range(200):
        await service.profiles.append_event(
            user,
            rng.choice(["rule", "dislike", "feedback", "like"]),
            {"raw_text": rng.choice(RULES)},
            "user",
            start + timedelta(days=n),
        )


def _percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms (n={len(ordered)})"


async def main(args: argparse.Namespace) -> None:
    rng = random.Random(10)
    with tempfile.TemporaryDirectory() as data:
        async with connected(Settings(data_dir=Path(data), search_warmup=False)) as call:
            started = time.perf_counter()
            for user in [USER, *range(2, 2 + args.others)]:
                await seed(call.service, user, args.playlists, args.tracks, args.events, rng)
            print(f"seeded {1 + args.others} users in {time.perf_counter() - started:.1f} s")
            if args.freeze:  # as start-up leaves a store it loaded: out of the cyclic GC's reach
                gc.collect()
                gc.freeze()
            for tool, arguments, facade in (
                (
                    "memory_rotation_report",
                    {"user_id": USER, "days": 30, "limit": 50},
                    lambda: call.service.insights.rotation_report(USER, 30, 50),
                ),
                (
                    "memory_feedback_summary",
                    {"user_id": USER, "limit": 20},
                    lambda: call.service.insights.feedback_summary(USER, 20),
                ),
            ):
                for label, run in (("tool", lambda: call.ok(tool, arguments)), ("facade", facade)):
                    await run()  # warm
                    samples = []
                    for _ in range(args.repeat):
                        began = time.perf_counter()
                        await run()
                        samples.append(time.perf_counter() - began)
                    print(f"{tool} ({label}): {_percentiles(samples)}")
            result = await call.ok("memory_rotation_report", {"user_id": USER})
            print("rotation totals:", result["totals"])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playlists", type=int, default=50)
    parser.add_argument("--tracks", type=int, default=100)
    parser.add_argument("--events", type=int, default=50)
    parser.add_argument("--others", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--freeze", action="store_true", help="gc.freeze() after seeding, as start-up does")
    asyncio.run(main(parser.parse_args()))
