"""Search that knows when it does not know, on the labelled sets (``scripts/bench_search_precision.py``
prints the full table and the ablation): queries about things never stored mostly find nothing,
nonsense always, every hit found by meaning carries a confidence, and
the held-out paraphrases (search's and memory_query's) keep the MRR measured when the rules landed (floors are the
measured figures rounded down to 0.05, so a regression fails; they are not the issue's targets)."""

from __future__ import annotations

from typing import Any

import pytest

from service.settings import Settings
from tests.memories.query_sets import MEMORY_ABSENT, MEMORY_PARAPHRASES, load_memories
from tests.search.absent import ABSENT_QUERIES, DEV_ABSENT_QUERIES
from tests.search.corpus import build_corpus, load
from tests.search.evaluate import absent_answers, evaluate, share_silent
from tests.search.paraphrases_heldout import HELDOUT_PARAPHRASES
from tests.support import connected

ABSENT_FLOOR = 0.9  # measured 91.6 % (76 of 83), the bar
DEV_ABSENT_FLOOR = 0.95  # measured 95.6 %: the floors were set on this list
HELDOUT_FLOOR = 0.4  # measured 0.448 (the issue asks 0.62: not reached, see docs/PERFORMANCE.md)
MEMORY_ABSENT_FLOOR = 0.95  # measured 100 %
MEMORY_HELDOUT_FLOOR = 0.5  # measured 0.546
ALWAYS_SILENT = {"nonsense"}  # no known word, nothing to mean ("led zepelin" has "led")


def _embedded_only(settings: Settings) -> None:
    if settings.mongodb_uri:
        pytest.skip("figures of the embedded engine's hybrid ranking (MongoDB's path: test_mongo_meaning)")


def meaning_hits(answers: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [hit for hits in answers for hit in hits if hit["metadata"].get("matched_by") == "meaning"]


async def test_absent_queries_find_nothing_and_meaning_hits_say_how_sure(settings: Settings) -> None:
    _embedded_only(settings)
    async with connected(settings) as call:
        ids = await load(call.service, build_corpus())
        absent = await absent_answers(call.service, [q for q, _ in ABSENT_QUERIES])
        dev_absent = await absent_answers(call.service, DEV_ABSENT_QUERIES)
        held = await evaluate(call.service, ids, queries=HELDOUT_PARAPHRASES)
        paraphrased = [await call.service.search.search(1, q, 10) for q, _, _ in HELDOUT_PARAPHRASES]
        memories = await load_memories(call)
        recalled = [(await call.ok("memory_query", {"user_id": 1, "text": q}))["memories"] for q in MEMORY_ABSENT]
        ranks = []
        for text, key, held_out in MEMORY_PARAPHRASES:
            if held_out:
                rows = (await call.ok("memory_query", {"user_id": 1, "text": text}))["memories"]
                ranks.append(next((1 / (i + 1) for i, r in enumerate(rows) if r["memory_id"] == memories[key]), 0.0))
    answered = {q: [h["id"] for h in hits] for (q, _), hits in zip(ABSENT_QUERIES, absent, strict=True) if hits}
    assert share_silent(absent) >= ABSENT_FLOOR, answered
    assert share_silent(dev_absent) >= DEV_ABSENT_FLOOR
    loud = {q for (q, kind), hits in zip(ABSENT_QUERIES, absent, strict=True) if hits and kind in ALWAYS_SILENT}
    assert not loud, loud
    assert share_silent(recalled) >= MEMORY_ABSENT_FLOOR
    assert sum(ranks) / len(ranks) >= MEMORY_HELDOUT_FLOOR
    assert held["all"]["mrr"] >= HELDOUT_FLOOR, held["misses"][:10]
    # Every hit by meaning (absent or paraphrase) says how sure it is; a hit found by words does not.
    by_meaning = meaning_hits(absent + paraphrased)
    assert by_meaning, "no hit found by meaning: the confidence check would check nothing"
    assert all(0.0 <= hit["metadata"]["confidence"] <= 1.0 for hit in by_meaning)
    by_words = [hit for hits in paraphrased for hit in hits if "matched_by" not in hit["metadata"]]
    assert by_words and all("confidence" not in hit["metadata"] for hit in by_words)
