#!/usr/bin/env python
"""Search that knows when it does not know, measured: paraphrase MRR, absent-set precision and
their memory_query counterparts, with every precision rule switched off in turn (the ablation).

    python scripts/bench_search_precision.py [--calibrate] [--rows shipped,...]

Each row loads ``tests/search/corpus.py``'s corpus and ``tests/memories/query_sets.py``'s memories
into a fresh in-process service. "Absent precision" is the share of absent queries that return no
hit at all. ``--calibrate`` fits ``service.search.confidence`` on the development sets only.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.search.semantic import model, query  # noqa: E402
from service.settings import Settings  # noqa: E402
from tests.memories.query_sets import MEMORY_ABSENT, MEMORY_PARAPHRASES, load_memories  # noqa: E402
from tests.search.absent import ABSENT_QUERIES, DEV_ABSENT_QUERIES  # noqa: E402
from tests.search.corpus import MAIN_USER, build_corpus, load  # noqa: E402
from tests.search.evaluate import absent_answers, evaluate, share_silent  # noqa: E402
from tests.search.paraphrases import PARAPHRASES  # noqa: E402
from tests.search.paraphrases_heldout import HELDOUT_PARAPHRASES  # noqa: E402
from tests.support import connected  # noqa: E402

SHIPPED = query.RULES
NO_RULES = query.PrecisionRules(False, True, False, 0.35, 0.25, False, 0.0, 0.0)
ROWS: dict[str, dict[str, Any]] = {
    "shipped": {},
    "without known words only": {"rules": replace(SHIPPED, known_words_only=False)},
    "unknown words weigh nothing": {"rules": replace(SHIPPED, unknown_words_weigh=False)},
    "without known stand-ins only": {"rules": replace(SHIPPED, known_neighbours_only=False)},
    "stand-ins from similarity 0.35 (was)": {"rules": replace(SHIPPED, neighbour_min_similarity=0.35)},
    "no least confidence": {"rules": replace(SHIPPED, min_confidence=0.0)},
    "no share of the best": {"rules": replace(SHIPPED, share_of_best=0.0)},
    "flat floor 0.32": {"rules": replace(SHIPPED, floor=0.32, floor_by_words=False)},
    "flat floor 0.25 (was)": {"rules": replace(SHIPPED, floor=0.25, floor_by_words=False)},
    "no precision rule": {"rules": NO_RULES},
    "wordllama alone and no precision rule (was)": {"rules": NO_RULES, "table": False},
    "wordllama alone and shipped rules": {"table": False},
    "meaning off": {"semantic": False},
}


@contextmanager
def configured(rules: query.PrecisionRules = SHIPPED, table: bool = True) -> Iterator[None]:
    query.RULES, model.WITH_TABLE = rules, table
    model.shared_model.cache_clear()
    try:
        yield
    finally:
        query.RULES, model.WITH_TABLE = SHIPPED, True
        model.shared_model.cache_clear()


async def memory_ranks(call: Any, ids: dict[str, str]) -> tuple[list[int | None], list[bool], int]:
    ranks: list[int | None] = []
    for text, key, _ in MEMORY_PARAPHRASES:
        rows = (await call.ok("memory_query", {"user_id": 1, "text": text, "limit": 10}))["memories"]
        found = [i + 1 for i, row in enumerate(rows) if row["memory_id"] == ids[key]]
        ranks.append(found[0] if found else None)
    silent = 0
    for text in MEMORY_ABSENT:
        silent += not (await call.ok("memory_query", {"user_id": 1, "text": text, "limit": 10}))["memories"]
    return ranks, [held for *_, held in MEMORY_PARAPHRASES], silent


def mrr(ranks: list[int | None]) -> float:
    return sum(1 / r for r in ranks if r) / len(ranks) if ranks else float("nan")


async def measure(semantic: bool = True, **options: Any) -> dict[str, Any]:
    with configured(**options), tempfile.TemporaryDirectory() as data:
        settings = Settings(data_dir=data, journal=False, semantic_search="on" if semantic else "off")
        async with connected(settings) as call:
            ids = await load(call.service, build_corpus())
            report: dict[str, Any] = {
                "existing": (await evaluate(call.service, ids))["all"]["mrr"],
                "dev": await evaluate(call.service, ids, queries=PARAPHRASES),
                "held": await evaluate(call.service, ids, queries=HELDOUT_PARAPHRASES),
                "absent": await absent_answers(call.service, [q for q, _ in ABSENT_QUERIES]),
                "dev_absent": await absent_answers(call.service, DEV_ABSENT_QUERIES),
            }
            report["memory"] = await memory_ranks(call, await load_memories(call))
            report["ids"] = ids
    return report


def row_cells(report: dict[str, Any]) -> list[str]:
    dev, held = report["dev"]["all"], report["held"]["all"]
    whole = (dev["mrr"] * dev["queries"] + held["mrr"] * held["queries"]) / (dev["queries"] + held["queries"])
    unseen = [a for (q, _), a in zip(ABSENT_QUERIES, report["absent"], strict=True) if q not in DEV_ABSENT_QUERIES]
    ranks, held_out, silent = report["memory"]
    return [
        f"{report['existing']:.3f}",
        f"{whole:.3f}",
        f"{dev['mrr']:.3f}",
        f"{held['mrr']:.3f}",
        f"{share_silent(report['absent']):.1%}",
        f"{share_silent(unseen):.1%}",
        f"{share_silent(report['dev_absent']):.1%}",
        f"{mrr([r for r, h in zip(ranks, held_out, strict=True) if h]):.3f}",
        f"{silent / len(MEMORY_ABSENT):.1%}",
    ]


def by_kind(report: dict[str, Any]) -> str:
    kinds: dict[str, list[bool]] = defaultdict(list)
    for (_, kind), hits in zip(ABSENT_QUERIES, report["absent"], strict=True):
        kinds[kind].append(not hits)
    return ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in sorted(kinds.items()))


def calibration_samples(report: dict[str, Any]) -> list[tuple[float, int]]:
    """(score, right) of every hit found by meaning on the development sets."""
    samples = []
    for text, key, _ in PARAPHRASES:
        for hit in report["dev_hits"][text]:
            if hit["metadata"].get("matched_by") == "meaning":
                samples.append((hit["score"], int(hit["id"] == report["ids"][key])))
    for hits in report["dev_absent"]:
        samples += [(hit["score"], 0) for hit in hits if hit["metadata"].get("matched_by") == "meaning"]
    return samples


def fit_logistic(samples: list[tuple[float, int]], steps: int = 50) -> tuple[float, float]:
    """(slope, midpoint) of P(right | score), by Newton's method on the log loss."""
    x = np.array([[score, 1.0] for score, _ in samples])
    y = np.array([right for _, right in samples], dtype=float)
    w = np.zeros(2)
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w)))
        hessian = x.T @ (x * (p * (1 - p))[:, None]) + 1e-6 * np.eye(2)
        w -= np.linalg.solve(hessian, x.T @ (p - y))
    return float(w[0]), float(-w[1] / w[0])


