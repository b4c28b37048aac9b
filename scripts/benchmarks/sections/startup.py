"""Start-up and memory of ``memory-service serve``: from process start to /healthz, /readyz and the
first successful tool call, and the resident set size after start-up and after a few calls, on
stores of 1, 10 and 50 realistic users and of 1,000 small users."""

from __future__ import annotations

import time
from pathlib import Path

from mcp.client.client import Client
from mcp.client.sse import sse_client

from ..calling import client_caller
from ..constants import HOST
from ..context import Run
from ..data import QUERIES, playlist_id
from ..processes import answers_ready, free_port, serve_args, spawned, wait_until
from ..report import Section
from ..stores import store_mib

BOUND_S = 5.0


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS (resident now) and VmHWM (peak resident) of a process, in KiB, from /proc."""
    fields: dict[str, int] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0])
    except OSError:  # not Linux: the columns say so
        pass
    return fields


def mib(fields: dict[str, int], key: str) -> str:
    return f"{fields[key] / 1024:.0f}" if key in fields else "–"


async def one_store(ctx: Run, section: Section, label: str, key: str, users: int, store: Path, playlists: int) -> None:
    work, calls = ctx.work, ctx.plan.startup_calls
    port = free_port()
    log = work / f"startup-{key}-{port}.log"
    began = time.monotonic()
    with spawned(serve_args(store, port), log) as process:
        # A short poll: the figure is the process's start-up, not the probe's period.
        wait_until(process, lambda: answers_ready(port, "/healthz"), log, poll=0.01)
        healthz = time.monotonic() - began
        wait_until(process, lambda: answers_ready(port, "/readyz"), log, poll=0.01)
        readyz = time.monotonic() - began
        ready = memory_kib(process.pid)
        async with Client(sse_client(f"http://{HOST}:{port}/sse"), cache=None) as client:
            call = client_caller(client)
            await call("memory_get_profile", {"user_id": 1})
            first = time.monotonic() - began
            # Search may build its index lazily or in the background after start-up: its first call
            # is where a deferred start-up cost shows.
            await call("memory_search", {"user_id": 1, "query": QUERIES[0]})
            search = time.monotonic() - began
            # A few reads an agent makes in its first minutes, the export included (it builds big answers).
            reads = [
                ("ops_list_users", {"limit": 50}),
                ("memory_get_playlists", {"user_id": 1, "limit": 20}),
                ("memory_export_user_data", {"user_id": 1}),
            ]
            for i in range(calls):
                if i < len(reads):
                    await call(*reads[i])
                elif i % 2:
                    await call("memory_search", {"user_id": 1, "query": QUERIES[i % len(QUERIES)]})
                else:
                    await call(
                        "memory_reconstruct_playlist", {"user_id": 1, "playlist_id": playlist_id(1, i % playlists)}
                    )
        used = memory_kib(process.pid)
    values = ctx.report.values
    values[f"startup.{key}.readyz"] = readyz
    values[f"startup.{key}.first"] = first
    if "VmRSS" in used:
        values[f"startup.{key}.rss"] = used["VmRSS"] / 1024
    values[f"startup.{key}.search"] = search
    section.add(
        label,
        [
            f"{users:,}",
            f"{store_mib(store):.1f}",
            f"{healthz:.2f}",
            f"{readyz:.2f}",
            f"{first:.2f}",
            f"{search:.2f}",
            mib(ready, "VmRSS"),
            mib(used, "VmRSS"),
            mib(used, "VmHWM"),
        ],
    )


async def run(ctx: Run) -> None:
    plan, work = ctx.plan, ctx.work
    section = ctx.report.section(
        "startup",
        "Start-up and memory of memory-service serve (SSE, embedded store)",
        [
            "start-up row",
            "users",
            "store MiB",
            "to /healthz s",
            "to /readyz s",
            "to first call s",
            "to first search s",
            "RSS ready MiB",
            f"RSS after {plan.startup_calls} calls MiB",
            "peak RSS MiB",
        ],
        "Seconds from starting the process (`python -m host.cli serve`) until /healthz and /readyz answer "
        "200 (polled every 10 ms), until the first `memory_get_profile` answers over a new SSE session, and "
        "until a `memory_search` right after it answers (the first search pays for an index built lazily). "
        "RSS = VmRSS of the server process (/proc/PID/status) once ready and after "
        f"{plan.startup_calls} reads of user 1 (list_users, get_playlists, an export, searches, reconstructions); "
        f"peak = VmHWM. Realistic user: {plan.user.describe()} (store also holds the writer user); small user: "
        "a short profile, 2 preference events, 1 playlist of 10 tracks. Stores are fresh copies, not yet opened.",
    )
    for users in (1, 10, 50):
        store = await ctx.stores.realistic(users, work / f"startup-{users}")
        noun = "user" if users == 1 else "users"
        await one_store(
            ctx, section, f"start-up {users} {noun}", f"realistic{users}", users, store, plan.user.playlists
        )
    store = await ctx.stores.small(plan.small_users, work / "startup-small")
    await one_store(ctx, section, f"start-up {plan.small_users:,} small users", "small", plan.small_users, store, 1)
