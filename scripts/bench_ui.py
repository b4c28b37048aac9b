#!/usr/bin/env python
"""The memory page's server time: each page's first load, in process, for a user with
50 playlists and 5,000 typed memories.

A page load is the shell (``GET /ui/``, the stylesheet, every ES module, the icon, ``GET
/ui/api/session``), then the page's own tool calls (``PAGES``), in the order the browser asks them.
Server time is the sum of those requests' latencies against the app ``serve`` builds (httpx over
ASGI, no network, no browser), p50/p95/max over ``--loads`` loads per page.

    python scripts/bench_ui.py [--playlists 50] [--memories 5000] [--loads 30]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from host.app import build_app
from service.settings import Settings

USER = 1
STATIC = Path(__file__).resolve().parent.parent / "ui" / "static"
# Each page's own tool calls through POST /ui/api/tools/<tool>, as ui/static/*.js makes them and in
# that order (a listing page asks for its first 50).
PAGES: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "overview": [("memory_status", {}), ("memory_inspect", {})],
    "playlists": [("memory_status", {}), ("memory_get_playlists", {"limit": 50})],
    "memories": [("memory_status", {}), ("memory_query", {"limit": 50})],
    "profile": [("memory_inspect", {})],
    "export": [("memory_status", {})],
}
TYPES = ["recommendation", "insight", "event", "feedback", "discussion"]


async def _post(client: httpx.AsyncClient, tool: str, arguments: dict[str, Any], csrf: str) -> float:
    started = time.perf_counter()
    answer = await client.post(
        f"/ui/api/tools/{tool}", json={"user_id": USER, **arguments}, headers={"X-CSRF-Token": csrf}
    )
    seconds = time.perf_counter() - started
    envelope = answer.json()
    if answer.status_code != 200 or not envelope.get("success"):
        raise SystemExit(f"{tool} failed: {answer.status_code} {envelope}")
    return seconds


async def _shell(client: httpx.AsyncClient) -> float:
    total = 0.0
    for path in ["/ui/", *(f"/ui/static/{p.name}" for p in sorted(STATIC.iterdir())), "/ui/api/session"]:
        started = time.perf_counter()
        answer = await client.get(path)
        total += time.perf_counter() - started
        if answer.status_code != 200:
            raise SystemExit(f"GET {path}: {answer.status_code}")
    return total


async def _fill(client: httpx.AsyncClient, csrf: str, playlists: int, memories: int) -> None:
    await _post(
        client,
        "memory_update_profile",
        {"patch": {"likes": ["late-night jazz", "symphonic metal"]}, "reason": "bench", "source": "user"},
        csrf,
    )
    for n in range(playlists):
        await _post(
            client,
            "memory_log_playlist_create",
            {
                "playlist_id": f"playlist{n:018d}",
                "name": f"Mix {n}",
                "intent_tags": ["bench"],
                "track_ids": [f"track{n:06d}{i:010d}" for i in range(20)],
            },
            csrf,
        )
    for n in range(memories):
        await _post(
            client,
            "memory_add",
            {
                "type": TYPES[n % len(TYPES)],
                "entities": [f"Artist {n}"],
                "importance": 1 + n % 10,
                "summary": f"Said something about artist {n} on day {n // 50}",
            },
            csrf,
        )


async def run(playlists: int, memories: int, loads: int) -> dict[str, list[tuple[float, float]]]:
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(data_dir=Path(data), search_warmup=False, aging_interval_s=0, rate_limit_per_minute=0)
        app, _, _ = build_app(settings)
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://127.0.0.1:8765") as client,
        ):
            csrf = (await client.post("/ui/api/session", json={})).json()["csrf"]  # open mode, loopback
            started = time.perf_counter()
            await _fill(client, csrf, playlists, memories)
            print(
                f"filled {playlists} playlists, {memories} memories in {time.perf_counter() - started:.1f} s",
                file=sys.stderr,
            )
            times: dict[str, list[tuple[float, float]]] = {name: [] for name in PAGES}  # (shell, tool calls)
            for _ in range(loads):
                for name, calls in PAGES.items():
                    shell = await _shell(client)
                    tools = 0.0
                    for tool, arguments in calls:
                        tools += await _post(client, tool, arguments, csrf)
                    times[name].append((shell, tools))
            return times


def _commit() -> str:
    root = Path(__file__).resolve().parent.parent
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout.strip()
    return head + (" plus uncommitted changes" if dirty else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--playlists", type=int, default=50)
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--loads", type=int, default=30)
    args = parser.parse_args()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request otherwise
    times = asyncio.run(run(args.playlists, args.memories, args.loads))
    with open("/proc/cpuinfo") as info:
        cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), "?")
    print(f"machine: {cpu}, Python {platform.python_version()}; commit {_commit()}")
    print(f"user with {args.playlists} playlists and {args.memories} memories, {args.loads} loads per page, ms\n")
    print("| page | requests | p50 | p95 | max | of which tool calls p50 | p95 |\n|---|---:|---:|---:|---:|---:|---:|")
    shell = 2 + len(list(STATIC.iterdir()))
    for name, values in times.items():
        total, tools = _percentiles([s + t for s, t in values]), _percentiles([t for _, t in values])
        print(
            f"| {name} | {shell + len(PAGES[name])} | {total[0]:.1f} | {total[1]:.1f} | {total[2]:.1f} | "
            f"{tools[0]:.1f} | {tools[1]:.1f} |"
        )


def _percentiles(seconds: list[float]) -> tuple[float, float, float]:
    """(p50, p95, max) in ms."""
    ms = sorted(v * 1000 for v in seconds)
    return statistics.median(ms), ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))], ms[-1]


if __name__ == "__main__":
    main()
