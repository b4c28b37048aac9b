"""Property test: ``ranked`` answers exactly as the plain reference in ``query_reference`` (every
memory scored, the whole vocabulary compared, everything sorted): the same memories, scores and
order, for random memories whose entities and summaries share words, spelled with typos, in part,
with or without "the", under any filters, limit and (made-up) meaning; also after memories are
rewritten and removed, which the index follows word by word.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from service.memories.index import MemoryIndex
from service.memories.query import Filters, ranked
from service.search.semantic.query import Meaning
from service.text.analysis import terms
from tests.memories import query_reference

T0 = datetime(2026, 1, 1, tzinfo=UTC)
# Words that meet each other: stems (zombie/zombies, run/running), typos within budget (artist/
# artsit, rhapsody/rapsody), words typed in part (bohem/bohemian), light words, "the", numbers.
WORDS = [
    "the", "The", "artist", "Artist", "artists", "artsit", "artis", "art", "12", "40", "120", "1",
    "zombie", "Zombies", "zombei", "bohemian", "bohem", "rhapsody", "rapsody", "a", "of", "and",
    "running", "run", "runner", "love", "loved", "lover", "abcd", "abdc", "abcde", "x", "Björk",
    "bjork", "mood", "arrangements", "arrangement", "!!!",
]  # fmt: skip
TYPES = ["recommendation", "insight", "feedback"]

phrase = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
asked = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)
# Below and above the floor of what meaning alone admits, and below zero.
similarity = st.sampled_from([-0.1, 0.0, 0.1, 0.2, 0.25, 0.3, 0.6, 1.0]) | st.floats(-0.2, 1.0)
memory = st.fixed_dictionaries(
    {
        "type": st.sampled_from(TYPES),
        "entities": st.lists(phrase, min_size=1, max_size=3),
        "summary": st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join),
        "importance": st.integers(1, 3),  # few values: ties broken by recency, then by id
        "day": st.integers(0, 4),
    }
)
filters = st.builds(
    Filters,
    st.none() | st.sampled_from(TYPES),
    st.none() | st.integers(0, 5).map(lambda d: T0 + timedelta(days=d)),
    st.none() | st.integers(1, 3),
)


def doc(n: int, drawn: dict[str, Any]) -> dict[str, Any]:
    return {
        "memory_id": f"mem_{n:024x}",
        "type": drawn["type"],
        "entity_key": "",
        "entities": drawn["entities"],
        "summary": drawn["summary"],
        "importance": drawn["importance"],
        "timestamp": T0 + timedelta(days=drawn["day"]),
    }


@st.composite
def meanings(draw: st.DrawFn, text: str | None, ids: list[str]) -> Meaning | None:
    """What ``text`` might mean among the memories: a similarity for some, neighbour words per term."""
    if not text or draw(st.booleans()):
        return None
    asked = list(dict.fromkeys(terms(text)))
    near = st.tuples(st.sampled_from(sorted(set(terms(" ".join(WORDS))))), st.floats(0.35, 1.0))
    return Meaning(
        similarity={("memory", m): draw(similarity) for m in ids if draw(st.booleans())},
        neighbours=[draw(st.lists(near, max_size=3)) for _ in asked],
        terms=asked,
        floor=draw(st.floats(0.1, 0.6)),  # the query's floor for a memory found by meaning alone
    )


def answers(found: list[tuple[float, dict[str, Any], bool]]) -> list[tuple[float, str, bool]]:
    return [(score, doc["memory_id"], alone) for score, doc, alone in found]


@st.composite
def queries(draw: st.DrawFn, ids: list[str]) -> tuple[str | None, str | None, Filters, int, Meaning | None]:
    entity = draw(st.none() | asked)
    text = draw(st.none() | asked)
    return entity, text, draw(filters), draw(st.integers(1, 8) | st.just(50)), draw(meanings(text, ids))


def agree(index: MemoryIndex, query: tuple[str | None, str | None, Filters, int, Meaning | None]) -> None:
    # What the index keeps to find words fast says the same as its vocabulary.
    assert index.words.ordered() == sorted(index.vocabulary)
    assert len(index.words) == len(index.vocabulary) and all(word in index.words for word in index.vocabulary)
    assert sorted(w for same in index.stems.values() for w in same) == sorted(index.vocabulary)
    entity, text, chosen, limit, meaning = query
    expected = query_reference.ranked(index, entity, text, chosen, limit, meaning)
    assert answers(ranked(index, entity, text, chosen, limit, meaning)) == answers(expected), query


@given(st.data(), st.lists(memory, max_size=30))
@hsettings(max_examples=400, deadline=None)
def test_ranked_answers_as_the_reference(data: st.DataObject, drawn: list[dict[str, Any]]) -> None:
    index = MemoryIndex()
    for n, one in enumerate(drawn):
        index.put(doc(n, one))
    ids = [f"mem_{n:024x}" for n in range(len(drawn))]
    for _ in range(3):
        agree(index, data.draw(queries(ids)))
    # Rewrites (other entities, importance, time) and removals, after the first queries built
    # what the index keeps between calls.
    for n in data.draw(st.lists(st.sampled_from(ids), max_size=8)) if ids else []:
        if data.draw(st.booleans()):
            index.remove(n)
        else:
            index.put(doc(int(n[4:], 16), data.draw(memory)))
    for _ in range(3):
        agree(index, data.draw(queries(ids)))


def test_many_memories_sharing_a_word() -> None:
    """Every memory holds "artist": the rare word decides, and a common one is walked in order."""
    index = MemoryIndex()
    for n in range(600):
        entities = [f"Artist {n}", "The Zombies"] if n % 7 == 0 else [f"Artist {n}"]
        drawn = {"type": TYPES[n % 3], "entities": entities, "summary": f"Memory {n} mood", "importance": n % 4 + 1}
        index.put(doc(n, {**drawn, "day": n % 5}))
    for entity, text in [
        ("artist 12", None),
        ("artsit 120", None),
        ("the artist", None),
        ("artist", None),
        ("zombies artist", None),
        ("artist 12", "mood"),
        (None, "mood"),
        (None, "mood 12"),
        (None, None),
    ]:
        for limit in (1, 10, 50):
            for chosen in (Filters(), Filters("insight", None, 3)):
                agree(index, (entity, text, chosen, limit, None))


def test_an_entity_covering_exactly_the_least_share_matches() -> None:
    """3 of 5 asked words is exactly ENTITY_COVERAGE_MIN: the memory missing the other two (the
    rarest: nobody holds them) still matches, so those two alone cannot rule it out."""
    index = MemoryIndex()
    index.put(doc(0, {"type": "insight", "entities": ["love zombie mood"], "summary": "x", "importance": 1, "day": 0}))
    query = ("love zombie mood bohemian rhapsody", None, Filters(), 10, None)
    agree(index, query)
    assert len(ranked(index, *query)) == 1
