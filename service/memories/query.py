"""Ranking memories for ``memory_query``: by how well they match, then importance, then recency.

``entity`` matches the memory's entities fuzzily, the way the track resolver compares names
(``entity_score``); ``text`` matches the summary and the entities by stemmed words: the share of
the asked words present. Both given, a memory must match both. With search by meaning on, ``text``
also reaches what it means (``ranked``); such a row says ``matched_by: "meaning"``.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.memories.index import Analysed, MemoryIndex
from service.search.hybrid import MEANING_FLOOR
from service.search.semantic.query import Meaning
from service.text.analysis import stem, terms
from service.text.words import similarity, weight, words

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
        return (
            (self.memory_type is None or doc["type"] == self.memory_type)
            and (self.importance_min is None or doc["importance"] >= self.importance_min)
            and (self.since is None or memory.moment >= self.since.timestamp())
        )


def _word_similarity(asked: str, word: str) -> float:
    if asked == word or stem(asked) == stem(word):
        return 1.0
    return similarity(asked, word)


def _vocabulary_matches(index: MemoryIndex, asked: list[str]) -> dict[str, dict[str, float]]:
    """For each asked word, the entity words of this user's memories it matches, with how well.
    Only the words that can match are compared: those of the same stem, and those ``index.words``
    finds within a typo or typed in part (not the whole vocabulary)."""
    found: dict[str, dict[str, float]] = {}
    for a in set(asked):
        maybe = index.words.similar(a).keys() | index.stems.get(stem(a), set())
        found[a] = {w: s for w in maybe if (s := _word_similarity(a, w)) > 0}
    return found


def entity_score(asked: list[str], memory: Analysed, matches: dict[str, dict[str, float]]) -> float:
    """Names compared as folded words, a leading "the" ignored, the same stem ("zombie"/"zombies"),
    a word typed in part or with a typo within budget. An entity matches when most of the asked
    words are found in one of the memory's entities; its score also counts how much of that entity
    was asked for, so "zombies" ranks "The Zombies" above "Zombies Tribute Band"."""
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


def text_score(
    asked_terms: list[str], memory: Analysed, near: dict[str, list[tuple[str, float]]] | None = None
) -> float:
    """The share of the asked terms the memory holds; a missing one counts by its nearest word in
    meaning the memory holds, when ``near`` gives them."""
    found = 0.0
    for term in asked_terms:
        if term in memory.terms:
            found += 1.0
        elif near:
            found += max((s for other, s in near.get(term, ()) if other in memory.terms), default=0.0)
    return found / len(asked_terms)


def _near(meaning: Meaning | None) -> dict[str, list[tuple[str, float]]]:
    return dict(zip(meaning.terms, meaning.neighbours, strict=True)) if meaning else {}


def _candidates(
    index: MemoryIndex, matches: dict[str, dict[str, float]] | None, asked_terms: list[str], meaning: Meaning | None
) -> Iterable[Analysed]:
    """Memories that can score: holding a matched entity word (entity asked), else one of the
    asked terms or their neighbours in meaning, or near the text in meaning (text asked), else all."""
    ids: set[str] = set()
    if matches is not None:
        for words_found in matches.values():
            for word in words_found:
                ids |= index.vocabulary[word]
    elif asked_terms:
        near = _near(meaning)
        for term in asked_terms:
            ids |= index.postings.get(term, set())
            for other, _ in near.get(term, ()):
                ids |= index.postings.get(other, set())
        if meaning is not None:
            ids |= {key[1] for key, s in meaning.similarity.items() if s >= MEANING_FLOOR}
    else:
        return index.by_id.values()
    return (index.by_id[m] for m in ids if m in index.by_id)


def ranked(
    index: MemoryIndex,
    entity: str | None,
    text: str | None,
    filters: Filters,
    limit: int,
    meaning: Meaning | None = None,
) -> list[tuple[float, dict[str, Any], bool]]:
    """(score, stored memory, found by meaning alone) best first; score 1.0 when nothing but
    filters was asked. ``meaning``: what ``text`` means among the user's memories, if on.

    With meaning, an asked word missing from a memory counts by the similarity of the memory's
    nearest word to it ("sax" finds "saxophone"), the text part averages that share with the
    memory's similarity to the whole text, and a memory none of the asked words reached is admitted
    when that similarity clears the search floor."""
    asked = words(entity) if entity else []
    if entity and not asked:
        asked = [w for w in entity.casefold().split() if w]
    asked_terms = list(dict.fromkeys(terms(text))) if text else []
    if (entity and not asked) or (text and not asked_terms):
        return []
    matches = _vocabulary_matches(index, asked) if asked else None
    near = _near(meaning)
    scored: list[tuple[float, Analysed, bool]] = []
    for memory in _candidates(index, matches, asked_terms, meaning):
        if not filters.admit(memory):
            continue
        parts = []
        alone = False
        if asked:
            parts.append(entity_score(asked, memory, matches or {}))
        if asked_terms:
            direct = text_score(asked_terms, memory)
            part = direct
            if meaning is not None:
                similarity = meaning.similarity.get(("memory", memory.doc["memory_id"]), 0.0)
                widened = text_score(asked_terms, memory, near)
                if widened <= 0 and similarity < MEANING_FLOOR:
                    continue
                part, alone = (widened + max(0.0, similarity)) / 2, direct <= 0
            parts.append(part)
        if any(p <= 0 for p in parts):
            continue
        scored.append((sum(parts) / len(parts) if parts else 1.0, memory, alone))
    best = heapq.nsmallest(
        limit, scored, key=lambda s: (-round(s[0], 2), -s[1].doc["importance"], -s[1].moment, s[1].doc["memory_id"])
    )
    return [(score, memory.doc, alone) for score, memory, alone in best]
