"""One section's candidates drawn from the preference events, kept sorted between calls: by rank,
by the tokens a line costs (to find the next line that fits) and by word (to find focus matches).

An entry's ``key`` orders it as ``rank.rank_key`` does, except that the source position (which an
older event written later shifts) is stood for by what it is computed from: an event's (timestamp,
order of recording, id), a pairwise standing's (newest choice, subject). Within a section two
entries never tie before it (a like and a choice differ in wins, a dislike and a passed-over
subject in importance), so that order is the rank order; ``UserContext.position`` gives the
position itself where a candidate of another source is compared.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

from service.context.candidates import Candidate
from service.context.quoting import line_tokens

Key = tuple[Any, ...]  # (-importance, -wins, fuzzy, -moment, (source, its order), line, ref)


@dataclass(frozen=True, eq=False)
class Entry:
    key: Key
    candidate: Candidate
    cost: int  # the tokens of its line


def entry(candidate: Candidate, source: int, place: Any) -> Entry:
    """``source`` 0: an event, ``place`` its (timestamp, recorded_ns, id); 1: a standing, ``place``
    its (-newest, subject)."""
    c = candidate
    key = (-c.importance, -c.wins, c.fuzzy, -c.moment, (source, place), c.line, c.ref)
    return Entry(key, candidate, line_tokens(c.line))


class KeptSection:
    def __init__(self) -> None:
        self.keys: list[Key] = []  # sorted
        self.entries: list[Entry] = []  # in the order of ``keys``
        self.by_key: dict[Key, Entry] = {}
        self.by_cost: dict[int, list[Key]] = {}  # tokens → the keys of the lines that cost that, sorted
        self.costs: list[int] = []  # the costs present, ascending
        self.postings: dict[str, set[Key]] = {}  # word → the keys of the entries holding it

    def __len__(self) -> int:
        return len(self.keys)

    def load(self, entries: list[Entry]) -> None:
        """Many at once (a build from the store): sorted once instead of inserted one by one."""
        for e in entries:
            self._index(e).append(e.key)
        self.entries = sorted([*self.entries, *entries], key=lambda e: e.key)
        self.keys = [e.key for e in self.entries]
        for bucket in self.by_cost.values():
            bucket.sort()

    def add(self, e: Entry) -> None:
        at = bisect.bisect_left(self.keys, e.key)
        self.keys.insert(at, e.key)
        self.entries.insert(at, e)
        bisect.insort(self._index(e), e.key)

    def remove(self, e: Entry) -> None:
        if self.by_key.pop(e.key, None) is None:
            return
        at = bisect.bisect_left(self.keys, e.key)
        del self.keys[at]
        del self.entries[at]
        bucket = self.by_cost[e.cost]
        del bucket[bisect.bisect_left(bucket, e.key)]
        if not bucket:
            del self.by_cost[e.cost]
            self.costs.remove(e.cost)
        for word in e.candidate.words:
            holding = self.postings.get(word)
            if holding is not None:
                holding.discard(e.key)
                if not holding:
                    del self.postings[word]

    def _index(self, e: Entry) -> list[Key]:
        """Indexed by key and word; returns the entry's cost bucket, for the caller to put its key in."""
        self.by_key[e.key] = e
        for word in e.candidate.words:
            self.postings.setdefault(word, set()).add(e.key)
        bucket = self.by_cost.get(e.cost)
        if bucket is None:
            bucket = self.by_cost[e.cost] = []
            bisect.insort(self.costs, e.cost)
        return bucket

    def index_of(self, key: Key) -> int:
        return bisect.bisect_left(self.keys, key)

    def first_fitting(self, start: int, room: int, skip: set[Key]) -> int | None:
        """The first index from ``start`` whose line costs at most ``room`` and whose key is not in
        ``skip``: per cost that fits, one search in its bucket, so a long run of lines too long is
        never walked."""
        if start >= len(self.keys):
            return None
        entry_at = self.entries[start]
        if entry_at.cost <= room and entry_at.key not in skip:
            return start
        from_key = self.keys[start]
        best: int | None = None
        for cost in self.costs:
            if cost > room:
                break
            bucket = self.by_cost[cost]
            at = bisect.bisect_left(bucket, from_key)
            while at < len(bucket) and bucket[at] in skip:
                at += 1
            if at < len(bucket):
                index = bisect.bisect_left(self.keys, bucket[at])
                best = index if best is None else min(best, index)
        return best
