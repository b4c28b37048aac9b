"""Per tool on one realistic user: in process, over SSE, with 8 and 32 concurrent SSE sessions;
and each tool's SSE overhead against the trivial tool's (a target: at most 1.5×)."""

from __future__ import annotations

import json
from typing import Any

from bench_floor_server import floor_server
from mcp.client.client import Client

from ..calling import client_caller, concurrent, paired
from ..context import Run
from ..loader import build_store
from ..processes import in_process, service_sse, sse_callers
from ..report import loaded, ms, pct, rate, ratio
from ..workload import TOOLS, Workload

SMALL_ANSWER = 20_000  # bytes: the overhead target covers tools whose answer is smaller
OVERHEAD_BOUND = 1.5


def answer_bytes(envelope: Any) -> int:
    """Size of the envelope as the JSON text an agent receives (compact, UTF-8)."""
    return len(json.dumps(envelope, separators=(",", ":"), ensure_ascii=False, default=str).encode())


async def run(ctx: Run) -> None:
    report, plan, work = ctx.report, ctx.plan, ctx.work
    store = work / "tools-store"
    seconds = await build_store(store, 1, plan.user, writer_playlists=33)
    section = report.section(
        "tools",
        "Per tool: one realistic user, in process and over SSE",
        [
            "tool",
            "in-proc p50",
            "in-proc p95",
            "SSE p50",
            "SSE p95",
            "SSE p50 / floor",
            "seq calls/s",
            "8 sess calls/s",
            "8 sess p95",
            "32 sess calls/s",
            "32 sess p95",
        ],
        f"Store: 1 user ({plan.user.describe()}; built in {seconds:.1f} s), plus the writer user the write "
        "tools write to; `memory_delete_user_data` deletes small users (profile, 2 events, 1 playlist) made "
        "untimed just before. "
        f"Sequential: {plan.warmup} warm-up + {plan.iters} calls. Concurrent: N SSE sessions, "
        f"{plan.conc_warmup} warm-up then {plan.conc_calls} calls each; calls/s = all calls / wall time. "
        "\"floor\" = the trivial tool's SSE p50, measured interleaved with this tool's calls (one `ping` on its "
        "own server after each call).",
    )
    workload = Workload(plan.user)
    inproc: dict[str, list[float]] = {}
    floor_in: dict[str, list[float]] = {}
    last: dict[str, Any] = {}  # each tool's last in-process answer, to size it
    async with in_process(store) as (call, _), Client(floor_server(), cache=None) as floor_client:
        ping = client_caller(floor_client)
        for tool in TOOLS:
            await workload.prepare(call, tool, plan.warmup + plan.iters)

            async def one(i: int, t: str = tool) -> None:
                last[t] = await call(t, workload.args(t, 0, i))

            inproc[tool], floor_in[tool] = await paired(one, lambda: ping("ping", {}), plan.iters, plan.warmup)
    sse: dict[str, list[float]] = {}
    floor_out: dict[str, list[float]] = {}
    conc: dict[int, dict[str, tuple[float, list[float], list[str]]]] = {8: {}, 32: {}}
    with service_sse(store, work) as url, ctx.floor_sse() as floor_url:
        async with sse_callers(url, 1) as (call,), sse_callers(floor_url, 1) as (ping,):
            for tool in TOOLS:
                await workload.prepare(call, tool, plan.warmup + plan.iters)
                sse[tool], floor_out[tool] = await paired(
                    lambda i, t=tool: call(t, workload.args(t, 0, i)), lambda: ping("ping", {}), plan.iters, plan.warmup
                )
        for sessions in (8, 32):
            async with sse_callers(url, sessions) as callers:
                for tool in TOOLS:
                    await workload.prepare(callers[0], tool, sessions * (plan.conc_calls + plan.conc_warmup))
                    conc[sessions][tool] = await concurrent(
                        callers, lambda s, i, t=tool: (t, workload.args(t, s, i)), plan.conc_calls, plan.conc_warmup
                    )
    for tool in TOOLS:
        a, b, floor = inproc[tool], sse[tool], pct(floor_out[tool], 50)
        report.values[f"tool.{tool}.sse.p50"] = pct(b, 50)
        report.values[f"tool.{tool}.inproc.p50"] = pct(a, 50)
        report.values[f"tool.{tool}.floor.sse.p50"] = floor
        section.add(
            tool,
            [
                ms(pct(a, 50)),
                ms(pct(a, 95)),
                ms(pct(b, 50)),
                ms(pct(b, 95)),
                ratio(pct(b, 50), floor),
                rate(1000 / (sum(b) / len(b))),
                loaded(conc[8][tool]),
                ms(pct(conc[8][tool][1], 95)),
                loaded(conc[32][tool]),
                ms(pct(conc[32][tool][1], 95)),
            ],
        )
    sizes = {tool: answer_bytes(answer) for tool, answer in last.items()}
    overhead_table(ctx, inproc, sse, floor_in, floor_out, sizes)


def overhead_table(
    ctx: Run,
    inproc: dict[str, list[float]],
    sse: dict[str, list[float]],
    floor_in: dict[str, list[float]],
    floor_out: dict[str, list[float]],
    sizes: dict[str, int],
) -> None:
    """What SSE adds to each tool (SSE p50 − in-process p50) over what it adds to the trivial tool:
    the transport's own cost is the same for both, so a larger gap is per-call work the service does
    around the handler (logging, validation, encoding, the client's schema validation)."""
    report = ctx.report
    section = report.section(
        "overhead",
        "SSE overhead per tool vs the trivial tool's (same run)",
        [
            "tool",
            "answer kB",
            "in-proc p50",
            "SSE p50",
            "SSE overhead",
            "floor overhead",
            "overhead / floor's",
            f"≤ {OVERHEAD_BOUND}×",
        ],
        "SSE overhead = SSE p50 − in-process p50 of the table above; floor overhead = the same for the trivial "
        "tool, from the `ping` calls interleaved with this tool's (so both figures see the same machine load). "
        "Answer = the envelope as compact JSON, from the last in-process call. "
        f"The overhead target covers tools whose answer is under {SMALL_ANSWER // 1000} kB.",
    )
    floors = []
    for tool in TOOLS:
        a, b = pct(inproc[tool], 50), pct(sse[tool], 50)
        floor = pct(floor_out[tool], 50) - pct(floor_in[tool], 50)
        floors.append(floor)
        gap = b - a
        size = sizes.get(tool, 0)
        share = gap / floor if floor and floor > 0 else None
        if size >= SMALL_ANSWER:
            verdict = "not judged (≥ 20 kB)"
        elif share is None:
            verdict = "– (no floor figure)"
        else:
            verdict = "met" if share <= OVERHEAD_BOUND else "missed"
            report.values[f"overhead.{tool}.ratio"] = share
        report.values[f"overhead.{tool}.ms"] = gap
        section.add(
            f"SSE overhead: {tool}",
            [
                f"{size / 1000:.1f}",
                ms(a),
                ms(b),
                ms(gap),
                ms(floor),
                "–" if share is None else f"{share:.2f}×",
                verdict,
            ],
        )
    report.values["overhead.floor"] = sorted(floors)[len(floors) // 2]  # the median, for the targets line
