"""Load: 32 concurrent SSE sessions, a mixed workload with exports and deletes; errors, timeouts,
latency per kind of call and the server's event-loop lag, first paced (agents pausing between
calls, judged against the load target: 0 errors, 0 timeouts, read p95 ≤ 50 ms, lag p99 ≤ 50 ms), then
saturated (no pauses: throughput, and whether long calls still finish under pressure).

Why two phases: with no pause, each session sends its next call the moment the last answers, so
latency = sessions / throughput whatever the server does (32 sessions at 200 calls/s is 160 ms);
a latency target is only meaningful at an offered load below capacity."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from service.auth.tokens import TokenStore

from ..context import Run
from ..load_metrics import lag_rows, metrics, server_side
from ..load_mix import CATEGORIES, MIX, LoadSession, Outcome, victims_of
from ..loader import WRITER
from ..processes import cpu_seconds, service_process, sse_clients
from ..report import ms, pct

VICTIMS_PER_SESSION = 200
STORE_USERS = 10  # realistic users in the store; sessions read the first ``load_readers`` of them


@dataclass
class Phase:
    name: str  # row prefix: "load" (paced) or "saturated"
    seconds: float
    think_s: float
    totals: dict[str, Outcome] = field(default_factory=dict)
    wall: float = 0.0
    before: str = ""
    after: str = ""
    client_cpu: float = 0.0  # share of one core, this process (the 32 clients)
    server_cpu: float | None = None  # share of one core, the server process
    lost: int = 0


async def run_phase(phase: Phase, sessions: list[LoadSession], base: str, pid: int, max_calls: int) -> None:
    phase.before = await metrics(base)
    server_cpu, client_cpu = cpu_seconds(pid), time.process_time()
    began = time.monotonic()
    await asyncio.gather(*(s.run(began + phase.seconds, max_calls, phase.think_s) for s in sessions))
    phase.wall = time.monotonic() - began
    phase.client_cpu = (time.process_time() - client_cpu) / phase.wall
    server_after = cpu_seconds(pid)
    if server_cpu is not None and server_after is not None:
        phase.server_cpu = (server_after - server_cpu) / phase.wall
    phase.after = await metrics(base)
    phase.totals = {kind: Outcome() for kind in (*CATEGORIES, "all")}
    for session in sessions:
        for kind in CATEGORIES:
            phase.totals[kind].add(session.outcomes[kind])
            phase.totals["all"].add(session.outcomes[kind])
    phase.lost = sum(session.lost for session in sessions)


def describe(phase: Phase) -> str:
    calls = len(phase.totals["all"].latencies)
    cpu = f"server {phase.server_cpu:.0%}" if phase.server_cpu is not None else "server –"
    pause = f"pauses of {phase.think_s:.1f} s mean" if phase.think_s else "no pauses"
    return (
        f'"{phase.name}": {phase.seconds:.0f} s window, {pause}, {phase.wall:.1f} s with the calls in flight at '
        f"its end; {calls:,} successful calls, {calls / phase.wall:.0f} calls/s; CPU (share of one core): "
        f"clients {phase.client_cpu:.0%}, {cpu}; {phase.lost} sessions lost"
    )


async def run(ctx: Run) -> None:
    report, plan, work = ctx.report, ctx.plan, ctx.work
    n = plan.load_sessions
    store = await ctx.stores.realistic(max(STORE_USERS, plan.load_readers), work / "load-store")
    tokens = TokenStore(store / "tokens.json")
    users, headers = [], []
    for s in range(n):
        reader, writer, victims = s % plan.load_readers + 1, WRITER + 1 + s, victims_of(s, VICTIMS_PER_SESSION)
        token, _ = tokens.create("user", [reader, writer, *victims], label=f"bench load session {s}")
        users.append((reader, writer, victims))
        headers.append({"Authorization": f"Bearer {token}"})
    phases = [Phase("load", plan.load_seconds, plan.load_think_s), Phase("saturated", plan.load_saturated_seconds, 0.0)]
    with service_process(store, work) as (base, process):
        opening = time.monotonic()
        async with sse_clients(f"{base}/sse", n, headers, timeout=plan.load_timeout) as clients:
            sessions = [LoadSession(s, clients[s], *users[s], plan.user.playlists, plan.load_timeout) for s in range(n)]
            await asyncio.gather(*(session.setup() for session in sessions))
            print(f"  ({n} sessions open and set up in {time.monotonic() - opening:.1f} s)", flush=True)
            for phase in phases:
                await run_phase(phase, sessions, base, process.pid, plan.load_max_calls)
    section = report.section(
        "load",
        f"Load: {n} concurrent SSE sessions, mixed reads and writes with exports and deletes",
        ["load row", "calls", "errors", "timeouts", "rate-limited", "p50", "p95", "max", "server p95"],
        f"{n} SSE sessions, each with its own user token, on a store of {STORE_USERS} realistic users "
        f"({plan.user.describe()}). Each session reads one of {plan.load_readers} users and writes its own: "
        + ", ".join(f"{tool.removeprefix('memory_')} {w}%" for tool, w in MIX)
        + "; a delete with no victim ready makes one first (a playlist create, counted as a write). "
        f"A call over {plan.load_timeout:.0f} s is a timeout; RATE_LIMITED answers are waited out "
        "(`retry_after_s`) and counted, not failed. Latencies are the client's, from the last attempt; "
        '"server p95" comes from the server\'s own tool-call histogram over the window (validation to '
        "envelope, interpolated within buckets: queueing before the handler is not in it). "
        + "; ".join(describe(phase) for phase in phases)
        + ". A session is lost after 5 failures in a row.",
    )
    for phase in phases:
        server = server_side(phase.before, phase.after)
        for kind in (*CATEGORIES, "all"):
            outcome = phase.totals[kind]
            p95 = server.get(kind)
            section.add(
                f"{phase.name} {kind}",
                [
                    str(len(outcome.latencies)),
                    str(len(outcome.errors)),
                    str(outcome.timeouts),
                    str(outcome.backoffs),
                    ms(pct(outcome.latencies, 50)),
                    ms(pct(outcome.latencies, 95)),
                    ms(max(outcome.latencies) if outcome.latencies else None),
                    ms(p95),
                ],
            )
            report.values[f"{phase.name}.{kind}.p95"] = pct(outcome.latencies, 95)
            if p95 is not None:
                report.values[f"{phase.name}.{kind}.server.p95"] = p95
        report.values[f"{phase.name}.errors"] = len(phase.totals["all"].errors)
        report.values[f"{phase.name}.timeouts"] = phase.totals["all"].timeouts
        for error in phase.totals["all"].errors[:5]:
            print(f"  ({phase.name} error: {error})", flush=True)
    report.values["load.sessions"] = n
    report.values["load.seconds"] = plan.load_seconds
    report.values["load.think"] = plan.load_think_s
    lag_rows(ctx, [(phase.name, phase.before, phase.after) for phase in phases])
