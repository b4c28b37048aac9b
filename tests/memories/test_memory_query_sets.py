"""The labelled sets of ``memory_query``'s text matching are honest by words alone: no paraphrase
shares a term (or a word one typo away) with its target memory, no absent query shares a term
with any memory, and with meaning off neither ``memory_query`` nor ``memory_search`` finds
anything for an absent query. Nothing here searches by meaning: the sets are scored once, later."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from service.memories.index import analyse
from service.search.fields import memory_entry
from service.settings import Settings
from service.text.analysis import STOP_WORDS, terms, words
from tests.memories.query_sets import (
    FILLER,
    MEMORY_ABSENT,
    MEMORY_ANCHORS,
    MEMORY_PARAPHRASES,
    USER,
    anchor_memories,
    filler_memories,
    load_memories,
)
from tests.search.overlap import index_of, near_misses, reached
from tests.support import connected

MIN_QUERIES = 30
MOMENT = datetime(2026, 1, 1, tzinfo=UTC)


def stored(memory_id: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """``memory_add`` arguments as the store holds them, enough for the analyses that match text."""
    return {**arguments, "memory_id": memory_id, "entity_key": "", "timestamp": MOMENT}


def memory_terms(document: dict[str, Any]) -> frozenset[str]:
    """What ``memory_query``'s text is matched against: the stems of the summary and the entities."""
    return analyse(document).terms


def every_memory() -> list[dict[str, Any]]:
    anchors = [stored(key, arguments) for key, arguments in anchor_memories().items()]
    return anchors + [stored(f"filler{n}", arguments) for n, arguments in enumerate(filler_memories())]


def test_the_sets_have_their_sizes_and_a_heldout_half() -> None:
    assert 30 <= len(MEMORY_ANCHORS) <= 40 and len({key for key, *_ in MEMORY_ANCHORS}) == len(MEMORY_ANCHORS)
    assert len(filler_memories()) == FILLER and filler_memories() == filler_memories()  # seeded
    assert len(MEMORY_PARAPHRASES) >= MIN_QUERIES and len(MEMORY_ABSENT) >= MIN_QUERIES
    held_out = sum(1 for *_, flag in MEMORY_PARAPHRASES if flag)
    assert abs(2 * held_out - len(MEMORY_PARAPHRASES)) <= 1, held_out
    keys = {key for _, key, _ in MEMORY_PARAPHRASES}
    assert keys <= anchor_memories().keys() and len(keys) >= MIN_QUERIES
    assert {kind for _, kind, *_ in MEMORY_ANCHORS} == {"recommendation", "insight", "event", "feedback", "discussion"}
    queries = [q for q, *_ in MEMORY_PARAPHRASES] + MEMORY_ABSENT
    assert len(set(queries)) == len(queries)
    assert all(any(w not in STOP_WORDS for w in words(q)) for q in MEMORY_ABSENT)  # each has a word to search


def test_no_paraphrase_shares_a_term_or_a_typo_with_its_target_memory() -> None:
    anchors = {key: stored(key, arguments) for key, arguments in anchor_memories().items()}
    # The checks themselves can fail: the summary's words, an entity's, a typo of one.
    assert set(terms("tuareg guitars")) & memory_terms(anchors["tinariwen"]) == {"tuareg", "guitar"}
    assert set(terms("lateralus")) & memory_terms(anchors["lateralus"]) == {"lateralus"}
    assert near_misses("lateralis", memory_entry(anchors["lateralus"])) == {("lateralis", "lateralus")}
    shared = {
        (q, key): found for q, key, _ in MEMORY_PARAPHRASES if (found := set(terms(q)) & memory_terms(anchors[key]))
    }
    assert not shared, f"paraphrases sharing a term with their memory: {shared}"
    near = {
        (q, key): found for q, key, _ in MEMORY_PARAPHRASES if (found := near_misses(q, memory_entry(anchors[key])))
    }
    assert not near, f"paraphrases one typo from their memory: {near}"


def test_no_absent_query_shares_a_term_or_a_typo_with_any_memory() -> None:
    memories = every_memory()
    vocabulary = frozenset().union(*(memory_terms(m) for m in memories))
    index = index_of(memory_entry(m) for m in memories)  # what memory_search matches, typos included
    assert set(terms("chill dinner")) & vocabulary == {"dinner"}  # the check can fail
    assert reached(index, "gregorian chant") == {"chat"}  # "chant" is a typo of "chat"
    shared = {q: found for q in MEMORY_ABSENT if (found := set(terms(q)) & vocabulary)}
    assert not shared, f"absent queries sharing a term with a memory: {shared}"
    typos = {q: found for q in MEMORY_ABSENT if (found := reached(index, q))}
    assert not typos, f"absent queries within a typo of a memory: {typos}"


async def test_absent_queries_find_no_memory_with_meaning_off(settings: Settings) -> None:
    # Meaning off from the start: no query of these sets is ever put to the model.
    async with connected(settings.model_copy(update={"semantic_search": "off"})) as call:
        ids = await load_memories(call)
        everything = await call.ok("memory_query", {"user_id": USER, "limit": 50})
        found = await call.ok("memory_query", {"user_id": USER, "text": "tuareg desert"})  # the check can fail
        queried = {
            q: [m["summary"] for m in rows]
            for q in MEMORY_ABSENT
            if (rows := (await call.ok("memory_query", {"user_id": USER, "text": q}))["memories"])
        }
        searched = {
            q: [hit["id"] for hit in hits]
            for q in MEMORY_ABSENT
            if (hits := (await call.ok("memory_search", {"user_id": USER, "query": q}))["results"])
        }
        count = await call.service.database.memories.count_documents({"user_id": USER})
    assert count == len(MEMORY_ANCHORS) + FILLER and len(everything["memories"]) == 50
    assert [m["memory_id"] for m in found["memories"]] == [ids["tinariwen"]]
    assert not queried, f"absent queries memory_query answered: {queried}"
    assert not searched, f"absent queries memory_search answered: {searched}"
