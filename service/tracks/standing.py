"""Where a playlist's tracks stand against the catalog, as the rules read it: each track's position,
whether any is listed twice, which it names that the catalog does not know, and which of the
catalog it leaves out (counting those is the shorter way when it holds most of the catalog).
"""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from typing import Any

from service.tracks.facts import TrackFacts


class Standing:
    def __init__(self, track_ids: list[str], known: dict[str, dict[str, Any]], facts: TrackFacts | None = None) -> None:
        """``known``: the catalog's descriptions of (at least) the playlist's known tracks; ``facts``:
        what the rules read of them, when the caller keeps it with the catalog (else read from ``known``)."""
        self.track_ids = track_ids
        self.known = known
        self.facts = (
            facts if facts is not None else TrackFacts(known[t] for t in dict.fromkeys(track_ids) if t in known)
        )
        self.position = dict(zip(track_ids, range(len(track_ids))))  # a track's last position
        self.once = len(self.position) == len(track_ids)  # no track twice

    @cached_property
    def first_position(self) -> dict[str, int]:
        """Each track's first position in the playlist."""
        if self.once:
            return self.position
        n = len(self.track_ids)
        return dict(zip(reversed(self.track_ids), range(n - 1, -1, -1), strict=True))

    def in_order(self, ids: list[str]) -> list[str]:
        """Every occurrence in the playlist of the tracks ``ids`` names, in playlist order; a track
        listed k times in ``ids`` k times per occurrence (a track two of whose artists fold alike
        counts twice for that artist)."""
        if self.once:  # sort the few found by position
            at = self.position
            return sorted(filter(at.__contains__, ids), key=at.__getitem__)
        times = Counter(ids)
        return [t for t in self.track_ids if t in times for _ in range(times[t])]

    @cached_property
    def unknown(self) -> list[str]:
        """The playlist's tracks the catalog does not know, each once."""
        if self.left_out is not None:  # as counted already: the catalog less what the playlist leaves out
            known = len(self.facts.energy) - len(self.left_out) == len(self.position)
        else:
            known = self.known.keys() >= self.position.keys()
        return [] if known else [t for t in dict.fromkeys(self.track_ids) if t not in self.known]

    @cached_property
    def left_out(self) -> set[str] | None:
        """The catalog's tracks the playlist does not hold, when counting them is the shorter way to
        count what it holds: it lists each track once and holds most of the catalog (else None)."""
        catalog = self.facts.energy  # a key for every track
        if not self.once or 2 * len(self.position) <= len(catalog):
            return None
        return catalog.keys() - self.position.keys()
