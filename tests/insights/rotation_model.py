"""A plain reference for memory_rotation_report, written from the tool's definitions.

The model keeps every playlist as a timeline of (moment, full track list) after each change and
reads the definitions off it directly: first_seen is the earliest state holding the track,
a stay is the run of latest states holding it, and the classification follows the description
word for word. Nothing here knows about events, buckets or membership counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DAY_MS = 86_400_000


@dataclass
class RefPlaylists:
    timelines: dict[str, list[tuple[int, tuple[str, ...]]]] = field(default_factory=dict)
    undo: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)  # contents before each change in force

    def create(self, playlist_id: str, tracks: list[str], at_ms: int) -> None:
        self.timelines[playlist_id] = [(at_ms, tuple(tracks))]
        self.undo[playlist_id] = []

    def current(self, playlist_id: str) -> tuple[str, ...]:
        return self.timelines[playlist_id][-1][1]

    def at(self, playlist_id: str, at_ms: int) -> tuple[str, ...]:
        return [tracks for moment, tracks in self.timelines[playlist_id] if moment <= at_ms][-1]

    def change(self, playlist_id: str, tracks: list[str] | tuple[str, ...], at_ms: int, undoable: bool = True) -> None:
        if undoable:
            self.undo[playlist_id].append(self.current(playlist_id))
        self.timelines[playlist_id].append((at_ms, tuple(tracks)))

    def undo_last(self, playlist_id: str, at_ms: int) -> bool:
        if not self.undo[playlist_id]:
            return False
        self.change(playlist_id, self.undo[playlist_id].pop(), at_ms, undoable=False)
        return True


def entry(playlists: RefPlaylists, track: str) -> dict[str, object]:
    first_seen = min(at for timeline in playlists.timelines.values() for at, tracks in timeline if track in tracks)
    stays: dict[str, int] = {}
    for playlist_id, timeline in playlists.timelines.items():
        if track not in timeline[-1][1]:
            continue
        start = len(timeline) - 1
        while start > 0 and track in timeline[start - 1][1]:
            start -= 1
        stays[playlist_id] = timeline[start][0]
    ordered = sorted(stays, key=lambda p: (stays[p], p))
    return {
        "track_id": track,
        "first_seen": first_seen,
        "present_since": min(stays.values()),
        "playlist_count": len(stays),
        "playlists": ordered[:5],
    }


def report(playlists: RefPlaylists, as_of_ms: int, days: int) -> tuple[list[dict], list[dict], int]:
    """(new, staples, tracks in rotation), each list in the documented order."""
    in_rotation = sorted({t for timeline in playlists.timelines.values() for t in timeline[-1][1]})
    new, staples = [], []
    for track in in_rotation:
        e = entry(playlists, track)
        is_new = e["first_seen"] >= as_of_ms - days * DAY_MS
        many = e["playlist_count"] >= 3
        long_present = e["present_since"] <= as_of_ms - 90 * DAY_MS
        if many or (long_present and not is_new):
            reasons = (["in_3_or_more_playlists"] if many else []) + (
                ["present_90_days_or_more"] if long_present else []
            )
            staples.append({**e, "reasons": reasons})
        elif is_new:
            new.append(e)
    new.sort(key=lambda e: (-e["first_seen"], e["track_id"]))
    staples.sort(key=lambda e: (-e["playlist_count"], e["present_since"], e["track_id"]))
    return new, staples, len(in_rotation)
