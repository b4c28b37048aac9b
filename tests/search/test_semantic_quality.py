"""Search by meaning, measured: the paraphrase set (queries that share no word with their target)
is honest, meaning lifts it far above lexical search without costing the existing labelled set,
and a hit found by meaning alone says so through the tool."""

from __future__ import annotations

import pytest

from service.settings import Settings
from tests.search.corpus import build_corpus, load
from tests.search.corpus_anchors import ANCHOR_PLAYLISTS
from tests.search.evaluate import evaluate, table
from tests.search.overlap import anchor_entries, shared_terms
from tests.search.paraphrases import PARAPHRASES
from tests.support import connected, playlist, track
from tests.support.contract import assert_valid_success

EXISTING_FLOOR = 0.95
PARAPHRASE_FLOOR = 0.55  # the measured MRR (0.584) rounded down to 0.05
LEXICAL_CEILING = 0.2  # the same set without meaning: words alone must not explain the gain
MIN_PARAPHRASES = 40


def _semantic_only(settings: Settings) -> None:
    # The embedded engine's hybrid ranking (word neighbours included) is what these queries were
    # chosen against; MongoDB's path (held vectors, each hit read again) has test_mongo_meaning.
    if settings.mongodb_uri:
        pytest.skip("figures and queries of the embedded engine's hybrid ranking")


def test_no_paraphrase_shares_a_word_with_its_target() -> None:
    assert len(PARAPHRASES) >= MIN_PARAPHRASES
    entries = anchor_entries()
    # The check itself can fail: a query made of its target's own words shares them.
    assert shared_terms("Nightwish anthems", entries["nightwish"]) == {"nightwish", "anthem"}
    assert shared_terms("prefer remastered", entries["remaster"]) == {"prefer", "remast"}
    assert shared_terms("dubstep", entries["profile:avoid"]) == {"dubstep"}
    shared = {(query, key): found for query, key, _ in PARAPHRASES if (found := shared_terms(query, entries[key]))}
    assert not shared, f"paraphrases sharing a word with their target: {shared}"


async def test_meaning_lifts_paraphrases_and_keeps_the_labelled_set(settings: Settings) -> None:
    _semantic_only(settings)
    corpus = build_corpus()  # one load for both sets and both settings: it is the slow part
    async with connected(settings) as call:
        ids = await load(call.service, corpus)
        existing = await evaluate(call.service, ids)
        paraphrased = await evaluate(call.service, ids, queries=PARAPHRASES)
    # A second service on the same data directory reads the store again, meaning switched off.
    async with connected(settings.model_copy(update={"semantic_search": "off"})) as call:
        lexical = await evaluate(call.service, ids, queries=PARAPHRASES)
        assert (await call.service.search.search(1, "nightwish", 1))[0]["id"] == ids["nightwish"]  # the data is there
    for title, report in (
        ("existing set, meaning on", existing),
        ("paraphrases, meaning on", paraphrased),
        ("paraphrases, meaning off", lexical),
    ):
        print(f"\n{title}\n{table(report)}")
    assert existing["all"]["mrr"] >= EXISTING_FLOOR, table(existing)
    assert paraphrased["all"]["mrr"] >= PARAPHRASE_FLOOR, table(paraphrased)
    assert lexical["all"]["mrr"] < LEXICAL_CEILING, table(lexical)


async def test_a_hit_found_by_meaning_alone_says_so(settings: Settings) -> None:
    _semantic_only(settings)
    async with connected(settings) as call:
        for n, key in enumerate(("lullaby", "christmas", "marathon", "sea", "wedding")):
            fields = dict(ANCHOR_PLAYLISTS)[key]
            await call.ok(
                "memory_log_playlist_create",
                {"user_id": 1, "playlist_id": playlist(n), "track_ids": [track(n)], **fields},
            )
        liked = await call.ok(
            "memory_append_preference_event",
            {"user_id": 1, "type": "like", "payload": {"raw_text": "more songs like these please"}},
        )
        for detail in ("lean", "full"):
            envelope = await call(
                "memory_search", {"user_id": 1, "query": "songs to help an infant doze off", "detail": detail}
            )
            hits = {hit["id"]: hit for hit in assert_valid_success("memory.search", envelope)["results"]}
            # The lullabies share no word with the query; the liked event holds "songs".
            assert hits[playlist(0)]["metadata"]["matched_by"] == "meaning", (detail, hits)
            assert "matched_by" not in hits[liked["event_id"]]["metadata"], (detail, hits)
            assert next(iter(hits)) == playlist(0), (detail, hits)  # and meaning ranks it first
