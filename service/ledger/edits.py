"""Exact differences between two track lists, as an edit script and as a report.

An edit script is what RESYNC and UNDO events store: ``removed`` lists ``[index, track_id]`` of the
old list, ``added`` lists ``[index, track_id]`` of the new one (both ascending). Dropping the
removed positions from the old list and placing the added tracks at their positions yields the new
list exactly, so replaying the event needs nothing but the state before it.

The kept tracks are a longest common subsequence among occurrence-matched tracks (the k-th
occurrence of an ID in the old list pairs with its k-th occurrence in the new list): for lists of
distinct IDs it is a true longest common subsequence, found in O(n log n) as a longest increasing
subsequence, so a 10,000-track resync costs milliseconds rather than difflib's quadratic worst case.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from service.errors import StaleEditScript


@dataclass(frozen=True)
class Pairing:
    """How the old and new lists line up: matched (old index, new index) pairs, in old order, and
    which of them keep their relative order (the rest moved)."""

    pairs: list[tuple[int, int]]
    kept: set[int]  # indices into ``pairs``


def _longest_increasing(values: list[int]) -> set[int]:
    """Positions (into ``values``) of one longest strictly increasing subsequence."""
    tails: list[int] = []  # tails[k]: index of the smallest tail of an increasing run of length k+1
    tail_values: list[int] = []
    previous: list[int] = [-1] * len(values)
    for i, value in enumerate(values):
        k = bisect.bisect_left(tail_values, value)
        previous[i] = tails[k - 1] if k else -1
        if k == len(tails):
            tails.append(i)
            tail_values.append(value)
        else:
            tails[k] = i
            tail_values[k] = value
    chosen: set[int] = set()
    i = tails[-1] if tails else -1
    while i != -1:
        chosen.add(i)
        i = previous[i]
    return chosen


def pair_lists(old: list[str], new: list[str]) -> Pairing:
    positions: dict[str, list[int]] = defaultdict(list)
    for j, track in enumerate(new):
        positions[track].append(j)
    seen: dict[str, int] = defaultdict(int)
    pairs: list[tuple[int, int]] = []
    for i, track in enumerate(old):
        k = seen[track]
        candidates = positions.get(track)
        if candidates is not None and k < len(candidates):
            pairs.append((i, candidates[k]))
            seen[track] = k + 1
    return Pairing(pairs, _longest_increasing([j for _, j in pairs]))


def edit_script(old: list[str], new: list[str]) -> dict[str, list[list[Any]]]:
    """The ``removed``/``added`` script that turns ``old`` into ``new``."""
    pairing = pair_lists(old, new)
    kept_old = {pairing.pairs[p][0] for p in pairing.kept}
    kept_new = {pairing.pairs[p][1] for p in pairing.kept}
    return {
        "removed": [[i, t] for i, t in enumerate(old) if i not in kept_old],
        "added": [[j, t] for j, t in enumerate(new) if j not in kept_new],
    }


def apply_script(tracks: list[str], removed: list[list[Any]], added: list[list[Any]], check: bool) -> list[str]:
    """The list after an edit script. ``check``: refuse a script written for another list (a
    commit checks; a replay of a stored event trusts it)."""
    gone = {index for index, _ in removed}
    if check:
        stale = [index for index, track in removed if index >= len(tracks) or tracks[index] != track]
        final = len(tracks) - len(gone) + len(added)
        if stale or any(index > final - 1 for index, _ in added):
            raise StaleEditScript("the edit does not fit the playlist's current contents",
                                  {"field": "track_ids", "stale_positions": stale[:20]})
    kept = iter([t for i, t in enumerate(tracks) if i not in gone] if gone else tracks)
    placed = {index: track for index, track in added}
    return [placed[j] if j in placed else next(kept) for j in range(len(tracks) - len(gone) + len(added))]


def diff_report(old: list[str], new: list[str]) -> dict[str, list[dict[str, Any]]]:
    """What a person reads: tracks added (index in ``new``), removed (index in ``old``) and moved
    (both indices): every matched track outside the kept subsequence moved."""
    pairing = pair_lists(old, new)
    matched_old = {i for i, _ in pairing.pairs}
    matched_new = {j for _, j in pairing.pairs}
    return {
        "added": [{"track_id": t, "index": j} for j, t in enumerate(new) if j not in matched_new],
        "removed": [{"track_id": t, "index": i} for i, t in enumerate(old) if i not in matched_old],
        "moved": [
            {"track_id": old[i], "from_index": i, "to_index": j}
            for p, (i, j) in enumerate(pairing.pairs) if p not in pairing.kept
        ],
    }
