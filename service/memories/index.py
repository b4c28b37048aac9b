"""One user's memories, analysed for lookups: by id, by deduplication key, by entity words
(fuzzy: by stem, and the words a typo or a word typed in part may mean) and by summary stems, and
in the order equal scores rank in.

On the embedded engine the analysed copy is kept per user (least recently used dropped) and
updated by every write of the memory store, because mongomock scans: reading 10,000 memories per
call would cost far more than the call. On real MongoDB nothing is kept between calls (another
process may write): each call reads the user's memories through the indexes.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from service.memories.keys import summary_terms
from service.text.analysis import stem
from service.text.vocabulary import WordLookup
from service.text.words import words
from service.timeutil import as_utc
from service.user_cache import UserCache

CACHED_USERS = 128
SPARSE = 8  # fewer than 1 in this many memories: sorting them beats walking the whole order


@dataclass
class Analysed:
    doc: dict[str, Any]
    entity_words: list[list[str]]  # per entity, its folded words (articles dropped)
    terms: frozenset[str]  # stems of the summary and the entities
    moment: float  # the timestamp as POSIX seconds: filters and ranking compare it without converting
    rank: tuple[int, float, str]  # how equal scores rank: more important, then more recent, then by id


def analyse(doc: dict[str, Any]) -> Analysed:
    entity_words = [words(e) or [w for w in e.casefold().split() if w] for e in doc["entities"]]
    entity_terms = {stem(w) for ws in entity_words for w in ws}
    moment = as_utc(doc["timestamp"]).timestamp()
    return Analysed(
        doc,
        entity_words,
        summary_terms(doc["summary"]) | entity_terms,
        moment,
        (-doc["importance"], -moment, doc["memory_id"]),
    )


def _open(doc: dict[str, Any]) -> bool:
    return bool(doc["type"] == "recommendation" and doc.get("validated_at") is None)


@dataclass
class MemoryIndex:
    by_id: dict[str, Analysed] = field(default_factory=dict)
    by_key: defaultdict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    vocabulary: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # entity word → ids
    postings: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # term → ids
    words: WordLookup = field(default_factory=WordLookup)  # the vocabulary's words, for fuzzy lookups
    stems: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # stem → words
    # The recommendations not validated yet, by (timestamp, id): the open follow-ups are among them.
    open_recommendations: list[tuple[datetime, str]] = field(default_factory=list)
    # Every memory's rank, sorted: made at the first query that walks it, then kept current.
    _ranks: list[tuple[int, float, str]] | None = None

    def put(self, doc: dict[str, Any]) -> None:
        self.remove(doc["memory_id"])
        analysed = analyse(doc)
        self.by_id[doc["memory_id"]] = analysed
        self.by_key[(doc["type"], doc["entity_key"])].add(doc["memory_id"])
        if self._ranks is not None:
            bisect.insort(self._ranks, analysed.rank)
        if _open(doc):
            bisect.insort(self.open_recommendations, (as_utc(doc["timestamp"]), doc["memory_id"]))
        for entity in analysed.entity_words:
            for word in entity:
                if word not in self.vocabulary:
                    self.words.add(word)
                    self.stems[stem(word)].add(word)
                self.vocabulary[word].add(doc["memory_id"])
        for term in analysed.terms:
            self.postings[term].add(doc["memory_id"])

    def remove(self, memory_id: str) -> None:
        old = self.by_id.pop(memory_id, None)
        if old is None:
            return
        key = (old.doc["type"], old.doc["entity_key"])
        self.by_key[key].discard(memory_id)
        if not self.by_key[key]:
            del self.by_key[key]
        if self._ranks is not None:
            del self._ranks[bisect.bisect_left(self._ranks, old.rank)]
        if _open(old.doc):
            opened, place = self.open_recommendations, (as_utc(old.doc["timestamp"]), memory_id)
            at = bisect.bisect_left(opened, place)
            if at < len(opened) and opened[at] == place:
                del opened[at]
            else:  # the stored dict was changed in place: found by id instead
                self.open_recommendations = [o for o in opened if o[1] != memory_id]
        for entity in old.entity_words:
            for word in entity:
                ids = self.vocabulary.get(word)
                if ids is not None:
                    ids.discard(memory_id)
                    if not ids:
                        del self.vocabulary[word]
                        self._forget_word(word)
        for term in old.terms:
            ids = self.postings.get(term)
            if ids is not None:
                ids.discard(memory_id)
                if not ids:
                    del self.postings[term]

    def _forget_word(self, word: str) -> None:
        self.words.discard(word)
        same = self.stems.get(stem(word))
        if same is not None:
            same.discard(word)
            if not same:
                del self.stems[stem(word)]

    def in_rank_order(self, ids: Collection[str]) -> Iterator[str]:
        """``ids`` (of memories held) as equal scores rank them (``Analysed.rank``): a few sorted,
        many picked from the whole order as it is walked, so a caller that stops early saves."""
        if len(ids) * SPARSE < len(self.by_id):
            yield from sorted(ids, key=lambda m: self.by_id[m].rank)
            return
        if self._ranks is None:
            self._ranks = sorted(memory.rank for memory in self.by_id.values())
        for *_, memory_id in self._ranks:
            if memory_id in ids:
                yield memory_id

    def with_key(self, memory_type: str, key: str) -> list[dict[str, Any]]:
        return [self.by_id[m].doc for m in self.by_key.get((memory_type, key), ())]

    def __len__(self) -> int:
        return len(self.by_id)


def index_cache() -> UserCache[MemoryIndex]:
    """The analysed copies kept on the embedded engine, ``CACHED_USERS`` at most."""
    return UserCache(CACHED_USERS)
