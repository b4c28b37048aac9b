"""Search quality on the labelled set: MRR ≥ 0.90 and the expected item in the top 5 for ≥ 95%
of the queries (both backends when MEMORY_TEST_MONGODB_URI is set)."""

from __future__ import annotations

from service.settings import Settings
from tests.search.corpus import build_corpus, load
from tests.search.evaluate import evaluate, table
from tests.support import connected


async def test_labelled_queries_rank_the_expected_item_first(settings: Settings) -> None:
    corpus = build_corpus()
    assert corpus.size() >= 1000
    async with connected(settings) as call:
        ids = await load(call.service, corpus)
        report = await evaluate(call.service, ids)
        # And the same answers through the tool, schema and all.
        via_tool = await call.ok("memory_search", {"user_id": 1, "query": "nightwsh", "limit": 5})
    print("\n" + table(report))
    for miss in report["misses"]:
        print("not first:", miss)
    assert via_tool["results"][0]["id"] == ids["nightwish"]
    assert report["all"]["mrr"] >= 0.90, table(report)
    assert report["all"]["top5"] >= 0.95, table(report)


async def test_the_index_rebuilt_at_start_up_ranks_the_same(settings: Settings) -> None:
    corpus = build_corpus(filler_playlists=120, filler_events=120)
    async with connected(settings) as call:
        ids = await load(call.service, corpus)
        before = await evaluate(call.service, ids)
    async with connected(settings) as call:
        after = await evaluate(call.service, ids)
    assert after == before