async def calibrate() -> None:
    # Every hit found by meaning, those below the least confidence too: the curve sets that bar.
    with configured(replace(SHIPPED, min_confidence=0.0)), tempfile.TemporaryDirectory() as data:
        async with connected(Settings(data_dir=data, journal=False, semantic_search="on")) as call:
            ids = await load(call.service, build_corpus())
            search = call.service.search
            report = {
                "ids": ids,
                "dev_hits": {text: await search.search(MAIN_USER, text, 10) for text, _, _ in PARAPHRASES},
                "dev_absent": await absent_answers(call.service, DEV_ABSENT_QUERIES),
            }
    samples = calibration_samples(report)
    slope, midpoint = fit_logistic(samples)
    right = sum(y for _, y in samples)
    print(f"{len(samples)} hits found by meaning ({right} right): SLOPE = {slope:.1f}, MIDPOINT = {midpoint:.3f}")


async def main() -> None:
    logging.disable(logging.INFO)  # a line per tool call would drown the table
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calibrate", action="store_true", help="fit the confidence curve on the development sets")
    parser.add_argument("--rows", default=",".join(ROWS), help="comma-separated row names (default: all)")
    arguments = parser.parse_args()
    if arguments.calibrate:
        await calibrate()
        return
    heads = [
        "existing MRR",
        f"paraphrase MRR ({len(PARAPHRASES) + len(HELDOUT_PARAPHRASES)})",
        f"dev ({len(PARAPHRASES)})",
        f"held-out ({len(HELDOUT_PARAPHRASES)})",
        f"absent precision ({len(ABSENT_QUERIES)})",
        "…not in dev list",
        f"dev absent ({len(DEV_ABSENT_QUERIES)})",
        "memory_query held-out MRR",
        f"memory_query absent ({len(MEMORY_ABSENT)})",
    ]
    print("| configuration | " + " | ".join(heads) + " |\n|---|" + "---:|" * len(heads))
    kinds = {}
    for name in arguments.rows.split(","):
        report = await measure(**ROWS[name])
        kinds[name] = by_kind(report)
        print(f"| {name} | " + " | ".join(row_cells(report)) + " |", flush=True)
    print("\nAbsent queries with no hit, by kind:")
    for name, line in kinds.items():
        print(f"- {name}: {line}")


if __name__ == "__main__":
    asyncio.run(main())
