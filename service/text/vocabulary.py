"""Finding the words of a vocabulary a query word may mean (``similarity`` above 0) without
comparing it with every word: a typo is looked for only among the lengths it can reach (the words
grouped by length, compared by ``rapidfuzz`` in C), a word typed in part in the sorted words from
where it would sort. The track resolver and the memory queries share this.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence

from rapidfuzz import process
from rapidfuzz.distance import OSA

from service.text.words import budget, similarity


def typo_matches(query_word: str, by_length: Mapping[int, Collection[str]]) -> dict[str, float]:
    """Words within the query word's typo budget, with their similarity. The budget of the query
    word's length bounds the one ``similarity`` allows (the shorter word's), which rescores."""
    found: dict[str, float] = {}
    allowed = budget(len(query_word))
    if not allowed:
        return found
    for length in range(len(query_word) - allowed, len(query_word) + allowed + 1):
        choices = by_length.get(length)
        if not choices:
            continue
        for word, _, _ in process.extract(query_word, choices, scorer=OSA.distance, score_cutoff=allowed, limit=None):
            if (score := similarity(query_word, word)) > 0:
                found[word] = score
    return found


def prefix_matches(query_word: str, ordered: Sequence[str], most: int | None = None) -> dict[str, float]:
    """Words the query word starts (typed in part: 4 letters or more), from sorted ``ordered``;
    at most ``most`` of them looked at when given."""
    found: dict[str, float] = {}
    if len(query_word) < 4:
        return found
    start = bisect.bisect_left(ordered, query_word)
    stop = len(ordered) if most is None else start + most
    for word in ordered[start:stop]:
        if not word.startswith(query_word):
            break
        if (score := similarity(query_word, word)) > 0:
            found[word] = score
    return found


class WordLookup:
    """A vocabulary that changes one word at a time, and the words of it a query word may mean.
    The sorted words are made at the first lookup, then kept current: building a large vocabulary
    word by word does not insert into a sorted list each time."""

    def __init__(self) -> None:
        self._by_length: defaultdict[int, set[str]] = defaultdict(set)
        self._sorted: list[str] | None = None

    def add(self, word: str) -> None:
        if word not in self._by_length[len(word)]:
            self._by_length[len(word)].add(word)
            if self._sorted is not None:
                bisect.insort(self._sorted, word)

    def discard(self, word: str) -> None:
        same_length = self._by_length.get(len(word))
        if same_length is None or word not in same_length:
            return
        same_length.discard(word)
        if not same_length:
            del self._by_length[len(word)]
        if self._sorted is not None:
            del self._sorted[bisect.bisect_left(self._sorted, word)]

    def ordered(self) -> list[str]:
        if self._sorted is None:
            self._sorted = sorted(w for same_length in self._by_length.values() for w in same_length)
        return self._sorted

    def __len__(self) -> int:
        return sum(len(same_length) for same_length in self._by_length.values())

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word in self._by_length.get(len(word), ())

    def similar(self, query_word: str) -> dict[str, float]:
        """Every word with ``similarity(query_word, word) > 0``, with it."""
        found = typo_matches(query_word, self._by_length) | prefix_matches(query_word, self.ordered())
        if query_word in self:
            found[query_word] = 1.0
        return found
