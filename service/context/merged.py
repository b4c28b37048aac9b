"""A kept section (``KeptSection``: the events' lines, thousands) and this call's other candidates
of the section (the profile's, the memories', the playlists', the follow-ups': a few dozen) as one
``Order``, without laying the kept ones out: the focus matches are found through the word index
and put first; the others are placed among the kept lines by binary search, and an index in the
order is mapped to a kept line (or back) by counting, in logarithmic time.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from service.context.candidates import Candidate
from service.context.kept_section import Entry, KeptSection, Key
from service.context.order import Scored
from service.context.quoting import line_tokens
from service.context.rank import focus_score, rank_key


class MergedOrder:
    def __init__(
        self,
        kept: KeptSection,
        true_key: Callable[[Entry], tuple[Any, ...]],
        others: list[Candidate],
        focus_terms: frozenset[str],
    ) -> None:
        self._skip: set[Key] = set()
        found: list[tuple[float, Key, Entry]] = []
        if focus_terms:  # a kept line matches when it holds a focus word: the word index finds them
            self._skip = set().union(*(kept.postings.get(t, ()) for t in focus_terms))
            found = [
                (-round(focus_score(focus_terms, kept.by_key[k].candidate), 3), k, kept.by_key[k]) for k in self._skip
            ]
            found.sort(key=lambda m: (m[0], m[1]))  # within a score, kept keys order as true keys do
        rest: list[Candidate] = []
        extra: list[tuple[tuple[Any, ...], float, Candidate]] = []
        for c in others:
            score = round(focus_score(focus_terms, c), 3)
            if score > 0:
                extra.append(((-score, *rank_key(c)), score, c))
            else:
                rest.append(c)
        extra.sort(key=lambda m: m[0])
        self._matched: list[Scored] = []
        self._matched_costs: list[int] = []
        start = 0
        for full, score, c in extra:  # the call's own matches placed among the kept ones
            at = bisect.bisect_left(found, full, lo=start, key=lambda m: (m[0], *true_key(m[2])))
            self._take(found[start:at])
            self._matched.append((score, c))
            self._matched_costs.append(line_tokens(c.line))
            start = at
        self._take(found[start:])
        self.matched = len(self._matched)
        self._kept = kept
        self._excluded = sorted(kept.index_of(key) for key in self._skip)  # matched kept lines, by index
        rest.sort(key=rank_key)
        self._others = rest
        self._other_costs = [line_tokens(c.line) for c in rest]
        # Where each other candidate goes among the kept lines (before the kept line of that index)...
        self._inserted = [_insertion(kept, rank_key(c), true_key) for c in rest]
        # ...and so its index among the unmatched ones.
        self._at = [p - bisect.bisect_left(self._excluded, p) + k for k, p in enumerate(self._inserted)]
        self._len = self.matched + len(kept) - len(self._excluded) + len(rest)

    def __len__(self) -> int:
        return self._len

    def _take(self, found: list[tuple[float, Key, Entry]]) -> None:
        self._matched += [(-negative, e.candidate) for negative, _, e in found]
        self._matched_costs += [e.cost for _, _, e in found]

    def item(self, index: int) -> Scored:
        if index < self.matched:
            return self._matched[index]
        rest = index - self.matched
        k = bisect.bisect_left(self._at, rest)
        if k < len(self._at) and self._at[k] == rest:
            return 0.0, self._others[k]
        return 0.0, self._kept.entries[self._kept_index(rest - k)].candidate

    def _kept_index(self, n: int) -> int:
        """The index of the ``n``-th unmatched kept line (from 0): the least b with b = n + the
        matched lines up to b."""
        b = n
        while (moved := n + bisect.bisect_right(self._excluded, b)) != b:
            b = moved
        return b

    def _rest_index(self, b: int) -> int:
        """The inverse: where the unmatched kept line of index ``b`` stands among the unmatched."""
        return b - bisect.bisect_left(self._excluded, b) + bisect.bisect_right(self._inserted, b)

    def first_fitting(self, start: int, end: int, room: int) -> int | None:
        if start < self.matched:  # the matches are this call's own list: walked
            for index in range(start, min(end, self.matched)):
                if self._matched_costs[index] <= room:
                    return index
            return None
        rest, rest_end = start - self.matched, end - self.matched
        best: int | None = None
        k = bisect.bisect_left(self._at, rest)
        for j in range(k, len(self._at)):
            if self._at[j] >= rest_end:
                break
            if self._other_costs[j] <= room:
                best = self._at[j]
                break
        n = rest - k  # unmatched kept lines before ``rest``
        if n < len(self._kept) - len(self._excluded):
            found = self._kept.first_fitting(self._kept_index(n), room, self._skip)
            if found is not None:
                index = self._rest_index(found)
                best = index if best is None else min(best, index)
        if best is None or best >= rest_end:
            return None
        return self.matched + best


def _insertion(kept: KeptSection, key: tuple[Any, ...], true_key: Callable[[Entry], tuple[Any, ...]]) -> int:
    """Where a candidate of rank ``key`` goes among the kept lines: by the kept keys, and among the
    kept lines that tie with it up to the source position (rarely any), by their true keys."""
    tied = key[:4]
    low = bisect.bisect_left(kept.keys, tied)
    high = bisect.bisect_right(kept.keys, tied, lo=low, key=lambda k: k[:4])
    return bisect.bisect_left(kept.entries, key, lo=low, hi=high, key=true_key)
