"""Transport floor: a trivial tool on the same SDK, in process, over stdio and over SSE; every
per-tool figure is read against it."""

from __future__ import annotations

import sys

from bench_floor_server import floor_server
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from ..calling import client_caller, timed
from ..constants import ROOT
from ..context import Run
from ..processes import child_env, sse_callers, stdio_caller
from ..report import ms, pct, rate


async def run(ctx: Run) -> None:
    report, plan, work = ctx.report, ctx.plan, ctx.work
    section = report.section(
        "floor",
        "Transport floor: trivial MCP tool (same SDK, same client)",
        ["transport", "p50 ms", "p95 ms", "calls/s"],
        "`ping() -> str` on an `MCPServer` of the same SDK (scripts/bench_floor_server.py), "
        "called sequentially through the same `mcp.client.client.Client`.",
    )
    n = plan.iters * 2

    def add(label: str, key: str, samples: list[float]) -> None:
        report.values[key] = pct(samples, 50)
        section.add(label, [ms(pct(samples, 50)), ms(pct(samples, 95)), rate(1000 / (sum(samples) / len(samples)))])

    async with Client(floor_server(), cache=None) as client:
        call = client_caller(client)
        add("floor in process", "floor.inproc", await timed(lambda i: call("ping", {}), n, plan.warmup))
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "scripts" / "bench_floor_server.py"), "stdio"],
        env=child_env(),
        cwd=str(work),
    )
    async with stdio_caller(params, work / "floor-stdio.log") as (call, _):
        add("floor stdio", "floor.stdio", await timed(lambda i: call("ping", {}), n, plan.warmup))
    with ctx.floor_sse() as url:
        async with sse_callers(url, 1) as (call,):
            add("floor SSE", "floor.sse", await timed(lambda i: call("ping", {}), n, plan.warmup))
