#!/usr/bin/env python
"""External ids through the in-process MCP client: a catalog of 10,000 tracks (one batch in two
carrying an ISRC and an Apple Music id), then 500-track upserts with and without ids, resolutions
of pasted ISRCs and Spotify links, and the portability report of a 5,000-track playlist, every page.
``--others N`` first gives N other users a 2,000-track catalog each (one batch in two with ids):
what one user's calls cost must not grow with other users' data.

    python scripts/bench_identity.py [--others 49]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support import connected, playlist, track
from tests.support.backends import make_settings


def tracks(lo: int, hi: int, ids: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for n in range(lo, hi):
        entry: dict[str, Any] = {"track_id": track(n), "name": f"Song {n}", "artists": [f"Band {n % 50}"]}
        if ids:
            entry["external_ids"] = {"isrc": f"GBUM7{n:07d}", "apple_music": str(n)}
        out.append(entry)
    return out


async def main(others: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        settings = make_settings("embedded", Path(folder) / "data")
        async with connected(settings) as call:
            for user in range(2, others + 2):
                for lo in range(0, 2_000, 500):
                    batch = tracks(lo, lo + 500, lo % 1000 == 0)
                    await call.ok("memory_upsert_tracks", {"user_id": user, "tracks": batch})
            if others:
                print(f"{others} other users with 2,000 tracks each")
            for lo in range(0, 10_000, 500):
                await call.ok("memory_upsert_tracks", {"user_id": 1, "tracks": tracks(lo, lo + 500, lo % 1000 == 0)})
            for ids in (False, True):
                started = time.perf_counter()
                for lo in range(10_000, 12_500, 500):
                    first = lo + (5000 if ids else 0)
                    await call.ok("memory_upsert_tracks", {"user_id": 1, "tracks": tracks(first, first + 500, ids)})
                print(f"upsert 500 new tracks, ids={ids}: {(time.perf_counter() - started) / 5 * 1000:.0f} ms a call")
            for label, text in (("ISRC", "GBUM7{:07d}"), ("Spotify link", "https://open.spotify.com/track/{}?si=x")):
                started = time.perf_counter()
                for n in range(20):
                    value = text.format(n if label == "ISRC" else track(n))
                    answer = await call.ok("memory_resolve_track", {"user_id": 1, "text": value})
                    assert answer["resolved"], value
                print(f"resolve a pasted {label}: {(time.perf_counter() - started) / 20 * 1000:.1f} ms a call")
            pid = playlist(1)
            ids = [track(n) for n in range(5000)]
            await call.ok(
                "memory_log_playlist_create", {"user_id": 1, "playlist_id": pid, "name": "big", "track_ids": ids}
            )
            arguments = {"user_id": 1, "playlist_id": pid, "target": "apple_music"}
            started = time.perf_counter()
            page = await call.ok("memory_playlist_portability", arguments)
            first, pages = time.perf_counter() - started, 1
            while page["next_cursor"]:
                page = await call.ok("memory_playlist_portability", {**arguments, "cursor": page["next_cursor"]})
                pages += 1
            whole = time.perf_counter() - started
            print(f"portability of 5,000 tracks: first page {first * 1000:.0f} ms, {pages} pages {whole * 1000:.0f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--others", type=int, default=0, help="other users, 2,000 tracks each")
    asyncio.run(main(parser.parse_args().others))
