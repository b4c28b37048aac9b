"""An in-memory inverted index of one user's searchable entries.

Postings map a term to the entries holding it, with the entry's weight for that term (field
weights and in-field frequency combined, the way MongoDB's ``textScore`` combines them). Adding or
removing an entry touches only its own terms, so the index is kept up to date on every write.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from service.search.fields import Entry
from service.search.semantic.user import UserMeaning
from service.text.analysis import STOP_WORDS, stem, terms_of, words

Key = tuple[str, str]  # (kind, id)


def field_weight(weight: float, count: int, length: int) -> float:
    """MongoDB's per-field term score: repeated words add less and less, and a word counts more
    in a short field than in a long one."""
    frequency = 2.0 - 2.0 ** (1 - count)  # 1 + 1/2 + 1/4 … for ``count`` occurrences
    return weight * frequency * (0.5 + 0.5 * count / max(1, length))


@dataclass
class Indexed:
    entry: Entry
    field_terms: list[list[str]]  # the terms of each field, in order (phrases need positions)
    weights: dict[str, float]  # term → weight of the term in this entry
    surface: set[str]  # the folded words behind the terms (typos are measured against these)


def analyse(entry: Entry) -> Indexed:
    field_words = [words(f.text) for f in entry.fields]
    field_terms = [terms_of(found) for found in field_words]
    weights: dict[str, float] = defaultdict(float)
    for f, found in zip(entry.fields, field_terms):
        counts: dict[str, int] = defaultdict(int)
        for term in found:
            counts[term] += 1
        for term, count in counts.items():
            weights[term] += field_weight(f.weight, count, len(found))
    surface = {w for found in field_words for w in found if w not in STOP_WORDS}
    return Indexed(entry, field_terms, dict(weights), surface)


class UserIndex:
    def __init__(self, meaning: UserMeaning | None = None) -> None:
        self.meaning = meaning  # the vectors of search by meaning, kept in step with the entries
        self.entries: dict[Key, Indexed] = {}
        self.postings: dict[str, dict[Key, float]] = {}
        self._surface: dict[str, int] = {}  # folded word → how many entries hold it
        self._by_length: dict[int, set[str]] = defaultdict(set)
        self._length_lists: dict[int, list[str]] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def put(self, entry: Entry) -> None:
        key = (entry.kind, entry.id)
        self.remove(key)
        indexed = analyse(entry)
        self.entries[key] = indexed
        for term, weight in indexed.weights.items():
            posting = self.postings.get(term)
            if posting is None:
                posting = self.postings[term] = {}
            posting[key] = weight
        new_words = []
        for word in indexed.surface:
            count = self._surface.get(word, 0)
            self._surface[word] = count + 1
            if not count:
                new_words.append(word)
                self._by_length[len(word)].add(word)
                self._length_lists.pop(len(word), None)
        if self.meaning is not None:
            self.meaning.entry_put(key, (f.text for f in entry.fields), new_words)

    def remove(self, key: Key) -> None:
        indexed = self.entries.pop(key, None)
        if indexed is None:
            return
        for term in indexed.weights:
            posting = self.postings[term]
            del posting[key]
            if not posting:
                del self.postings[term]
        gone_words = []
        for word in indexed.surface:
            count = self._surface[word] - 1
            if count:
                self._surface[word] = count
            else:
                gone_words.append(word)
                del self._surface[word]
                self._by_length[len(word)].discard(word)
                self._length_lists.pop(len(word), None)
        if self.meaning is not None:
            self.meaning.entry_removed(key, gone_words)

    def keys_of_kind(self, kind: str) -> list[Key]:
        return [key for key in self.entries if key[0] == kind]

    def similar_terms(self, word: str, budget: int) -> list[tuple[str, int]]:
        """Index terms of the stored words within ``budget`` edits of the folded query ``word``
        (only the word lengths that can match are compared), with their distance."""
        found: dict[str, int] = {}
        for length in range(max(1, len(word) - budget), len(word) + budget + 1):
            choices = self._length_lists.get(length)
            if choices is None:
                choices = self._length_lists[length] = sorted(self._by_length.get(length, ()))
            if choices:
                for match, distance, _ in process.extract(
                    word, choices, scorer=Levenshtein.distance, score_cutoff=budget, limit=None
                ):
                    term = stem(match)
                    if term in self.postings and int(distance) < found.get(term, budget + 1):
                        found[term] = int(distance)
        return sorted(found.items())
