#!/usr/bin/env python
"""memory_inspect and memory_explain on one large user, through the in-process MCP client: a
profile of 191 leaves (190 liked artists and a rule) and N preference events (likes, dislikes and
feedback naming one of 300 artists, with a raw_text naming another), p50 / max of 10 calls in ms.

    python scripts/bench_inspect.py [--events 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.settings import Settings
from tests.support import connected


async def main(events: int) -> None:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as directory:
        async with connected(Settings(data_dir=Path(directory))) as call:
            await call.ok(
                "memory_update_profile",
                {
                    "user_id": 1,
                    "create_if_missing": True,
                    "patch": {
                        "likes": {"artists": [f"Band {i}" for i in range(190)]},
                        "rules": {"max_tracks_per_artist": 2},
                    },
                },
            )
            for _ in range(events):  # the service's write path, without the MCP round trip
                await call.service.profiles.append_event(
                    1,
                    rng.choice(["like", "dislike", "feedback"]),
                    {"artist": f"Band {rng.randrange(300)}", "raw_text": f"i like band {rng.randrange(300)} a lot"},
                    "user",
                    None,
                )
            for tool, arguments in (
                ("memory_inspect", {"user_id": 1}),
                ("memory_explain", {"user_id": 1, "path": "/likes/artists/3"}),
            ):
                samples = []
                for _ in range(10):
                    start = time.perf_counter()
                    answer = await call.ok(tool, arguments)
                    samples.append((time.perf_counter() - start) * 1000)
                samples.sort()
                print(
                    f"{tool}: p50 {samples[5]:.0f} ms, max {samples[-1]:.0f} ms, "
                    f"answer {len(json.dumps(answer, default=str)):,} bytes"
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=5000)
    asyncio.run(main(parser.parse_args().events))
