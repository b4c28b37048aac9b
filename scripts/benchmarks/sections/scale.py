"""Scale: every tool with 1, 10 and 50 realistic users in one store, and the ratio of its
in-process p50 at 50 users to 1 user (the target: no call's cost grows with other users' data)."""

from __future__ import annotations

from ..calling import timed
from ..context import Run
from ..processes import in_process, service_sse, sse_callers
from ..report import ms, pct
from ..workload import TOOLS, Workload

SCALE_BOUND = 1.5


async def run(ctx: Run) -> None:
    report, plan, work = ctx.report, ctx.plan, ctx.work
    section = report.section(
        "scale",
        "Scale of the embedded engine: per tool with 1, 10 and 50 users in one store",
        ["users: tool", "in-proc p50", "in-proc p95", "SSE p50", "SSE p95"],
        f"Every user of realistic size ({plan.user.describe()}); reads address user 1, writes the writer "
        f"user. {plan.scale_iters} sequential calls after {plan.warmup} warm-up per tool and transport.",
    )
    p50: dict[int, dict[str, float]] = {}
    for users in plan.scale_users:
        store = await ctx.stores.realistic(users, work / f"scale-{users}")
        workload = Workload(plan.user)
        inproc: dict[str, list[float]] = {}
        async with in_process(store) as (call, _):
            for tool in TOOLS:
                await workload.prepare(call, tool, plan.warmup + plan.scale_iters)
                inproc[tool] = await timed(
                    lambda i, t=tool: call(t, workload.args(t, 0, i)), plan.scale_iters, plan.warmup
                )
        sse: dict[str, list[float]] = {}
        with service_sse(store, work) as url:
            async with sse_callers(url, 1) as (call,):
                for tool in TOOLS:
                    await workload.prepare(call, tool, plan.warmup + plan.scale_iters)
                    sse[tool] = await timed(
                        lambda i, t=tool: call(t, workload.args(t, 0, i)), plan.scale_iters, plan.warmup
                    )
        noun = "user" if users == 1 else "users"
        p50[users] = {tool: pct(inproc[tool], 50) for tool in TOOLS}
        for tool in TOOLS:
            a, b = inproc[tool], sse[tool]
            section.add(f"{users} {noun}: {tool}", [ms(pct(a, 50)), ms(pct(a, 95)), ms(pct(b, 50)), ms(pct(b, 95))])
    few, many = min(plan.scale_users), max(plan.scale_users)
    ratios = report.section(
        "scale-ratio",
        f"Scale ratio: in-process p50 at {many} users / at {few} user",
        ["ratio: tool", f"{few} user p50", f"{many} users p50", "ratio", f"≤ {SCALE_BOUND}×"],
        "From the table above (same run). Scale target: every tool within "
        f"{SCALE_BOUND}× of its cost with one user in the store.",
    )
    for tool in TOOLS:
        a, b = p50[few][tool], p50[many][tool]
        share = b / a if a > 0 else float("nan")
        report.values[f"scale.{tool}.ratio"] = share
        ratios.add(
            f"{many}/{few} users: {tool}", [ms(a), ms(b), f"{share:.2f}×", "met" if share <= SCALE_BOUND else "missed"]
        )
