"""Search: ``memory_search`` at growing sizes of one user, through MCP and through the facade."""

from __future__ import annotations

import random
import time
from datetime import timedelta

from service.facade import MemoryService

from ..calling import timed
from ..constants import SIZE_NAMES, T0
from ..context import Run
from ..data import QUERIES
from ..loader import Loader
from ..plan import warm
from ..processes import in_process
from ..report import ms, pct


async def load_search_corpus(service: MemoryService, user: int, items: int) -> None:
    """``items`` searchable items of one user: 80% preference events, 20% playlists."""
    loader = Loader(service)
    rng = random.Random(items)
    playlists = items // 5
    for i in range(items - playlists):
        await loader.event(user, i, rng, T0 + timedelta(seconds=i))
    for n in range(playlists):
        await loader.playlist(user, n, 8, 0, rng, T0 + timedelta(minutes=n))
    loader.commit()


async def run(ctx: Run) -> None:
    report, plan, work = ctx.report, ctx.plan, ctx.work
    section = report.section(
        "search",
        "Search: memory_search at growing sizes (one user)",
        ["search row", "items", "load s", "calls", "MCP p50", "MCP p95", "facade p50", "facade p95", "hits/query"],
        "Items of one user: 80% preference events (mood, genre, artist, a phrase), 20% playlists (name, "
        f"tags, description, seed context); queries cycle over {len(QUERIES)} fixed queries "
        f"({', '.join(repr(q) for q in QUERIES[:4])}, ...), limit 25. Up to {plan.search_iters} calls {warm(plan)}. "
        "scripts/bench_search.py measures quality as well.",
    )
    for name, items in zip(SIZE_NAMES, plan.search_sizes):
        store = work / f"search-{name}"
        async with in_process(store) as (call, service):
            start = time.perf_counter()
            await load_search_corpus(service, 1, items)
            load = time.perf_counter() - start
            hits: list[int] = []

            async def one(i: int) -> None:
                result = await call("memory_search", {"user_id": 1, "query": QUERIES[i % len(QUERIES)]})
                hits.append(len(result["result"]["results"]))

            mcp_samples = await timed(one, plan.search_iters, plan.warmup, plan.budget)
            facade = await timed(
                lambda i: service.search.search(1, QUERIES[i % len(QUERIES)], 25),
                plan.search_iters,
                plan.warmup,
                plan.budget,
            )
        report.values[f"search.{name}.p95"] = pct(mcp_samples, 95)
        report.values[f"search.{name}.items"] = items
        section.add(
            f"search {name}",
            [
                f"{items:,}",
                f"{load:.1f}",
                str(len(mcp_samples)),
                ms(pct(mcp_samples, 50)),
                ms(pct(mcp_samples, 95)),
                ms(pct(facade, 50)),
                ms(pct(facade, 95)),
                f"{sum(hits) / len(hits):.1f}",
            ],
        )
