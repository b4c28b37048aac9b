"""Spotify "Account data" (``StreamingHistory_music_*.json``): ``endTime`` (UTC,
"YYYY-MM-DD HH:MM"), ``artistName``, ``trackName``, ``msPlayed``. Its podcast files
(``StreamingHistory_podcast_*.json``) name ``podcastName`` and ``episodeName`` instead: not music."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from service.history.rows import Row, bad_row, text

NAME = "spotify-account"


def looks_like(first: Any) -> bool:
    return isinstance(first, dict) and "endTime" in first and "msPlayed" in first


def rows(element: Any, where: str) -> Iterator[Row]:
    if not isinstance(element, dict):
        raise bad_row(where, "a Spotify account-data row is an object")
    try:
        ended = datetime.strptime(element["endTime"], "%Y-%m-%d %H:%M").replace(tzinfo=UTC)
    except (KeyError, TypeError, ValueError):
        raise bad_row(where, "endTime is not 'YYYY-MM-DD HH:MM'") from None
    ms = element.get("msPlayed")
    if type(ms) is not int or ms < 0:
        raise bad_row(where, "msPlayed is not a whole number of milliseconds")
    artist, track = text(element.get("artistName")), text(element.get("trackName"))
    podcast = element.get("podcastName") is not None or element.get("episodeName") is not None
    yield Row(artist, track, None, None, ended, ms, music=artist is not None and not podcast, private=False)
