"""``memory_query``'s ranking as it was before candidates were bounded, kept as a plain reference:
every memory scored, every vocabulary word compared with every asked word, the results sorted
whole. ``service.memories.query.ranked`` must answer exactly as this does."""

from __future__ import annotations

from typing import Any

from service.memories.index import Analysed, MemoryIndex
from service.memories.query import Filters
from service.search.semantic.query import Meaning
from service.text.analysis import stem, terms
from service.text.words import similarity, weight, words

ENTITY_COVERAGE_MIN = 0.6


def word_similarity(asked: str, word: str) -> float:
    if asked == word or stem(asked) == stem(word):
        return 1.0
    return similarity(asked, word)


def vocabulary_matches(index: MemoryIndex, asked: list[str]) -> dict[str, dict[str, float]]:
    return {a: {w: s for w in index.vocabulary if (s := word_similarity(a, w)) > 0} for a in set(asked)}


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


def text_score(
    asked_terms: list[str], memory: Analysed, near: dict[str, list[tuple[str, float]]] | None = None
) -> float:
    found = 0.0
    for term in asked_terms:
        if term in memory.terms:
            found += 1.0
        elif near:
            found += max((s for other, s in near.get(term, ()) if other in memory.terms), default=0.0)
    return found / len(asked_terms)


def ranked(
    index: MemoryIndex,
    entity: str | None,
    text: str | None,
    filters: Filters,
    limit: int,
    meaning: Meaning | None = None,
) -> list[tuple[float, dict[str, Any], bool]]:
    asked = words(entity) if entity else []
    if entity and not asked:
        asked = [w for w in entity.casefold().split() if w]
    asked_terms = list(dict.fromkeys(terms(text))) if text else []
    if (entity and not asked) or (text and not asked_terms):
        return []
    matches = vocabulary_matches(index, asked) if asked else {}
    near = dict(zip(meaning.terms, meaning.neighbours, strict=True)) if meaning else {}
    scored: list[tuple[float, Analysed, bool]] = []
    for memory in index.by_id.values():
        if not filters.admit(memory):
            continue
        parts = []
        alone = False
        if asked:
            parts.append(entity_score(asked, memory, matches))
        if asked_terms:
            direct = text_score(asked_terms, memory)
            part = direct
            if meaning is not None:
                similarity_ = meaning.similarity.get(("memory", memory.doc["memory_id"]), 0.0)
                widened = text_score(asked_terms, memory, near)
                if widened <= 0 and similarity_ < meaning.floor:
                    continue
                part, alone = (widened + max(0.0, similarity_)) / 2, direct <= 0
            parts.append(part)
        if any(p <= 0 for p in parts):
            continue
        scored.append((sum(parts) / len(parts) if parts else 1.0, memory, alone))
    scored.sort(key=lambda s: (-round(s[0], 2), -s[1].doc["importance"], -s[1].moment, s[1].doc["memory_id"]))
    return [(score, memory.doc, alone) for score, memory, alone in scored[:limit]]
