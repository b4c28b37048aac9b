"""MRR and top-5 of the labelled query set, overall and per category."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from tests.search.corpus import MAIN_USER
from tests.search.queries import QUERIES


async def evaluate(
    service: Any, ids: dict[str, str], limit: int = 10, queries: list[tuple[str, str, str]] = QUERIES
) -> dict[str, Any]:
    by_category: dict[str, list[int | None]] = defaultdict(list)
    misses = []
    for query, key, category in queries:
        hits = await service.search.search(MAIN_USER, query, limit)
        ranks = [i + 1 for i, hit in enumerate(hits) if hit["id"] == ids[key]]
        rank = ranks[0] if ranks else None
        by_category[category].append(rank)
        if rank != 1:
            misses.append((query, key, rank, [h["id"] for h in hits[:3]]))
    every = [r for ranks in by_category.values() for r in ranks]
    return {
        "all": _summary(every),
        "categories": {c: _summary(r) for c, r in sorted(by_category.items())},
        "misses": misses,
    }


def _summary(ranks: list[int | None]) -> dict[str, float]:
    return {
        "queries": len(ranks),
        "mrr": sum(1 / r for r in ranks if r) / len(ranks),
        "top5": sum(1 for r in ranks if r and r <= 5) / len(ranks),
    }


def table(report: dict[str, Any]) -> str:
    lines = [f"{'category':<12} {'queries':>7} {'MRR':>6} {'top-5':>6}"]
    for name, row in [*report["categories"].items(), ("all", report["all"])]:
        lines.append(f"{name:<12} {row['queries']:>7} {row['mrr']:>6.3f} {row['top5']:>6.1%}")
    return "\n".join(lines)


async def absent_answers(service: Any, queries: list[str], limit: int = 10) -> list[list[dict[str, Any]]]:
    """What search answers each query about something never stored (the main user's)."""
    return [await service.search.search(MAIN_USER, query, limit) for query in queries]


def share_silent(answers: list[list[dict[str, Any]]]) -> float:
    """The share of queries answered with no hit at all."""
    return sum(1 for hits in answers if not hits) / len(answers)
