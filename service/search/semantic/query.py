"""What a query means to one user: entries near it, and the user's words near each query word.

The query vector averages the vectors of its words weighted by their IDF in the user's own index,
so "songs" in "songs to help an infant doze off" weighs little and "infant" much. The word
neighbours ("infant" → "baby", "sax" → "saxophone") stand in for a query word the user's entries
do not hold (``service.search.hybrid``), each counted by its similarity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from service.search.semantic.user import Key, UserMeaning
from service.text.analysis import ParsedQuery, stem

CANDIDATES = 50  # entries taken by meaning before fusion
NEIGHBOURS = 10  # nearest words of the user's vocabulary looked at per query word
NEIGHBOUR_MIN_SIMILARITY = 0.35
NEIGHBOUR_MIN_LENGTH = 3  # "k" of "k-pop" is no neighbour of "korean"
NEIGHBOUR_MAX_SHARE = 0.05  # of the user's entries a neighbour word may be in
NEIGHBOUR_MAX_ENTRIES = 50  # …or this many, for small users


@dataclass
class Meaning:
    similarity: dict[Key, float] = field(default_factory=dict)  # entry → cosine to the query
    neighbours: list[list[tuple[str, float]]] = field(default_factory=list)  # per query word: (term, similarity)
    terms: list[str] = field(default_factory=list)  # the query's own terms, aligned with ``neighbours``


def idf(postings: dict[str, dict[Key, float]], total: int, term: str) -> float:
    df = len(postings.get(term, ()))
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))


def meaning_of(
    meaning: UserMeaning,
    postings: dict[str, dict[Key, float]],
    total: int,
    parsed: ParsedQuery,
    kind: str | None = None,
) -> Meaning:
    """Entries (of ``kind``, or any) near the query, and the user's words near each query word."""
    meaning.flush()
    vectors = meaning.model.word_vectors(parsed.words)
    weights = np.array([idf(postings, total, t) for t in parsed.terms], dtype=np.float32)
    query = (vectors * weights[:, None]).sum(axis=0)
    found = Meaning(similarity=dict(meaning.nearest(query, CANDIDATES, kind)), terms=list(parsed.terms))
    # A neighbour held by many entries says little (low IDF) and costs a long posting list.
    common = max(NEIGHBOUR_MAX_ENTRIES, NEIGHBOUR_MAX_SHARE * total)
    nearby = meaning.words.nearest_many(vectors, NEIGHBOURS + 1)
    for word_near, term in zip(nearby, parsed.terms, strict=True):
        near = []
        for other, similarity in word_near:
            if similarity < NEIGHBOUR_MIN_SIMILARITY:
                break
            other_term = stem(other)
            if (
                len(other) >= NEIGHBOUR_MIN_LENGTH
                and other_term != term
                and other_term in postings
                and len(postings[other_term]) <= common
            ):
                near.append((other_term, similarity))
        found.neighbours.append(near)
    return found
