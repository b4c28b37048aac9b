"""Spotify "Extended streaming history" (``Streaming_History_Audio_*.json``): ``ts`` (when the
stream ended, UTC), ``ms_played``, ``master_metadata_track_name``,
``master_metadata_album_artist_name``, ``master_metadata_album_album_name``, ``spotify_track_uri``
("spotify:track:<id>"), ``incognito_mode``, and for podcasts and audiobooks ``episode_name``,
``spotify_episode_uri``, ``audiobook_title`` … with the track fields null. ``skipped``,
``reason_end`` and the like are ignored: only the time played makes a skip."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from service.history.rows import Row, bad_row, text
from service.timeutil import as_utc

NAME = "spotify-extended"
_TRACK_URI = re.compile(r"spotify:track:([0-9A-Za-z]{10,80})")
_NOT_MUSIC = ("episode_name", "spotify_episode_uri", "audiobook_title", "audiobook_uri", "audiobook_chapter_uri")


def looks_like(first: Any) -> bool:
    return isinstance(first, dict) and "ts" in first and "ms_played" in first


def rows(element: Any, where: str) -> Iterator[Row]:
    if not isinstance(element, dict):
        raise bad_row(where, "an extended streaming history row is an object")
    try:
        ended = as_utc(datetime.fromisoformat(element["ts"])).replace(microsecond=0)
    except (KeyError, TypeError, ValueError):
        raise bad_row(where, "ts is not an ISO 8601 time") from None
    ms = element.get("ms_played")
    if type(ms) is not int or ms < 0:
        raise bad_row(where, "ms_played is not a whole number of milliseconds")
    artist = text(element.get("master_metadata_album_artist_name"))
    track = text(element.get("master_metadata_track_name"))
    uri = element.get("spotify_track_uri")
    found = _TRACK_URI.fullmatch(uri) if isinstance(uri, str) else None
    other = any(element.get(field) is not None for field in _NOT_MUSIC)
    yield Row(
        artist,
        track,
        text(element.get("master_metadata_album_album_name")),
        found.group(1) if found else None,
        ended,
        ms,
        music=artist is not None and not other,
        private=element.get("incognito_mode") is True,
    )
