"""History files as the services document them, generated here (no real person's data): rows of
Spotify's extended streaming history and account data with every published field, and Last.fm
``user.getRecentTracks`` pages, plus the ZIP as Spotify ships it."""

from __future__ import annotations

import json
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

START = datetime(2021, 3, 1, 8, 0, tzinfo=UTC)


def track_id(n: int) -> str:
    return f"{n:022d}"  # base62 digits only, 22 long like Spotify's


def extended(
    n: int,
    at: datetime,
    ms: int = 200_000,
    artist: str = "",
    track: str = "",
    private: bool = False,
    skipped: bool | None = None,
) -> dict[str, Any]:
    """One music row of ``Streaming_History_Audio_*.json`` (the podcast fields null)."""
    return {
        "ts": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "username": "listener",
        "platform": "Android OS 12 API 31",
        "ms_played": ms,
        "conn_country": "SE",
        "ip_addr_decrypted": "192.0.2.1",
        "user_agent_decrypted": "unknown",
        "master_metadata_track_name": track or f"Song {n}",
        "master_metadata_album_artist_name": artist or f"Artist {n % 7}",
        "master_metadata_album_album_name": f"Album {n % 5}",
        "spotify_track_uri": f"spotify:track:{track_id(n)}",
        "episode_name": None,
        "episode_show_name": None,
        "spotify_episode_uri": None,
        "audiobook_title": None,
        "audiobook_uri": None,
        "audiobook_chapter_uri": None,
        "audiobook_chapter_title": None,
        "reason_start": "trackdone",
        "reason_end": "trackdone" if ms >= 30_000 else "fwdbtn",
        "shuffle": False,
        "skipped": (ms < 30_000) if skipped is None else skipped,
        "offline": False,
        "offline_timestamp": 0,
        "incognito_mode": private,
    }


def episode(at: datetime, audiobook: bool = False) -> dict[str, Any]:
    row = extended(0, at)
    for field in ("master_metadata_track_name", "master_metadata_album_artist_name"):
        row[field] = None
    row.update(master_metadata_album_album_name=None, spotify_track_uri=None)
    if audiobook:
        row.update(audiobook_title="A Long Book", audiobook_uri="spotify:audiobook:abc", audiobook_chapter_title="One")
    else:
        row.update(episode_name="Episode 1", episode_show_name="A Show", spotify_episode_uri="spotify:episode:abc")
    return row


def account(at: datetime, artist: str, track: str, ms: int = 200_000) -> dict[str, Any]:
    """One row of ``StreamingHistory_music_*.json``: the end time to the minute."""
    return {"endTime": at.strftime("%Y-%m-%d %H:%M"), "artistName": artist, "trackName": track, "msPlayed": ms}


def lastfm_page(scrobbles: list[tuple[datetime, str, str]], now_playing: tuple[str, str] | None = None) -> dict:
    """One page of ``user.getRecentTracks`` (newest first, the now-playing row on top)."""
    rows: list[dict[str, Any]] = []
    if now_playing:
        rows.append(_lastfm_track(*now_playing) | {"@attr": {"nowplaying": "true"}})
    for at, artist, track in sorted(scrobbles, reverse=True):
        stamp = int(at.timestamp())
        rows.append(
            _lastfm_track(artist, track) | {"date": {"uts": str(stamp), "#text": at.strftime("%d %b %Y, %H:%M")}}
        )
    attr = {"user": "listener", "page": "1", "perPage": "200", "totalPages": "1", "total": str(len(scrobbles))}
    return {"recenttracks": {"track": rows, "@attr": attr}}


def _lastfm_track(artist: str, track: str) -> dict[str, Any]:
    return {
        "artist": {"mbid": "", "#text": artist},
        "streamable": "0",
        "image": [{"size": "small", "#text": ""}],
        "mbid": "",
        "album": {"mbid": "", "#text": f"{artist} album"},
        "name": track,
        "url": "https://www.last.fm/music/x/_/y",
    }


def write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2))  # Spotify's files are indented too
    return path


def spotify_zip(path: Path, extended_files: dict[str, list[dict]], account_files: dict[str, list[dict]]) -> Path:
    """``my_spotify_data.zip`` laid out as Spotify ships it."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, rows in extended_files.items():
            archive.writestr(f"Spotify Extended Streaming History/{name}", json.dumps(rows, indent=2))
        archive.writestr("Spotify Extended Streaming History/ReadMeFirst_ExtendedStreamingHistory.pdf", b"%PDF-1.4")
        for name, rows in account_files.items():
            archive.writestr(f"MyData/{name}", json.dumps(rows, indent=2))
        archive.writestr("MyData/Userdata.json", json.dumps({"username": "listener", "country": "SE"}))
        archive.writestr("MyData/Playlist1.json", json.dumps({"playlists": []}))
    return path


def minutes(n: int) -> timedelta:
    return timedelta(minutes=n)
