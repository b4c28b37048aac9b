"""What the rest tests share: a catalog whose titles collide across artists, a frozen clock for the
rest window (the service reads it in ``service.tracks.rest`` alone), and plays by id or by name."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest.mock import patch

from tests.support import Caller, track

# The first of a month at midnight: a window of one day already reads two monthly buckets.
NOW = datetime(2026, 3, 1, tzinfo=UTC)
DAY = timedelta(days=1)
SONG2, COVER, HALO, SIGN = track(1), track(2), track(3), track(4)
CATALOG = [
    {"track_id": SONG2, "name": "Song 2", "artists": ["Blur"], "genres": ["britpop"]},
    {"track_id": COVER, "name": "Song 2", "artists": ["Cover Band"], "genres": ["britpop"]},
    {"track_id": HALO, "name": "Halo", "artists": ["Beyoncé"], "genres": ["pop"]},
    {"track_id": SIGN, "name": "The Sign", "artists": ["Ace of Base"], "genres": ["pop"]},
]
DESCRIBED = {t["track_id"]: t for t in CATALOG}
# How a scrobble without an id names each track: case, diacritics and articles differ.
SCROBBLED = {
    SONG2: ("SONG 2", "blur"),
    COVER: ("song 2", "The Cover Band"),
    HALO: ("halo", "Beyonce"),
    SIGN: ("Sign", "ace of base"),
}


@contextmanager
def frozen(now: datetime = NOW) -> Iterator[None]:
    with patch("service.tracks.rest.utc_now", return_value=now):
        yield


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def play(track_id: str, at: datetime, by_id: bool = True) -> dict[str, Any]:
    """A play of a catalog track: with its id, or (``by_id`` False) only named, as a scrobble is."""
    if by_id:
        name = DESCRIBED[track_id]
        return {"artist": name["artists"][0], "track": name["name"], "track_id": track_id, "played_at": iso(at)}
    title, artist = SCROBBLED[track_id]
    return {"artist": artist, "track": title, "played_at": iso(at)}


def shown(track_id: str) -> str:
    return f"{DESCRIBED[track_id]['name']} – {DESCRIBED[track_id]['artists'][0]}"


def message(track_id: str, plays: int, max_plays: int, days: int) -> str:
    def n(count: int, word: str) -> str:
        return f"{count} {word}{'' if count == 1 else 's'}"

    return f"{shown(track_id)} played {n(plays, 'time')} in the last {n(days, 'day')} (rest limit {max_plays})"


async def prepared(
    call: Caller, user_id: int, plays: list[dict[str, Any]], profile: dict[str, Any] | None = None
) -> None:
    await call.ok("memory_upsert_tracks", {"user_id": user_id, "tracks": CATALOG})
    for start in range(0, len(plays), 1000):
        await call.ok("memory_log_plays", {"user_id": user_id, "plays": plays[start : start + 1000]})
    if profile is not None:
        await call.ok("memory_update_profile", {"user_id": user_id, "patch": profile, "create_if_missing": True})


def rested(answer: dict[str, Any]) -> dict[str, str]:
    """The rest violations of a check answer: track id → message."""
    found = {}
    for violation in answer["violations"]:
        if violation["rule"] == "rest":
            assert len(violation["track_ids"]) == 1 and violation["suggestion"].startswith("rest it: swap for ")
            found[violation["track_ids"][0]] = violation["message"]
    return found
