"""Embedded durability: what the SQLite journal (one transaction per call) adds to each write."""

from __future__ import annotations

from ..calling import timed
from ..context import Run
from ..loader import populate
from ..processes import in_process
from ..report import ms, pct, ratio
from ..workload import Workload

WRITES = [
    "memory_append_preference_event",
    "memory_log_playlist_mutation",
    "memory_update_profile",
    "memory_log_playlist_create",
]


async def run(ctx: Run) -> None:
    report, plan, work = ctx.report, ctx.plan, ctx.work
    section = report.section(
        "durability",
        "Embedded durability: write latency with the journal on and off (in process)",
        ["write tool", "journal on p50", "on p95", "journal off p50", "off p95", "on / off p50"],
        "`MEMORY_JOURNAL=true` commits every call to the SQLite journal before answering; off keeps the "
        f"store in memory only. Same store, {plan.durability_iters} calls after {plan.warmup} warm-up, in process.",
    )
    results: dict[bool, dict[str, list[float]]] = {}
    for journal in (True, False):
        store = work / f"durability-{'on' if journal else 'off'}"
        workload = Workload(plan.user)
        results[journal] = {}
        async with in_process(store, journal=journal) as (call, service):
            await populate(service, 1, plan.user, writer_playlists=1)
            for tool in WRITES:
                results[journal][tool] = await timed(
                    lambda i, t=tool: call(t, workload.args(t, 0, i)), plan.durability_iters, plan.warmup
                )
    for tool in WRITES:
        on, off = results[True][tool], results[False][tool]
        section.add(
            tool,
            [ms(pct(on, 50)), ms(pct(on, 95)), ms(pct(off, 50)), ms(pct(off, 95)), ratio(pct(on, 50), pct(off, 50))],
        )
