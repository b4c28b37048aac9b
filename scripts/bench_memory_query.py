#!/usr/bin/env python
"""memory_query as one user's memories grow (0, 1,000 and 5,000 by default) when their entities
share a word ("Artist 12", "Artist 40", ...: every memory holds "artist") and their summaries share
words too ("Memory 12 about arrangements and mood"). One store grows between the sizes; user 1 is
measured through the in-process MCP client (search by meaning on, the default), p50 / p95 in ms.
An asked N is below 1,000 (a number of 1-3 digits allows no typo), so every size answers the same
rows. Calls answered RATE_LIMITED are waited out (``retry_after_s``) and timed from the last attempt.

    python scripts/bench_memory_query.py [--sizes 0,1000,5000] [--repeat 60]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from benchmarks.document import code_version, machine  # noqa: E402
from benchmarks.report import ms, pct  # noqa: E402

from service.settings import Settings  # noqa: E402
from tests.support import Caller, connected  # noqa: E402

NOW = datetime.now(UTC)
TYPES = ["recommendation", "insight", "event", "feedback", "discussion"]
MAX_BACKOFFS = 50


async def patient(call: Caller, tool: str, arguments: dict[str, Any]) -> tuple[Any, float]:
    """(result, ms of the last attempt): a RATE_LIMITED answer is waited out, as an agent must."""
    for _ in range(MAX_BACKOFFS):
        start = time.perf_counter()
        envelope = await call(tool, arguments)
        took = (time.perf_counter() - start) * 1000
        if envelope["success"]:
            return envelope["result"], took
        error = envelope["error"]
        if error["code"] != "RATE_LIMITED":
            raise RuntimeError(f"{tool}({arguments}): {error}")
        await asyncio.sleep(float((error.get("details") or {}).get("retry_after_s", 1.0)))
    raise RuntimeError(f"{tool}: still RATE_LIMITED after {MAX_BACKOFFS} back-offs")


async def grow(call: Caller, start: int, stop: int, rng: random.Random) -> None:
    """Memories ``start`` .. ``stop`` - 1 of user 1, through ``memory_add`` (no deduplication)."""
    for n in range(start, stop):
        await patient(
            call,
            "memory_add",
            {
                "user_id": 1,
                "type": rng.choice(TYPES),
                "entities": [f"Artist {n}"],
                "summary": f"Memory {n} about arrangements and mood",
                "importance": rng.randint(1, 10),
                "timestamp": (NOW - timedelta(days=rng.uniform(0, 90))).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
                "skip_dedup": True,
            },
        )


def rows(size: int, rng: random.Random) -> dict[str, tuple[str, Callable[[], dict[str, Any]]]]:
    """Each row: the tool and its arguments; an entity or word asked is one a stored memory holds."""

    def some() -> int:
        return rng.randrange(min(size, 1000)) if size else 12

    return {
        'memory_query (entity "artist N")': ("memory_query", lambda: {"entity": f"artist {some()}"}),
        'memory_query (entity "artsit N", a typo)': ("memory_query", lambda: {"entity": f"artsit {some()}"}),
        'memory_query (entity "artist", every memory)': ("memory_query", lambda: {"entity": "artist"}),
        'memory_query (text "arrangements", every memory)': ("memory_query", lambda: {"text": "arrangements"}),
        'memory_query (text "arrangements N")': ("memory_query", lambda: {"text": f"arrangements {some()}"}),
        'memory_search (words "artist N")': ("memory_search", lambda: {"query": f"artist {some()}"}),
    }


async def measure(sizes: list[int], repeat: int) -> dict[int, dict[str, tuple[float, float]]]:
    found: dict[int, dict[str, tuple[float, float]]] = {}
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as directory:
        async with connected(Settings(data_dir=Path(directory))) as call:
            stored = 0
            for size in sizes:
                started = time.perf_counter()
                await grow(call, stored, size, rng)
                print(f"  {size:,} memories ({time.perf_counter() - started:.1f} s to add)", flush=True)
                stored, found[size] = size, {}
                for label, (tool, arguments) in rows(size, random.Random(size)).items():
                    samples = []
                    for i in range(repeat + 5):  # the first 5 untimed (the meaning model loads once)
                        _, took = await patient(call, tool, {"user_id": 1, **arguments()})
                        if i >= 5:
                            samples.append(took)
                    found[size][label] = (pct(samples, 50), pct(samples, 95))
    return found


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="0,1000,5000")
    parser.add_argument("--repeat", type=int, default=60)
    options = parser.parse_args()
    sizes = sorted(int(n) for n in options.sizes.split(","))
    load = f"{os.getloadavg()[0]:.2f}"
    found = await measure(sizes, options.repeat)
    print(f"\n{code_version()}, {options.repeat} calls a cell, load average {load} / {os.getloadavg()[0]:.2f}")
    print("\n".join(machine()))
    print("\n| p50 / p95 ms | " + " | ".join(f"{n:,} memories" for n in sizes) + " |")
    print("|---|" + "---:|" * len(sizes))
    for label in found[sizes[0]]:
        print(f"| {label} | " + " | ".join(" / ".join(map(ms, found[n][label])) for n in sizes) + " |")


if __name__ == "__main__":
    import logging

    logging.disable(logging.INFO)
    asyncio.run(main())
