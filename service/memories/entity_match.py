"""How ``memory_query`` matches an entity: the asked words against the words of the memories'
entities, the way the track resolver compares names (the same stem, a typo within budget, a word
typed in part), each entity fitted by how much of the asked words it holds and how much of it was
asked for. Only the words that can match are compared, and only the memories holding the rarest
asked words are candidates.
"""

from __future__ import annotations

from collections import defaultdict

from service.memories.index import Analysed, MemoryIndex
from service.text.analysis import stem
from service.text.words import similarity, weight

ENTITY_COVERAGE_MIN = 0.6  # share of the asked entity's words one memory entity must hold


def word_similarity(asked: str, word: str) -> float:
    if asked == word or stem(asked) == stem(word):
        return 1.0
    return similarity(asked, word)


def vocabulary_matches(index: MemoryIndex, asked: list[str]) -> dict[str, dict[str, float]]:
    """For each asked word, the entity words of this user's memories it matches, with how well.
    Only the words that can match are compared: those of the same stem, and those ``index.words``
    finds within a typo or typed in part (not the whole vocabulary)."""
    found: dict[str, dict[str, float]] = {}
    for a in set(asked):
        maybe = index.words.similar(a).keys() | index.stems.get(stem(a), set())
        found[a] = {w: s for w in maybe if (s := word_similarity(a, w)) > 0}
    return found


def entity_candidates(index: MemoryIndex, asked: list[str], matches: dict[str, dict[str, float]]) -> set[str]:
    """The memories that can match the entity. One of its entities must hold words matching
    ENTITY_COVERAGE_MIN of the asked words' weight, so a memory holding none of some asked words
    that weigh more than the rest cannot: those words are taken rarest first (fewest memories
    holding a word they match), and only their memories are candidates, never the union of a word
    every memory holds (unless every asked word is that common)."""
    weights: dict[str, float] = defaultdict(float)
    for a in asked:
        weights[a] += weight(a)
    # The share the coverage may miss, a hair less: a memory missing exactly that share can match.
    spare = (1 - ENTITY_COVERAGE_MIN) * sum(weight(a) for a in asked) * (1 + 1e-9)
    holders = {a: [index.vocabulary.get(w, set()) for w in matches[a]] for a in weights}
    ids: set[str] = set()
    missing = 0.0
    for a in sorted(weights, key=lambda a: (sum(len(held) for held in holders[a]), a)):
        for held in holders[a]:
            ids |= held
        missing += weights[a]
        if missing > spare:
            break
    return ids


def entity_fit(asked: list[str], entity: tuple[str, ...], matches: dict[str, dict[str, float]], total: float) -> float:
    """Names compared as folded words, a leading "the" ignored, the same stem ("zombie"/"zombies"),
    a word typed in part or with a typo within budget. An entity matches (above 0) when most of the
    asked words (``total``: their weight) are found in it; its fit also counts how much of it was
    asked for, so "zombies" ranks "The Zombies" above "Zombies Tribute Band"."""
    found = [max((matches[a].get(w, 0.0) for w in entity), default=0.0) for a in asked]
    coverage = sum(f * weight(a) for f, a in zip(found, asked, strict=True)) / total
    if coverage < ENTITY_COVERAGE_MIN:
        return 0.0
    covered = sum(1 for w in entity if any(matches[a].get(w, 0.0) > 0 for a in asked)) / len(entity)
    return 0.8 * coverage + 0.2 * covered


class EntityScores:
    """A memory's entity score for one query: its best entity's fit. A word no asked word matches
    counts only by being there (in the entity's length), so it is fitted as a blank, and memories
    whose entities differ only there ("Artist 12", "Artist 40") cost one fit, not one each."""

    def __init__(self, asked: list[str], matches: dict[str, dict[str, float]]) -> None:
        self._asked, self._matches = asked, matches
        self._total = sum(weight(a) for a in asked)
        self._matched: dict[str, str] = {w: w for found in matches.values() for w in found}
        self._fits: dict[tuple[str | None, ...], float] = {}

    def of(self, memory: Analysed) -> float:
        best = 0.0
        for entity in memory.entity_words:
            if not entity:
                continue
            shape = tuple(map(self._matched.get, entity))  # None: a word not matched
            fit = self._fits.get(shape)
            if fit is None:  # fitted with "" for a word not matched: no vocabulary word is ""
                blanked = tuple(w or "" for w in shape)
                fit = self._fits[shape] = entity_fit(self._asked, blanked, self._matches, self._total)
            best = max(best, fit)
        return best
