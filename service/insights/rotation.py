"""What is newly in rotation and what are the long-term staples, across one user's playlists.

A track is *in rotation* while at least one of the user's playlists holds it now; *new* when first
seen within the caller's window, a *staple* when in >= 3 playlists now or present for >= 90 days
and not new (``classify`` gives the definitions, which the tool description repeats for the
calling model). The two lists are disjoint; tracks in rotation that are neither are only counted.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from service.insights.presence import Presence

STAPLE_PLAYLISTS = 3
STAPLE_TENURE = timedelta(days=90)
PLAYLISTS_SHOWN = 5  # per entry; playlist_count says how many in all


def _entry(track: str, presence: Presence) -> dict[str, Any]:
    stays = presence.stays[track]
    ordered = sorted(stays.items(), key=lambda item: (item[1], item[0]))
    return {
        "track_id": track,
        "first_seen": presence.first_seen[track],
        "present_since": ordered[0][1],
        "playlist_count": len(stays),
        "playlists": [playlist_id for playlist_id, _ in ordered[:PLAYLISTS_SHOWN]],
    }


def classify(
    presence: Presence, as_of: datetime, days: int, tracks: Iterable[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The new entries and the staples among ``tracks`` (unordered: see ``in_order``).

    - ``first_seen``: the earliest moment a track entered any of the user's playlists (a creation's
      or fork's snapshot time, or the timestamp of the event that added it), even a playlist it has
      since left;
    - ``present_since``: the start of its current unbroken stay, the earliest over the playlists
      holding it now (a track removed and added back starts a new stay);
    - *new*: first seen at or after ``as_of - days``;
    - *staple*: in >= 3 playlists now (whatever its age: a track reused that much is a staple even in
      its first week), or present since >= 90 days ago and not new (the caller's window decides what
      counts as new when it is longer than 90 days).
    """
    window_start = as_of - timedelta(days=days)
    tenure_start = as_of - STAPLE_TENURE
    new: list[dict[str, Any]] = []
    staples: list[dict[str, Any]] = []
    for track in tracks:
        entry = _entry(track, presence)
        reasons = []
        if entry["playlist_count"] >= STAPLE_PLAYLISTS:
            reasons.append("in_3_or_more_playlists")
        if entry["present_since"] <= tenure_start:
            reasons.append("present_90_days_or_more")
        is_new = entry["first_seen"] >= window_start
        if reasons and (not is_new or "in_3_or_more_playlists" in reasons):
            staples.append({**entry, "reasons": reasons})
        elif is_new:
            new.append(entry)
    return new, staples


def in_order(new: list[dict[str, Any]], staples: list[dict[str, Any]]) -> None:
    """New entries newest first; staples in most playlists first, then longest present."""
    new.sort(key=lambda e: (-e["first_seen"].timestamp(), e["track_id"]))
    staples.sort(key=lambda e: (-e["playlist_count"], e["present_since"], e["track_id"]))


def named(entries: list[dict[str, Any]], described: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Entries with the catalog's name and artists (null when the catalog does not know the track)."""
    out = []
    for entry in entries:
        known = described.get(entry["track_id"])
        out.append(
            {**entry, "name": known["name"] if known else None, "artists": list(known["artists"]) if known else None}
        )
    return out
