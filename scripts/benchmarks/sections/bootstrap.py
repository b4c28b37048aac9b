"""Bootstrap: ``ops_list_users``, the playbook's first call, at 50 realistic users and at 1,000
small users (the scale target: p95 ≤ 5 ms in process at both)."""

from __future__ import annotations

from pathlib import Path

from ..calling import timed
from ..context import Run
from ..processes import in_process
from ..report import Section, ms, pct

BOUND_MS = 5.0
REALISTIC = 50


async def one_store(ctx: Run, section: Section, label: str, key: str, users: int, store: Path) -> None:
    plan = ctx.plan
    listed: list[int] = []
    async with in_process(store) as (call, _):

        async def one(i: int) -> None:
            answer = await call("ops_list_users", {"limit": 50})
            listed.append(len(answer["result"]["users"]))

        samples = await timed(one, plan.list_users_iters, plan.warmup, plan.budget)
    p95 = pct(samples, 95)
    ctx.report.values[f"list_users.{key}.p95"] = p95
    ctx.report.values[f"list_users.{key}.p50"] = pct(samples, 50)
    section.add(
        label,
        [
            f"{users:,}",
            str(len(samples)),
            str(listed[-1] if listed else 0),
            ms(pct(samples, 50)),
            ms(p95),
            ms(max(samples)),
            "met" if p95 <= BOUND_MS else "missed",
        ],
    )


async def run(ctx: Run) -> None:
    plan, work = ctx.plan, ctx.work
    section = ctx.report.section(
        "bootstrap",
        "Bootstrap: ops_list_users in process at 50 realistic and 1,000 small users",
        ["list_users row", "users in store", "calls", "listed", "p50", "p95", "max", f"p95 ≤ {BOUND_MS:.0f} ms"],
        f"`ops_list_users` with `limit` 50 (the schema's default) through the in-process MCP client, "
        f"{plan.list_users_iters} calls after {plan.warmup} warm-up. Realistic user: {plan.user.describe()} "
        "(plus the writer user); small user: a short profile, 2 preference events, 1 playlist of 10 tracks.",
    )
    store = await ctx.stores.realistic(REALISTIC, work / "bootstrap-realistic")
    await one_store(ctx, section, f"list_users {REALISTIC} realistic users", "realistic", REALISTIC + 1, store)
    store = await ctx.stores.small(plan.small_users, work / "bootstrap-small")
    await one_store(ctx, section, f"list_users {plan.small_users:,} small users", "small", plan.small_users, store)
