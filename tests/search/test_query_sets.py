"""The sets search by meaning is judged on are honest by words alone: no held-out paraphrase
shares a term (or a word one typo away) with its target, no absent query reaches any entry of
the corpus, and lexical search finds nothing for an absent query. Nothing here searches by
meaning: the held-out set is scored once, by the lead, after the change."""

from __future__ import annotations

from collections import Counter

from service.settings import Settings
from service.text.analysis import STOP_WORDS, terms, words
from tests.search.absent import ABSENT_QUERIES, DEV_ABSENT_QUERIES
from tests.search.corpus import MAIN_USER, OTHER_USERS, build_corpus, load
from tests.search.overlap import anchor_entries, corpus_entries, index_of, near_misses, reached, shared_terms
from tests.search.paraphrases import PARAPHRASES
from tests.search.paraphrases_heldout import HELDOUT_PARAPHRASES
from tests.support import connected

MIN_QUERIES = 64
MIN_ANCHORS = 30
CATEGORIES = {"activity", "mood", "genre", "artist", "event", "profile"}
# The least each kind of absent query must count ("mood" and "activity" together).
ABSENT_KINDS = {"artist": 15, "genre": 15, "mood+activity": 10, "nonsense": 10, "typo": 10}


def test_the_heldout_paraphrases_spread_over_the_categories_and_the_anchors() -> None:
    assert len(HELDOUT_PARAPHRASES) >= MIN_QUERIES
    entries = anchor_entries()
    keys = {key for _, key, _ in HELDOUT_PARAPHRASES}
    assert keys <= entries.keys(), keys - entries.keys()
    assert len(keys) >= MIN_ANCHORS, len(keys)
    assert {category for *_, category in HELDOUT_PARAPHRASES} == CATEGORIES
    assert len({query for query, *_ in HELDOUT_PARAPHRASES}) == len(HELDOUT_PARAPHRASES)


def test_no_heldout_paraphrase_shares_a_term_or_a_typo_with_its_target() -> None:
    entries = anchor_entries()
    # The checks themselves can fail: a target's own words, and a word one typo from one of them.
    assert shared_terms("Tarja era anthems", entries["nightwish"]) == {"tarja", "era", "anthem"}
    assert near_misses("nightwsh", entries["nightwish"]) == {("nightwsh", "nightwish")}
    assert near_misses("electronic", entries["royksopp"]) == {("electronic", "electronica")}
    shared = {(q, key): found for q, key, _ in HELDOUT_PARAPHRASES if (found := shared_terms(q, entries[key]))}
    assert not shared, f"held-out paraphrases sharing a term with their target: {shared}"
    near = {(q, key): found for q, key, _ in HELDOUT_PARAPHRASES if (found := near_misses(q, entries[key]))}
    assert not near, f"held-out paraphrases one typo from their target: {near}"


def test_the_heldout_paraphrases_are_not_the_earlier_rounds_reworded() -> None:
    # A light rewording keeps words: no held-out query has two terms in common with an earlier
    # query for the same anchor.
    earlier = [(set(terms(q)), key) for q, key, _ in PARAPHRASES]
    assert not {q for q, *_ in HELDOUT_PARAPHRASES} & {q for q, *_ in PARAPHRASES}
    close = [
        (q, sorted(old))
        for q, key, _ in HELDOUT_PARAPHRASES
        for old, old_key in earlier
        if old_key == key and len(old & set(terms(q))) > 1
    ]
    assert not close, close


def test_the_absent_set_has_every_kind_and_words_to_search() -> None:
    assert len(ABSENT_QUERIES) >= MIN_QUERIES
    counts = Counter(kind for _, kind in ABSENT_QUERIES)
    counts["mood+activity"] = counts.pop("mood", 0) + counts.pop("activity", 0)
    assert set(counts) == set(ABSENT_KINDS), counts
    assert all(counts[kind] >= least for kind, least in ABSENT_KINDS.items()), counts
    assert len({query for query, _ in ABSENT_QUERIES}) == len(ABSENT_QUERIES)
    # Stop words alone are not a query (the search would then look for the stop words).
    assert not [q for q, _ in ABSENT_QUERIES if not [w for w in words(q) if w not in STOP_WORDS]]


def every_absent() -> list[str]:
    """The held-out absent set and the development list the floor was set on: both checked alike."""
    return [q for q, _ in ABSENT_QUERIES] + DEV_ABSENT_QUERIES


def test_no_absent_query_reaches_any_entry_of_the_corpus() -> None:
    corpus = build_corpus()
    index = index_of(corpus_entries(corpus))
    # Every user's entries, none replacing another (each profile is one entry per key).
    assert len(index) == corpus.size() - len(corpus.profiles) + sum(len(p) for p in corpus.profiles.values())
    # The check can fail: a word of the filler, a typo of a filler artist, a word one edit from a mood.
    assert reached(index, "ska punk") == {"punk"}
    assert reached(index, "radiohed") == {"radiohead"}
    assert reached(index, "bad bunny") == {"sunni"}
    shared = {q: found for q in every_absent() if (found := set(terms(q)) & index.postings.keys())}
    assert not shared, f"absent queries sharing a term with the corpus: {shared}"
    typos = {q: found for q in every_absent() if (found := reached(index, q))}
    assert not typos, f"absent queries within a typo of the corpus: {typos}"


async def test_absent_queries_find_nothing_by_words(settings: Settings) -> None:
    corpus = build_corpus()
    # Meaning off from the start: no absent query is ever put to the model.
    async with connected(settings.model_copy(update={"semantic_search": "off"})) as call:
        await load(call.service, corpus)
        typo = await call.service.search.search(MAIN_USER, "radiohed", 5)  # the data is there, typos reach it
        found = {
            (user_id, q): [hit["id"] for hit in hits[:3]]
            for user_id in (MAIN_USER, *OTHER_USERS)
            for q in every_absent()
            if (hits := await call.service.search.search(user_id, q, 10))
        }
        via_tool = await call.ok("memory_search", {"user_id": MAIN_USER, "query": ABSENT_QUERIES[0][0]})
    assert typo, "the corpus did not load"
    assert not found, f"absent queries with hits: {found}"
    assert via_tool["results"] == []
