"""One row of a listening history, whatever format it came in: what was played, when, for how
long, and whether it can be a play at all (music, not a private session)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.errors import InvalidArgument


@dataclass(frozen=True, slots=True)
class Row:
    artist: str | None
    track: str | None
    album: str | None
    track_id: str | None  # the catalog id the row names its track by, if any (``track_ids``)
    played_at: datetime | None  # as the source stamps it (Spotify: when the stream ended), whole seconds
    ms_played: int | None  # None: the source lists only plays (Last.fm scrobbles)
    music: bool  # False: a podcast episode, an audiobook, or a row naming no artist
    private: bool  # played in a private session


def text(value: Any) -> str | None:
    """A name as stored: blank counts as absent."""
    if not isinstance(value, str):
        return None
    return value.strip() or None


def bad_row(where: str, message: str) -> InvalidArgument:
    return InvalidArgument(f"{where}: {message}", {"field": "path", "reason": "malformed_history"})
