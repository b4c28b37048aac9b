"""Load: 32 concurrent SSE sessions, a mixed workload with exports and deletes, for a fixed
window; errors, timeouts, latency per kind of call, and the server's event-loop lag over the
window (issue 9: 0 errors, 0 timeouts, read p95 ≤ 50 ms, lag p99 ≤ 50 ms)."""

from __future__ import annotations

import asyncio
import sys
import time
import urllib.error

from service.auth import TokenStore

from ..context import Run
from ..load_mix import CATEGORIES, MIX, LoadSession, Outcome, category, victims_of
from ..loader import WRITER
from ..processes import service_http, sse_clients
from ..promstats import Histogram, histograms, scrape
from ..report import ms, pct

LAG = "taste_memory_event_loop_lag_seconds"
TOOL_LATENCY = "taste_memory_tool_call_seconds"
UNAVAILABLE = "unavailable: server exposes no event-loop lag"
VICTIMS_PER_SESSION = 200
STORE_USERS = 10  # realistic users in the store; sessions read the first ``load_readers`` of them


async def metrics(base: str) -> str:
    try:
        return await asyncio.to_thread(scrape, base)
    except (OSError, urllib.error.URLError) as exc:
        print(f"  (GET {base}/metrics failed: {exc})", file=sys.stderr, flush=True)
        return ""


def server_side(before: str, after: str) -> dict[str, Histogram]:
    """The server's own tool-call latency over the window, merged per kind of call."""
    merged: dict[str, Histogram] = {}
    old = histograms(before, TOOL_LATENCY)
    for labels, series in histograms(after, TOOL_LATENCY).items():
        tool = dict(labels).get("tool", "").replace(".", "_")
        kind = category(tool) if tool in dict(MIX) else None
        if kind is not None:
            merged[kind] = merged.get(kind, Histogram()).plus(series.minus(old.get(labels)))
    return merged


async def run(ctx: Run) -> None:
    report, plan, work = ctx.report, ctx.plan, ctx.work
    n = plan.load_sessions
    store = await ctx.stores.realistic(max(STORE_USERS, plan.load_readers), work / "load-store")
    tokens = TokenStore(store / "tokens.json")
    sessions_users = []
    headers = []
    for s in range(n):
        reader, writer, victims = s % plan.load_readers + 1, WRITER + 1 + s, victims_of(s, VICTIMS_PER_SESSION)
        token, _ = tokens.create("user", [reader, writer, *victims], label=f"bench load session {s}")
        sessions_users.append((reader, writer, victims))
        headers.append({"Authorization": f"Bearer {token}"})
    with service_http(store, work) as base:
        opening = time.monotonic()
        async with sse_clients(f"{base}/sse", n, headers, timeout=plan.load_timeout) as clients:
            sessions = [LoadSession(s, clients[s], *sessions_users[s], plan.user.playlists, plan.load_timeout)
                        for s in range(n)]
            await asyncio.gather(*(session.setup() for session in sessions))
            print(f"  ({n} sessions open and set up in {time.monotonic() - opening:.1f} s)", flush=True)
            before = await metrics(base)
            began = time.monotonic()
            await asyncio.gather(*(session.run(began + plan.load_seconds, plan.load_max_calls) for session in sessions))
            wall = time.monotonic() - began
            after = await metrics(base)
    totals = {kind: Outcome() for kind in CATEGORIES}
    for session in sessions:
        for kind in CATEGORIES:
            totals[kind].add(session.outcomes[kind])
    everything = Outcome()
    for kind in CATEGORIES:
        everything.add(totals[kind])
    lost = sum(session.lost for session in sessions)
    calls = len(everything.latencies)
    section = report.section(
        "load", f"Load: {n} concurrent SSE sessions, mixed reads and writes with exports and deletes",
        ["load row", "calls", "errors", "timeouts", "rate-limited", "p50", "p95", "max", "server p95"],
        f"{n} SSE sessions, each with its own user token, for {plan.load_seconds:.0f} s (a call started in "
        f"the window may end after it; {wall:.1f} s in all) on a store of {STORE_USERS} realistic users "
        f"({plan.user.describe()}). Each session reads one of {plan.load_readers} users and writes its own: "
        + ", ".join(f"{tool.removeprefix('memory_')} {w}%" for tool, w in MIX)
        + "; a delete with no victim ready makes one first (a playlist create, counted as a write). "
        f"A call over {plan.load_timeout:.0f} s is a timeout; RATE_LIMITED answers are waited out "
        "(`retry_after_s`) and counted, not failed. Latencies are the client's (the same 2 cores run 32 "
        "clients and the server); \"server p95\" comes from the server's own tool-call histogram over the "
        f"window (bucket bounds interpolated). {calls:,} successful calls, {calls / wall:.0f} calls/s; "
        f"{lost} of {n} sessions lost (stopped after 5 failures in a row).",
    )
    server = server_side(before, after)
    for kind in (*CATEGORIES, "all"):
        outcome = everything if kind == "all" else totals[kind]
        series = Histogram()
        for name in CATEGORIES if kind == "all" else (kind,):
            series = series.plus(server.get(name, Histogram()))
        p95 = series.quantile(0.95)
        section.add(f"load {kind}", [str(len(outcome.latencies)), str(len(outcome.errors)), str(outcome.timeouts),
                                     str(outcome.backoffs), ms(pct(outcome.latencies, 50)),
                                     ms(pct(outcome.latencies, 95)),
                                     ms(max(outcome.latencies) if outcome.latencies else None),
                                     ms(p95 * 1000 if p95 is not None else None)])
        report.values[f"load.{kind}.p95"] = pct(outcome.latencies, 95)
    report.values["load.errors"] = len(everything.errors)
    report.values["load.timeouts"] = everything.timeouts
    report.values["load.sessions"] = n
    report.values["load.seconds"] = plan.load_seconds
    for error in everything.errors[:5]:
        print(f"  (load error: {error})", file=sys.stderr, flush=True)
    lag_table(ctx, before, after)


def lag_table(ctx: Run, before: str, after: str) -> None:
    section = ctx.report.section(
        "lag", "Event-loop lag of the server during the load window",
        ["event-loop lag", "samples", "mean ms", "p50 ms", "p99 ms", "max ≤ ms"],
        f"`{LAG}` read from `GET /metrics` just before and just after the window above; the figures are "
        "of the difference (the window only). The server measures how late a periodic asyncio sleep wakes "
        "up; percentiles are interpolated within buckets, max is the upper bound of the highest non-empty bucket.",
    )
    series = histograms(after, LAG)
    if not series:
        ctx.report.texts["load.lag"] = UNAVAILABLE
        section.add("event-loop lag", [UNAVAILABLE, "–", "–", "–", "–"])
        return
    old = histograms(before, LAG)
    window = Histogram()
    for labels, histogram in series.items():
        window = window.plus(histogram.minus(old.get(labels)))
    if window.count <= 0:
        ctx.report.texts["load.lag"] = "no lag samples in the window"
    p50, p99, top = window.quantile(0.5), window.quantile(0.99), window.max_bound()
    mean = window.total / window.count if window.count else None
    values = ctx.report.values
    for key, value in (("p50", p50), ("p99", p99), ("max", top)):
        if value is not None:
            values[f"load.lag.{key}"] = value * 1000
    section.add("event-loop lag", [f"{window.count:.0f}", ms(mean * 1000 if mean is not None else None),
                                   ms(p50 * 1000 if p50 is not None else None),
                                   ms(p99 * 1000 if p99 is not None else None),
                                   ms(top * 1000 if top is not None else None)])
