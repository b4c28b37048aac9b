"""Last.fm ``user.getRecentTracks`` pages as the API returns them (``{"recenttracks": {"track":
[...]}}``, one page per file or a JSON array of pages): ``artist["#text"]``, ``name``,
``album["#text"]``, ``mbid``, ``date.uts``. A now-playing row has no date and is not history yet
(it comes back dated on a later page): it is left out, not counted. Scrobbles are plays by
Last.fm's own rule (half the track or four minutes), so no row is a skip. A track ``mbid`` (a
MusicBrainz recording id, often empty) gives the row its track id (``track_ids.from_mbid``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from service.history.rows import Row, bad_row, text
from service.history.track_ids import from_mbid

NAME = "lastfm"


def looks_like(first: Any) -> bool:
    return isinstance(first, dict) and isinstance(first.get("recenttracks"), dict)


def _name(value: Any) -> str | None:
    # Plain pages say "#text"; pages asked for with extended=1 say "name".
    return text(value.get("#text") or value.get("name")) if isinstance(value, dict) else text(value)


def rows(element: Any, where: str) -> Iterator[Row]:
    page = element.get("recenttracks") if isinstance(element, dict) else None
    tracks = page.get("track") if isinstance(page, dict) else None
    if isinstance(tracks, dict):  # a page of one track: the API's XML-to-JSON gives the object
        tracks = [tracks]
    if not isinstance(tracks, list):
        raise bad_row(where, "a Last.fm page holds recenttracks.track[]")
    for i, track in enumerate(tracks):
        if not isinstance(track, dict):
            raise bad_row(f"{where} track {i}", "a Last.fm track is an object")
        date = track.get("date")
        if date is None:
            continue  # now playing
        try:
            played_at = datetime.fromtimestamp(int(date["uts"]), UTC)
        except (KeyError, TypeError, ValueError, OverflowError):
            raise bad_row(f"{where} track {i}", "date.uts is not a Unix time") from None
        artist = _name(track.get("artist"))
        yield Row(
            artist,
            text(track.get("name")),
            _name(track.get("album")),
            from_mbid(track.get("mbid")),
            played_at,
            None,
            music=artist is not None,
            private=False,
        )
