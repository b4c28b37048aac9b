"""What the playlist rules read of each catalog track, folded once: its artist and genre keys (and
which tracks hold each key), its duration and its energy.

Kept with the analysed catalog (``CatalogIndex``), a rule check of a long playlist looks these up
instead of folding every artist and genre name again on every check; built for the described
tracks alone where the check reads them from the store.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from service.text.entities import folded_entity
from service.text.words import folded_text

# Profiles and playlists name the same few hundred artists and genres over and over.
folded = lru_cache(maxsize=1 << 16)(folded_text)
NAMED_FIELDS = ("artists", "genres")
NameKey = tuple[str, str]  # folded title, folded artist: how a play without an id names a track
# Plays are folded as play identity folds them (``folded_entity``); a window repeats the same names.
entity = lru_cache(maxsize=1 << 14)(folded_entity)


def name_keys(track: dict[str, Any]) -> list[NameKey]:
    """The (title, artist) pairs a play without an id names this catalog track by."""
    title = entity(track.get("name") or "")
    return list(dict.fromkeys((title, entity(a)) for a in track.get("artists") or [] if isinstance(a, str)))


def play_name(play: dict[str, Any]) -> NameKey | None:
    """The (title, artist) a play names; None for a play without a track name (an artist alone)."""
    return (entity(play["track"]), entity(play["artist"])) if play.get("track") else None


class TrackFacts:
    def __init__(self, tracks: Iterable[dict[str, Any]] = ()) -> None:
        # field → track id → the folded values of the field, in the track's order
        self.keys: dict[str, dict[str, tuple[str, ...]]] = {name: {} for name in NAMED_FIELDS}
        # field → folded value → the tracks holding it, a track once per value that folds to it
        self.holders: dict[str, defaultdict[str, list[str]]] = {name: defaultdict(list) for name in NAMED_FIELDS}
        self.duration_ms: dict[str, Any] = {}  # 0 where the catalog knows none, as a sum counts it
        self.without_duration: set[str] = set()
        self.energy: dict[str, Any] = {}  # None where the catalog knows none
        self.named_by: defaultdict[NameKey, list[str]] = defaultdict(list)  # what a play without an id names
        # Derived from all of the above, dropped by ``add``.
        self._low: dict[float, frozenset[str]] = {}
        self._crowded: dict[int, frozenset[str]] = {}
        self._total_ms: Any = None
        for track in tracks:
            self.add(track)

    def add(self, track: dict[str, Any]) -> None:
        track_id = track["track_id"]
        for name in NAMED_FIELDS:
            keys = tuple(folded(value) for value in track.get(name) or [])
            self.keys[name][track_id] = keys
            for key in keys:
                self.holders[name][key].append(track_id)
        duration = track.get("duration_ms")
        self.duration_ms[track_id] = duration or 0
        if duration is None:
            self.without_duration.add(track_id)
        self.energy[track_id] = track.get("energy")
        for named in name_keys(track):
            self.named_by[named].append(track_id)
        self._low.clear()
        self._crowded.clear()
        self._total_ms = None

    def low(self, max_energy: float) -> frozenset[str]:
        """The tracks with a known energy of at most ``max_energy`` (breathers)."""
        found = self._low.get(max_energy)
        if found is None:
            found = self._low[max_energy] = frozenset(
                t for t, energy in self.energy.items() if energy is not None and energy <= max_energy
            )
        return found

    def crowded(self, limit: int) -> frozenset[str]:
        """The artists holding more than ``limit`` tracks: the only ones a playlist that lists each
        track once can hold too many of."""
        found = self._crowded.get(limit)
        if found is None:
            found = frozenset(k for k, held in self.holders["artists"].items() if len(held) > limit)
            self._crowded[limit] = found
        return found

    @property
    def total_ms(self) -> Any:
        """The catalog's duration, unknown ones counted as 0 (whole milliseconds: exact in any order)."""
        if self._total_ms is None:
            self._total_ms = sum(self.duration_ms.values())
        return self._total_ms
