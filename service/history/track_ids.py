"""The catalog id a history row gives its track, and the external ids that id stands for.

Extended streaming history names a track by its Spotify id, which becomes the track's id (the
identity code reads a Spotify-shaped track id as the track's Spotify id). A Last.fm scrobble names
it, when it does, by its MusicBrainz recording id (``mbid``): its track id is ``mbid-`` and that id
in lower case. Derived from the mbid alone, it is the same in every file and every run, never has a
Spotify id's shape, and gives the mbid back from a stored play: plays are all the import keeps of
a row, and the catalog step reads them."""

from __future__ import annotations

import re

from service.tracks.identity import SPOTIFY_ID

MBID_PREFIX = "mbid-"
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def from_mbid(value: object) -> str | None:
    """The track id of a Last.fm track ``mbid``; None when it is empty (common) or not a UUID."""
    if not isinstance(value, str):
        return None
    mbid = value.strip().lower()
    return MBID_PREFIX + mbid if _UUID.fullmatch(mbid) else None


def external_ids(track_id: str) -> dict[str, str]:
    """The ids to store on a new catalog track of this id: an mbid-derived one holds its
    ``lastfm_mbid``; a Spotify id is the track's own id and is not repeated."""
    mbid = track_id.removeprefix(MBID_PREFIX)
    if mbid != track_id and _UUID.fullmatch(mbid):
        return {"lastfm_mbid": mbid}
    return {}


def known_as(track_id: str) -> list[tuple[str, str]]:
    """The (key, id) pairs under which another catalog track may already be this recording: the
    Spotify id, or the mbid as Last.fm's and as MusicBrainz's (they are the same id)."""
    if SPOTIFY_ID.fullmatch(track_id):
        return [("spotify", track_id)]
    mbid = external_ids(track_id).get("lastfm_mbid")
    return [("lastfm_mbid", mbid), ("musicbrainz_recording", mbid)] if mbid else []
