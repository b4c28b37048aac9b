"""What a rule check found, and the page of it an answer shows.

A rule that may break hundreds of times over (an artist limit across a long playlist) adds its
violations unwritten, each written out when first read: an answer shows a page of them and a rule
report ten, but both count them all.
"""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from typing import Any, overload

from service.limits import json_bytes
from service.paging import PAGE_BYTES, fitting, shares

MAX_VIOLATIONS = 50  # per page
MAX_LISTED_IDS = 50  # per violation: the answer stays small whatever the playlist's length
LISTS = ("violations", "unverified", "unknown_tracks")

Violation = dict[str, Any]


def listed(track_ids: list[str]) -> list[str]:
    return list(dict.fromkeys(track_ids))[:MAX_LISTED_IDS]


def violation(rule: str, track_ids: list[str], message: str, suggestion: str) -> Violation:
    return {"rule": rule, "track_ids": listed(track_ids), "message": message, "suggestion": suggestion}


class Found(Sequence[Violation]):
    """Violations in the order found; those added by ``add_unwritten`` are written when first read."""

    def __init__(self) -> None:
        self._items: list[Violation | None] = []  # None: not written yet
        # Where each run of unwritten violations starts, what writes one, and what it is written of.
        self._starts: list[int] = []
        self._runs: list[tuple[Callable[[Any], Violation], Sequence[Any]]] = []

    def append(self, violation: Violation) -> None:
        self._items.append(violation)

    def add_unwritten(self, write: Callable[[Any], Violation], of: Sequence[Any]) -> None:
        """One violation for each of ``of``, ``write(item)`` when read (a few objects for any number)."""
        if of:
            self._starts.append(len(self._items))
            self._runs.append((write, of))
            self._items += [None] * len(of)

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, at: int) -> Violation: ...
    @overload
    def __getitem__(self, at: slice) -> list[Violation]: ...
    def __getitem__(self, at: int | slice) -> Violation | list[Violation]:
        if isinstance(at, slice):
            return [self._written(i) for i in range(*at.indices(len(self._items)))]
        return self._written(range(len(self._items))[at])

    def _written(self, i: int) -> Violation:
        item = self._items[i]
        if item is None:
            run = bisect_right(self._starts, i) - 1
            write, of = self._runs[run]
            item = self._items[i] = write(of[i - self._starts[run]])
        return item


class FirstNamed(Sequence[str]):
    """The keys of ``wanted`` in the order a playlist first names them (a track's keys in their
    order), found by walking the playlist only as far as the keys read so far need."""

    def __init__(
        self, track_ids: list[str], keys_of: Callable[[str, tuple[str, ...]], tuple[str, ...]], wanted: set[str]
    ) -> None:
        self._tracks = iter(track_ids)
        self._keys_of = keys_of
        self._left = set(wanted)
        self._found: list[str] = []
        self._count = len(wanted)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, at: int) -> str: ...
    @overload
    def __getitem__(self, at: slice) -> list[str]: ...
    def __getitem__(self, at: int | slice) -> str | list[str]:
        if isinstance(at, slice):
            return [self[i] for i in range(*at.indices(self._count))]
        at = range(self._count)[at]
        while len(self._found) <= at:
            for key in self._keys_of(next(self._tracks), ()):
                if key in self._left:
                    self._left.discard(key)
                    self._found.append(key)
        return self._found[at]


def page(
    lists: Mapping[str, Sequence[Any]], rules: dict[str, Any], at: Mapping[str, int]
) -> tuple[dict[str, Any], dict[str, int]]:
    """(the answer but its cursor: each of ``LISTS`` paged on from ``at``, with the counts; where
    each page stops). Only the violations the page shows are written out."""
    taken = shares(lists, at, PAGE_BYTES - json_bytes(rules))
    taken["violations"] = min(taken["violations"], MAX_VIOLATIONS)
    after = {k: at[k] + taken[k] for k in lists}
    answer = {
        "ok": not lists["violations"] and not lists["unverified"],
        **{k: v[at[k] : after[k]] for k, v in lists.items()},
        "violation_count": len(lists["violations"]),
        "unknown_count": len(lists["unknown_tracks"]),
        "rules": rules,
    }
    return answer, after


def first_page_head(lists: Mapping[str, Sequence[Any]], rules: dict[str, Any], most: int) -> dict[str, list[Any]]:
    """Each list as the first ``page`` shows it, the violations cut to ``most`` (at most
    ``MAX_VIOLATIONS``), writing out no more violations than that when it can: a page's first
    round gives each list with items an equal share, and when the other lists end within theirs
    and the first ``most`` violations fit in their own, the second round only adds violations."""
    violations = lists["violations"]
    others = [k for k in LISTS if k != "violations" and lists[k]]
    if len(violations) > most:
        first = list(violations[:most])
        share = max(0, PAGE_BYTES - json_bytes(rules) - sum(json_bytes([]) for _ in lists)) // (1 + len(others))
        if fitting(first, share) == most and all(fitting(lists[k], share) == len(lists[k]) for k in others):
            return {"violations": first, **{k: list(lists[k]) for k in LISTS if k != "violations"}}
    answer, _ = page(lists, rules, dict.fromkeys(LISTS, 0))
    return {k: answer[k][:most] if k == "violations" else answer[k] for k in LISTS}


def request_digest(track_ids: list[str], rules: dict[str, Any]) -> str:
    """What a cursor names besides where it stopped: the request it pages (the tracks and the rules)."""
    return hashlib.sha256(json.dumps([track_ids, rules], sort_keys=True).encode()).hexdigest()[:16]
