"""What makes a catalog track the same recording on other services: its external ids, and the
ids a pasted link or code names.

A track's ``external_ids`` hold up to five ids (ISRC, Spotify, Apple Music, MusicBrainz recording,
Last.fm mbid). They are kept in one spelling (ISRC upper case, the UUIDs lower case) so that a
lookup is an equality. The catalog's own track ids are Spotify ids in this service, so a track
whose ``track_id`` has the Spotify id's shape is also known on Spotify by it.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import SplitResult, parse_qs, urlsplit

from models.documents.tracks import EXTERNAL_ID_KEYS as EXTERNAL_KEYS

SPOTIFY_ID = re.compile(r"[0-9A-Za-z]{22}")
_ISRC = re.compile(r"[A-Za-z]{2}[A-Za-z0-9]{3}[0-9]{7}")
_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
_APPLE_ID = re.compile(r"[0-9]{1,15}")
_SPOTIFY_URI = re.compile(r"spotify:track:([0-9A-Za-z]{22})")
# The track segment of an open.spotify.com path, after an optional locale ("/intl-de/track/…").
_SPOTIFY_PATH = re.compile(r"/(?:intl-[A-Za-z-]+/)?track/([0-9A-Za-z]{22})/?")


def spelled(ids: dict[str, Any] | None) -> dict[str, str]:
    """The ids given, in their stored spelling; absent and null ones left out."""
    out: dict[str, str] = {}
    for key in EXTERNAL_KEYS:
        value = (ids or {}).get(key)
        if isinstance(value, str) and value:
            out[key] = value.upper() if key == "isrc" else value.lower() if _UUID.fullmatch(value) else value
    return out


def spotify_id_of(track_id: str, ids: dict[str, str]) -> str | None:
    """The track's Spotify id: the one it names, else its own id when shaped like one."""
    return ids.get("spotify") or (track_id if SPOTIFY_ID.fullmatch(track_id) else None)


def _apple(url: SplitResult) -> str | None:
    """The song id of a music.apple.com link: ``…/album/<name>/<album id>?i=<song id>`` or
    ``…/song/<name>/<song id>``."""
    songs = parse_qs(url.query).get("i")
    if songs:
        return songs[0] if _APPLE_ID.fullmatch(songs[0]) else None
    parts = [p for p in url.path.split("/") if p]
    if "song" in parts and _APPLE_ID.fullmatch(parts[-1]):
        return parts[-1]
    return None


def pasted_ids(text: str) -> list[tuple[str, str]] | None:
    """The (key, id) pairs a pasted link or code can mean, or None when ``text`` is not one (it
    is then words to resolve). A bare UUID is a MusicBrainz recording id, which is also what
    Last.fm calls a track's mbid, so both are asked."""
    text = text.strip()
    if found := _SPOTIFY_URI.fullmatch(text):
        return [("spotify", found.group(1))]
    if _ISRC.fullmatch(text):
        return [("isrc", text.upper())]
    if _UUID.fullmatch(text):
        return [("musicbrainz_recording", text.lower()), ("lastfm_mbid", text.lower())]
    if not re.match(r"(?i)https?://", text):
        return None
    url = urlsplit(text)
    host = (url.hostname or "").lower()
    if host == "open.spotify.com":
        found = _SPOTIFY_PATH.fullmatch(url.path)
        return [("spotify", found.group(1))] if found else []
    if host in ("music.apple.com", "itunes.apple.com", "geo.music.apple.com"):
        song = _apple(url)
        return [("apple_music", song)] if song else []
    if host.endswith("musicbrainz.org"):
        parts = [p for p in url.path.split("/") if p]
        if len(parts) == 2 and parts[0] == "recording" and _UUID.fullmatch(parts[1]):
            return [("musicbrainz_recording", parts[1].lower())]
        return []
    return []  # a link to somewhere else: nothing in the catalog is known by it


def identity_filter(pairs: list[tuple[str, str]], user_key: Any) -> list[dict[str, Any]]:
    """The ``$or`` clauses finding the tracks that hold any of ``pairs`` (a Spotify id also as
    the track's own id; ``user_key`` turns a track id into the document key)."""
    by_key: dict[str, list[str]] = {}
    for key, value in pairs:
        by_key.setdefault(key, []).append(value)
    clauses: list[dict[str, Any]] = [{f"external_ids.{k}": {"$in": v}} for k, v in by_key.items()]
    if "spotify" in by_key:
        clauses.append({"_id": {"$in": [user_key(v) for v in by_key["spotify"]]}})
    return clauses


def held(document: dict[str, Any]) -> list[tuple[str, str]]:
    """Every (key, id) a stored track is known by, its own Spotify-shaped id included."""
    ids = document.get("external_ids") or {}
    pairs = [(k, ids[k]) for k in EXTERNAL_KEYS if k in ids]
    if "spotify" not in ids and SPOTIFY_ID.fullmatch(document["track_id"]):
        pairs.append(("spotify", document["track_id"]))
    return pairs
