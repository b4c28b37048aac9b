"""Exact differences between two track lists, as an edit script and as a report.

An edit script is what RESYNC and UNDO events store: ``removed`` lists ``[index, track_id]`` of the
old list, ``added`` lists ``[index, track_id]`` of the new one (both ascending). Dropping the
removed positions from the old list and placing the added tracks at their positions yields the new
list exactly, so replaying the event needs nothing but the state before it. The script is near
minimal and costs O(n log n) (``pair_lists``).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from service.errors import StaleEditScript


@dataclass(frozen=True)
class Pairing:
    """How the old and new lists line up. The first ``prefix`` and last ``suffix`` tracks are the
    same in both and stay; in between, ``pairs`` are matched (old index, new index), in old order,
    and ``kept`` (indices into ``pairs``) keep their relative order: the other pairs moved."""

    prefix: int
    old_end: int  # where the common suffix starts in the old list
    new_end: int
    pairs: list[tuple[int, int]]
    kept: set[int]


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


def _common_ends(old: list[str], new: list[str]) -> tuple[int, int]:
    """Lengths of the common prefix and (not overlapping it) common suffix, by bisection on slice
    equality: the comparisons run in C, so a 10,000-track list costs microseconds, not a loop."""
    limit = min(len(old), len(new))
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if old[:middle] == new[:middle] else (low, middle - 1)
    prefix = low
    low, high = 0, limit - prefix
    while low < high:
        middle = (low + high + 1) // 2
        same = old[len(old) - middle :] == new[len(new) - middle :]
        low, high = (middle, high) if same else (low, middle - 1)
    return prefix, low


def pair_lists(old: list[str], new: list[str]) -> Pairing:
    """The kept tracks are the common prefix and suffix plus a longest common subsequence among
    occurrence-matched tracks in between (the k-th occurrence of an ID in the old list's middle pairs
    with its k-th occurrence in the new list's middle): for lists of distinct IDs it is a true longest
    common subsequence, found in O(n log n) as a longest increasing subsequence, so a 10,000-track
    resync costs milliseconds rather than difflib's quadratic worst case."""
    # A resync or an undo usually touches a few tracks: the common ends stay in place (some longest
    # common subsequence always contains them), so only the middle is matched.
    prefix, suffix = _common_ends(old, new)
    old_end, new_end = len(old) - suffix, len(new) - suffix
    positions: dict[str, list[int]] = defaultdict(list)
    for j in range(prefix, new_end):
        positions[new[j]].append(j)
    seen: dict[str, int] = defaultdict(int)
    pairs: list[tuple[int, int]] = []
    for i in range(prefix, old_end):
        track = old[i]
        k = seen[track]
        candidates = positions.get(track)
        if candidates is not None and k < len(candidates):
            pairs.append((i, candidates[k]))
            seen[track] = k + 1
    return Pairing(prefix, old_end, new_end, pairs, _longest_increasing([j for _, j in pairs]))


def edit_script(old: list[str], new: list[str]) -> dict[str, list[list[Any]]]:
    """The ``removed``/``added`` script that turns ``old`` into ``new``."""
    pairing = pair_lists(old, new)
    kept_old = {pairing.pairs[p][0] for p in pairing.kept}
    kept_new = {pairing.pairs[p][1] for p in pairing.kept}
    return {
        "removed": [[i, old[i]] for i in range(pairing.prefix, pairing.old_end) if i not in kept_old],
        "added": [[j, new[j]] for j in range(pairing.prefix, pairing.new_end) if j not in kept_new],
    }


def apply_script(tracks: list[str], removed: list[list[Any]], added: list[list[Any]], check: bool) -> list[str]:
    """The list after an edit script. ``check``: refuse a script written for another list (a
    commit checks; a replay of a stored event trusts it)."""
    gone = {index for index, _ in removed}
    if check:
        stale = [index for index, track in removed if index >= len(tracks) or tracks[index] != track]
        final = len(tracks) - len(gone) + len(added)
        if stale or any(index > final - 1 for index, _ in added):
            raise StaleEditScript(
                "the edit does not fit the playlist's current contents",
                {"field": "track_ids", "stale_positions": stale[:20]},
            )
    kept = iter([t for i, t in enumerate(tracks) if i not in gone] if gone else tracks)
    placed = dict(added)
    return [placed[j] if j in placed else next(kept) for j in range(len(tracks) - len(gone) + len(added))]


def diff_report(old: list[str], new: list[str]) -> dict[str, list[dict[str, Any]]]:
    """What a person reads: tracks added (index in ``new``), removed (index in ``old``) and moved
    (both indices): every matched track outside the kept subsequence moved."""
    pairing = pair_lists(old, new)
    matched_old = {i for i, _ in pairing.pairs}
    matched_new = {j for _, j in pairing.pairs}
    return {
        "added": [
            {"track_id": new[j], "index": j} for j in range(pairing.prefix, pairing.new_end) if j not in matched_new
        ],
        "removed": [
            {"track_id": old[i], "index": i} for i in range(pairing.prefix, pairing.old_end) if i not in matched_old
        ],
        "moved": [
            {"track_id": old[i], "from_index": i, "to_index": j}
            for p, (i, j) in enumerate(pairing.pairs)
            if p not in pairing.kept
        ],
    }
