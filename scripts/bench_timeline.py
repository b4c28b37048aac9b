#!/usr/bin/env python
"""memory_get_playlist_timeline on one large playlist, through the in-process MCP client: about
5,000 tracks and 10,000 changes crossing many snapshot buckets, then ``--repeat`` calls with the
default max_points (500) and with 2,000; p50 / p95 in ms (client round trip in process, validation
included), and the service function alone.

    python scripts/bench_timeline.py [--tracks 5000] [--events 10000] [--repeat 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.settings import Settings
from tests.support import connected, playlist, track


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def main(tracks: int, events: int, repeat: int) -> None:
    """The playlist is built through the service's own write path (``PlaylistService.mutate``, the
    function the tool calls, without the MCP round trip): created with ``tracks`` tracks, then
    ``events`` mutations a minute apart: ADD_TRACKS of 1-3 new tracks (45%), REMOVE_TRACKS of 1-3
    present ones (45%), REORDER of the whole list (5%), UPDATE_META (5%), so it stays near its first
    size and its history crosses many snapshot buckets."""
    rng = random.Random(16)
    pid = playlist(1)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as directory:
        async with connected(Settings(data_dir=Path(directory))) as call:
            current = [track(i) for i in range(tracks)]
            await call.ok(
                "memory_log_playlist_create",
                {
                    "user_id": 1,
                    "playlist_id": pid,
                    "name": "Big",
                    "track_ids": current,
                    "created_at": start.isoformat(),
                },
            )
            built = time.perf_counter()
            next_id = tracks
            for n in range(events):
                roll = rng.random()
                if roll < 0.45:
                    new = [track(next_id + i) for i in range(rng.randint(1, 3))]
                    next_id += len(new)
                    kind, payload = "ADD_TRACKS", {"track_ids": new}
                    current.extend(new)
                elif roll < 0.90:
                    gone = rng.sample(current, rng.randint(1, 3))
                    kind, payload = "REMOVE_TRACKS", {"track_ids": gone}
                    current = [t for t in current if t not in set(gone)]
                elif roll < 0.95:
                    rng.shuffle(current)
                    kind, payload = "REORDER", {"track_ids": list(current)}
                else:
                    kind, payload = "UPDATE_META", {"name": f"Big {n}"}
                await call.service.playlists.mutate(
                    {"user_id": 1, "playlist_id": pid, "type": kind, "payload": payload},
                    start + timedelta(minutes=n + 1),
                )
            built = time.perf_counter() - built
            now = await call.ok("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": pid})
            assert now["track_ids"] == current
            head = await call.ok("memory_get_playlist", {"user_id": 1, "playlist_id": pid, "include_events_limit": 0})
            print(
                f"built: {tracks:,} tracks, {events:,} events in {built:.1f} s; now {len(current):,} tracks; "
                f"snapshots: {len(head.get('recent_snapshots') or [])} recent shown"
            )
            for max_points in (500, 2000):
                samples = []
                answer: dict = {}
                for _ in range(repeat):
                    begin = time.perf_counter()
                    answer = await call.ok(
                        "memory_get_playlist_timeline", {"user_id": 1, "playlist_id": pid, "max_points": max_points}
                    )
                    samples.append((time.perf_counter() - begin) * 1000)
                assert answer["events_total"] == events + 1 and answer["track_count"] == len(current)
                print(
                    f"memory_get_playlist_timeline max_points={max_points}: p50 {pct(samples, 0.5):.1f} ms, "
                    f"p95 {pct(samples, 0.95):.1f} ms, {len(answer['points'])} points, "
                    f"answer {len(json.dumps(answer)):,} bytes"
                )
            service = call.service
            samples = []
            for _ in range(repeat):
                begin = time.perf_counter()
                await service.moves.timeline(1, pid, 500)
                samples.append((time.perf_counter() - begin) * 1000)
            print(
                f"service function alone (max_points=500): p50 {pct(samples, 0.5):.1f} ms, "
                f"p95 {pct(samples, 0.95):.1f} ms"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tracks", type=int, default=5000)
    parser.add_argument("--events", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=30)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.tracks, arguments.events, arguments.repeat))
