"""Ranking memories for ``memory_query``: by how well they match, then importance, then recency.

``entity`` matches the memory's entities fuzzily, the way the track resolver compares names
(``entity_match``); ``text`` matches the summary and the entities by stemmed words: the share of
the asked words present. Both given, a memory must match both. With search by meaning on, ``text``
also reaches what it means (``ranked``); such a row says ``matched_by: "meaning"``.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.memories.entity_match import EntityScores, entity_candidates, vocabulary_matches
from service.memories.index import Analysed, MemoryIndex
from service.search.hybrid import MEANING_FLOOR
from service.search.semantic.query import Meaning
from service.text.analysis import terms
from service.text.words import words


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
    index: MemoryIndex,
    asked: list[str],
    matches: dict[str, dict[str, float]] | None,
    asked_terms: list[str],
    meaning: Meaning | None,
) -> Iterable[Analysed]:
    """Memories that can score: those ``entity_candidates`` keeps (entity asked), else holding one
    of the asked terms or their neighbours in meaning, or near the text in meaning (text asked), else all."""
    ids: set[str] = set()
    if matches is not None:
        ids = entity_candidates(index, asked, matches)
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
    matches = vocabulary_matches(index, asked) if asked else None
    entity_scores = EntityScores(asked, matches or {})
    near = _near(meaning)
    scored: list[tuple[float, Analysed, bool]] = []
    for memory in _candidates(index, asked, matches, asked_terms, meaning):
        if not filters.admit(memory):
            continue
        parts = []
        alone = False
        if asked:
            parts.append(entity_scores.of(memory))
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
