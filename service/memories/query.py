"""Ranking memories for ``memory_query``: by how well they match, then importance, then recency.

``entity`` matches the memory's entities fuzzily, the way the track resolver compares names:
folded words, a leading "the" ignored, the same stem ("zombie"/"zombies"), a word typed in part
or with a typo within budget. An entity matches when most of the asked words are found in one of
the memory's entities; its score also counts how much of that entity was asked for, so "zombies"
ranks "The Zombies" above "Zombies Tribute Band". ``text`` matches the summary and the entities
by stemmed words: the share of the asked words present. Both given, a memory must match both.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.memories.index import Analysed, MemoryIndex
from service.search.analysis import stem, terms
from service.tracks.text import similarity, weight, words

ENTITY_COVERAGE_MIN = 0.6  # share of the asked entity's words one memory entity must hold


@dataclass(frozen=True)
class Filters:
    memory_type: str | None = None
    since: datetime | None = None
    importance_min: int | None = None

    def narrowed(self) -> dict[str, Any]:
        """The same filters as a query, for a store that selects by index (real MongoDB)."""
        query: dict[str, Any] = {}
        if self.memory_type is not None:
            query["type"] = self.memory_type
        if self.importance_min is not None:
            query["importance"] = {"$gte": self.importance_min}
        if self.since is not None:
            query["timestamp"] = {"$gte": self.since}
        return query

    def admit(self, memory: Analysed) -> bool:
        doc = memory.doc
        return ((self.memory_type is None or doc["type"] == self.memory_type)
                and (self.importance_min is None or doc["importance"] >= self.importance_min)
                and (self.since is None or memory.moment >= self.since.timestamp()))


def _word_similarity(asked: str, word: str) -> float:
    if asked == word or stem(asked) == stem(word):
        return 1.0
    return similarity(asked, word)


def _vocabulary_matches(index: MemoryIndex, asked: list[str]) -> dict[str, dict[str, float]]:
    """For each asked word, the entity words of this user's memories it matches, with how well.
    Compared against the vocabulary (distinct words), not every memory."""
    return {a: {w: s for w in index.vocabulary if (s := _word_similarity(a, w)) > 0} for a in set(asked)}


def entity_score(asked: list[str], memory: Analysed, matches: dict[str, dict[str, float]]) -> float:
    total = sum(weight(a) for a in asked)
    best = 0.0
    for entity in memory.entity_words:
        if not entity:
            continue
        found = [max((matches[a].get(w, 0.0) for w in entity), default=0.0) for a in asked]
        coverage = sum(f * weight(a) for f, a in zip(found, asked, strict=True)) / total
        if coverage < ENTITY_COVERAGE_MIN:
            continue
        covered = sum(1 for w in entity if any(matches[a].get(w, 0.0) > 0 for a in asked)) / len(entity)
        best = max(best, 0.8 * coverage + 0.2 * covered)
    return best


def text_score(asked_terms: list[str], memory: Analysed) -> float:
    return sum(1 for t in asked_terms if t in memory.terms) / len(asked_terms)


def _candidates(index: MemoryIndex, matches: dict[str, dict[str, float]] | None,
                asked_terms: list[str]) -> Iterable[Analysed]:
    """Memories that can score: holding a matched entity word (entity asked), else one of the
    asked terms (text asked), else all."""
    ids: set[str] = set()
    if matches is not None:
        for words_found in matches.values():
            for word in words_found:
                ids |= index.vocabulary[word]
    elif asked_terms:
        for term in asked_terms:
            ids |= index.postings.get(term, set())
    else:
        return index.by_id.values()
    return (index.by_id[m] for m in ids)


def ranked(index: MemoryIndex, entity: str | None, text: str | None, filters: Filters,
           limit: int) -> list[tuple[float, dict[str, Any]]]:
    """(score, stored memory) best first; score 1.0 when nothing but filters was asked."""
    asked = words(entity) if entity else []
    if entity and not asked:
        asked = [w for w in entity.casefold().split() if w]
    asked_terms = list(dict.fromkeys(terms(text))) if text else []
    if (entity and not asked) or (text and not asked_terms):
        return []
    matches = _vocabulary_matches(index, asked) if asked else None
    scored: list[tuple[float, Analysed]] = []
    for memory in _candidates(index, matches, asked_terms):
        if not filters.admit(memory):
            continue
        parts = []
        if asked:
            parts.append(entity_score(asked, memory, matches or {}))
        if asked_terms:
            parts.append(text_score(asked_terms, memory))
        if any(p <= 0 for p in parts):
            continue
        scored.append((sum(parts) / len(parts) if parts else 1.0, memory))
    best = heapq.nsmallest(limit, scored, key=lambda s: (-round(s[0], 2), -s[1].doc["importance"], -s[1].moment,
                                                          s[1].doc["memory_id"]))
    return [(score, memory.doc) for score, memory in best]
