"""Ranking memories for ``memory_query``: by how well they match, then importance, then recency.

``entity`` matches the memory's entities fuzzily, the way the track resolver compares names
(``entity_match``); ``text`` matches the summary and the entities by stemmed words: the share of
the asked words present. Both given, a memory must match both. With search by meaning on, ``text``
also reaches what it means (``ranked``); such a row says ``matched_by: "meaning"``. A sensitive
memory is admitted only when the query names it (``service.text.naming``), never by meaning alone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Set
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.memories.entity_match import EntityScores, entity_candidates, vocabulary_matches
from service.memories.index import Analysed, MemoryIndex
from service.search.semantic.query import Meaning
from service.text.analysis import terms
from service.text.naming import names_any
from service.text.words import words

Scored = tuple[float, bool, Set[str]]  # a score, found by meaning alone, the memories with both


@dataclass(frozen=True)
class Filters:
    memory_type: str | None = None
    since: datetime | None = None
    importance_min: int | None = None
    # What the query says by name: a sensitive memory is admitted only when one of these names it
    named_entity: str | None = None
    named_text: str | None = None

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
            and (not doc.get("sensitive") or names_any(doc["entities"], self.named_entity, self.named_text))
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


def _text_part(
    asked_terms: list[str], memory: Analysed, meaning: Meaning | None, near: dict[str, list[tuple[str, float]]]
) -> tuple[float, bool] | None:
    """The text's part of the memory's score and whether meaning alone found it; None: not found."""
    direct = text_score(asked_terms, memory)
    part, alone = direct, False
    if meaning is not None:
        similarity = meaning.similarity.get(("memory", memory.doc["memory_id"]), 0.0)
        widened = text_score(asked_terms, memory, near)
        if widened <= 0 and similarity < meaning.floor:
            return None
        part, alone = (widened + max(0.0, similarity)) / 2, direct <= 0
    return part, alone


def _combined(parts: list[float]) -> float | None:
    """A memory's score from its parts (1.0 for none); None when a part did not match."""
    if not parts:
        return 1.0
    return None if min(parts) <= 0 else sum(parts) / len(parts)


def _by_entity(
    index: MemoryIndex,
    asked: list[str],
    asked_terms: list[str],
    filters: Filters,
    meaning: Meaning | None,
    near: dict[str, list[tuple[str, float]]],
) -> list[Scored]:
    matches = vocabulary_matches(index, asked)
    entity_scores = EntityScores(asked, matches)
    groups: defaultdict[tuple[float, bool], set[str]] = defaultdict(set)
    everything = filters == Filters()  # no filter: no call to admit per candidate
    for memory_id in entity_candidates(index, asked, matches):
        memory = index.by_id.get(memory_id)
        if memory is None or not (everything or filters.admit(memory)):
            continue
        score, alone = entity_scores.of(memory), False
        if score <= 0:
            continue
        if asked_terms:
            found = _text_part(asked_terms, memory, meaning, near)
            if found is None or (combined := _combined([score, found[0]])) is None:
                continue
            score, alone = combined, found[1]
        groups[score, alone].add(memory_id)
    return [(score, alone, ids) for (score, alone), ids in groups.items()]


def _holding(index: MemoryIndex, relevant: list[str]) -> dict[int, set[str]]:
    """The memories holding any of the terms, grouped by which they hold (bit i: ``relevant[i]``),
    by splitting sets (in C), not memory by memory."""
    groups: dict[int, set[str]] = {}
    for bit, term in enumerate(relevant):
        posting = index.postings.get(term)
        if not posting:
            continue
        fresh = set(posting)
        split: dict[int, set[str]] = {}
        for mask, ids in groups.items():
            both = ids & posting
            if both:
                fresh -= both
                ids -= both
                split[mask | 1 << bit] = both
            if ids:
                split[mask] = ids
        if fresh:
            split[1 << bit] = fresh
        groups = split
    return groups


def _by_text(
    index: MemoryIndex, asked_terms: list[str], meaning: Meaning | None, near: dict[str, list[tuple[str, float]]]
) -> list[Scored]:
    """Memories holding an asked term or a neighbour of one in meaning, or near the text in meaning.
    A memory with no similarity of its own to the text scores only by which of those terms it holds,
    so the memories holding the same ones are scored once, as a group, not one by one."""
    relevant = list(dict.fromkeys(asked_terms + [other for t in asked_terms for other, _ in near.get(t, ())]))
    by_meaning: set[str] = set()
    if meaning is not None:  # scored one by one: their similarity to the text is their own
        by_meaning = {key[1] for key, s in meaning.similarity.items() if s >= meaning.floor or key[0] == "memory"}
    groups = _holding(index, relevant)
    for ids in groups.values():
        ids -= by_meaning
    scored: list[Scored] = []
    for ids in [*(ids for ids in groups.values() if ids), *({m} for m in by_meaning if m in index.by_id)]:
        found = _text_part(asked_terms, index.by_id[next(iter(ids))], meaning, near)
        if found is not None and (score := _combined([found[0]])) is not None:
            scored.append((score, found[1], ids))
    return scored


def _best(index: MemoryIndex, scored: list[Scored], filters: Filters, limit: int) -> list[tuple[float, Analysed, bool]]:
    """The ``limit`` best the filters admit: by score rounded to 2 places, then ``Analysed.rank``.
    The memories of one rounded score are walked in rank order, so a score shared by many stops at
    ``limit`` instead of sorting them all."""
    levels: defaultdict[float, list[Scored]] = defaultdict(list)
    for group in scored:
        levels[round(group[0], 2)].append(group)
    best: list[tuple[float, Analysed, bool]] = []
    for rounded in sorted(levels, reverse=True):
        if len(best) >= limit:
            break
        if len(levels[rounded]) == 1:
            score, alone, members = levels[rounded][0]
            of = None
        else:
            of = {memory_id: (score, alone) for score, alone, ids in levels[rounded] for memory_id in ids}
            members = of.keys()
        for memory_id in index.in_rank_order(members):
            memory = index.by_id[memory_id]
            if filters.admit(memory):
                if of is not None:
                    score, alone = of[memory_id]
                best.append((score, memory, alone))
                if len(best) >= limit:
                    break
    return best


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
    near = _near(meaning)
    if asked:
        scored = _by_entity(index, asked, asked_terms, filters, meaning, near)
    elif asked_terms:
        scored = _by_text(index, asked_terms, meaning, near)
    else:
        scored = [(1.0, False, index.by_id.keys())]
    return [(score, memory.doc, alone) for score, memory, alone in _best(index, scored, filters, limit)]
