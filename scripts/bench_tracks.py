#!/usr/bin/env python
"""Track resolution benchmark: memory_resolve_track p50/p95 in process at growing catalogs, the
first resolve after an upsert (which analyses the whole catalog again) and the event-loop lag
that analysis causes, and top-1 accuracy of the labelled set at each size.

    python scripts/bench_tracks.py [--sizes 1000,10000] [--repeat 3]

Catalogs are the test suite's (real songs plus generated filler, ``tests/tracks/catalog_data``);
requests are its labelled set (``tests/tracks/queries``), loaded and called through the
in-process MCP client (validation, envelope, the client's output-schema check) and at the facade.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.settings import Settings
from tests.support import connected
from tests.tracks.catalog_data import by_title, catalog, real_tracks
from tests.tracks.loading import log_kept, upsert_all
from tests.tracks.queries import KEPT, QUERIES

USER = 1


def pct(samples: list[float], q: int) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


async def lag_during(work: object) -> tuple[float, float]:
    """(seconds the awaitable took, worst gap of a 5 ms ticker meanwhile, in ms)."""
    worst, done = 0.0, asyncio.Event()

    async def ticker() -> None:
        nonlocal worst
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            worst, last = max(worst, now - last - 0.005), now

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.02)
    start = time.perf_counter()
    await work  # type: ignore[misc]
    took = time.perf_counter() - start
    done.set()
    await task
    return took, worst * 1000


async def one_size(size: int, repeat: int) -> list[str]:
    tracks = catalog(filler=max(0, size - len(real_tracks())))
    with tempfile.TemporaryDirectory() as directory:
        async with connected(Settings(data_dir=Path(directory))) as call:
            await upsert_all(call, USER, tracks)
            await log_kept(call, USER, tracks, KEPT)
            service = call.service
            builds, lags = [], []
            for n in range(repeat):  # each upsert drops the analysed catalog; the next resolve rebuilds it
                await call.ok(
                    "memory_upsert_tracks", {"user_id": USER, "tracks": [{**tracks[n], "popularity": 100 - n}]}
                )
                took, lag = await lag_during(service.tracks.resolve_track(USER, "viva la something", 5))
                builds.append(took * 1000)
                lags.append(lag)
            mcp, facade, right = [], [], 0
            for text, expected, _ in QUERIES * repeat:
                start = time.perf_counter()
                answer = await call.ok("memory_resolve_track", {"user_id": USER, "text": text})
                mcp.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                await service.tracks.resolve_track(USER, text, 5)
                facade.append((time.perf_counter() - start) * 1000)
                if expected is None:  # not in the catalog: right when left unresolved
                    right += not answer["resolved"]
                else:
                    right += answer["resolved"] and answer["best"]["track_id"] == by_title(tracks, *expected)
    return [
        f"{len(tracks):,}",
        f"{len(mcp)}",
        f"{pct(mcp, 50):.2f}",
        f"{pct(mcp, 95):.2f}",
        f"{pct(facade, 50):.2f}",
        f"{pct(facade, 95):.2f}",
        f"{statistics.median(builds):.0f}",
        f"{max(lags):.0f}",
        f"{right}/{len(mcp)}",
    ]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    header = [
        "catalog",
        "calls",
        "MCP p50",
        "MCP p95",
        "facade p50",
        "facade p95",
        "first resolve ms",
        "worst loop gap ms",
        "correct",
    ]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for size in (int(s) for s in options.sizes.split(",")):
        print("| " + " | ".join(await one_size(size, options.repeat)) + " |", flush=True)


if __name__ == "__main__":
    import logging

    logging.disable(logging.INFO)
    asyncio.run(main())
