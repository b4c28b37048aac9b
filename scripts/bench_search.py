#!/usr/bin/env python
"""Search benchmark: p50/p95 of ``MemoryService.search`` in process at 1k, 10k and 50k items of one
user (the labelled queries of tests/search, each run several times), MRR/top-5 at each size, and
the time to rebuild the search index at start-up from the embedded store.

    python scripts/bench_search.py [--sizes 1000 10000 50000] [--repeat 5]

Documents are written straight into the embedded store (loading 50k items through the tools would
measure the writes, not the search); the index is then built exactly as start-up builds it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import UTC
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.memory import MemoryService
from service.settings import Settings
from service.storage import open_database
from service.storage.embedded import _mock_collection
from tests.search.corpus import MAIN_USER, build_corpus
from tests.search.evaluate import evaluate
from tests.search.queries import QUERIES


def documents(size: int) -> tuple[list[dict], list[dict], list[dict], dict[str, str]]:
    """Raw documents of a corpus of about ``size`` items for the main user."""
    half = max(0, (size - 45) // 2)
    corpus = build_corpus(seed=size, filler_playlists=half, filler_events=half, other_users_share=0.0)
    ids = dict(corpus.anchor_playlists)
    playlists, events, profiles = [], [], []
    for user_id, items in corpus.playlists.items():
        for p in items:
            playlists.append({
                "_id": f"{user_id}:{p['playlist_id']}", "user_id": user_id, "playlist_id": p["playlist_id"],
                "name": p["name"], "description": p.get("description"), "intent_tags": p.get("intent_tags", []),
                "seed_context": p.get("seed_context", {}), "created_at": p["created_at"], "updated_at": p["created_at"],
            })
    for user_id, items in corpus.events.items():
        for n, e in enumerate(items):
            event_id = f"ev-{user_id}-{n:08d}"
            if e["key"] and user_id == MAIN_USER:
                ids[e["key"]] = event_id
            events.append({"_id": event_id, "user_id": user_id, "type": e["type"], "source": "user",
                           "payload": e["payload"], "timestamp": e["timestamp"]})
    for user_id, profile in corpus.profiles.items():
        profiles.append({"_id": user_id, "user_id": user_id, "profile": profile, "version": 1,
                         "updated_at": e["timestamp"].astimezone(UTC)})
        if user_id == MAIN_USER:
            ids.update({f"profile:{k}": f"profile:{k}" for k in profile})
    return playlists, events, profiles, ids


async def measure(size: int, repeat: int) -> dict:
    playlists, events, profiles, ids = documents(size)
    with tempfile.TemporaryDirectory() as data_dir:
        settings = Settings(data_dir=Path(data_dir))
        async with open_database(settings) as db:
            for name, docs in (("playlists", playlists), ("preference_events", events), ("profiles", profiles)):
                store = _mock_collection(db._embedded.client, settings.database_name, name)._store
                for doc in docs:  # straight into the store, as start-up loads the journal
                    store[doc["_id"]] = doc
            service = MemoryService(db, settings)
            entries, rebuild_s = await service.build_search_index()
            timings = []
            for _ in range(repeat):
                for query, _, _ in QUERIES:
                    started = time.perf_counter()
                    await service.search(MAIN_USER, query, 25)
                    timings.append((time.perf_counter() - started) * 1000)
            quality = await evaluate(service, ids)
    items = sum(1 for d in playlists + events if d["user_id"] == MAIN_USER) + len(profiles[0]["profile"])
    timings.sort()
    return {
        "items": items, "entries": entries, "rebuild_ms": rebuild_s * 1000,
        "p50": statistics.median(timings), "p95": timings[int(len(timings) * 0.95) - 1], "max": timings[-1],
        "mrr": quality["all"]["mrr"], "top5": quality["all"]["top5"], "samples": len(timings),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"{'items (user 1)':>14} {'indexed':>8} {'queries':>8} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} "
          f"{'MRR':>6} {'top-5':>6} {'rebuild ms':>10}")
    for size in args.sizes:
        row = await measure(size, args.repeat)
        print(f"{row['items']:>14,} {row['entries']:>8,} {row['samples']:>8} {row['p50']:>7.2f} {row['p95']:>7.2f} "
              f"{row['max']:>7.2f} {row['mrr']:>6.3f} {row['top5']:>6.1%} {row['rebuild_ms']:>10.0f}")


if __name__ == "__main__":
    asyncio.run(main())
