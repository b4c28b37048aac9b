"""Rest: a track played at least ``max_plays`` times in the last ``days`` (``playlist_rules.rest``)
should sit out a while. The window is closed: a play exactly ``days`` × 24 h ago counts, and so
does one at this very millisecond; a play logged for a later moment does not (it has not happened).

A play counts for a track by its ``track_id`` when it has one; a play without one counts for the
catalog tracks whose title and one of whose artists it names (folded as play identity folds:
``folded_entity``). Plays without a track name (an artist alone) count for no track.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from service.memories.recent_plays import plays_between
from service.storage.database import Database
from service.timeutil import utc_now
from service.tracks.catalog import describe_tracks
from service.tracks.facts import NameKey, TrackFacts, name_keys, play_name
from service.tracks.rest_window import Windows

MAX_DAYS = 3650


@dataclass(frozen=True)
class Rest:
    max_plays: int
    days: int

    def window(self) -> tuple[datetime, datetime]:
        """(since, until), both included; the clock is read here alone."""
        now = utc_now()
        return now - timedelta(days=self.days), now


def rest_of(value: Any) -> Rest | None:
    """``{max_plays: integer ≥ 1, days: integer 1..3650}`` as a rule; anything else is no rule (the
    profile is free-form: an ill-typed entry is left to the assistant, as free text is)."""
    if not isinstance(value, dict):
        return None
    plays, days = value.get("max_plays"), value.get("days")
    if not isinstance(plays, int) or not isinstance(days, int) or isinstance(plays, bool) or isinstance(days, bool):
        return None
    return Rest(plays, days) if plays >= 1 and 1 <= days <= MAX_DAYS else None


async def counts_for(
    db: Database,
    user_id: int,
    rest: Rest,
    track_ids: list[str],
    known: dict[str, dict[str, Any]],
    kept: tuple[Windows, TrackFacts] | None = None,
) -> Counter[str]:
    """Plays in the window of each of ``track_ids`` (``known``: their catalog descriptions);
    ``kept`` (the embedded engine): the windows slid forward and the analysed catalog's names."""
    if kept is not None:
        return await _kept_counts(db, user_id, rest, set(track_ids), *kept)
    by_name: dict[NameKey, list[str]] = {}
    for track_id in dict.fromkeys(track_ids):
        for key in name_keys(known.get(track_id) or {}):
            by_name.setdefault(key, []).append(track_id)
    wanted = set(track_ids)
    counts: Counter[str] = Counter()
    async for play in plays_between(db, user_id, *rest.window()):
        if play.get("track_id"):
            if play["track_id"] in wanted:
                counts[play["track_id"]] += 1
        elif (named := play_name(play)) is not None:
            counts.update(by_name.get(named, ()))
    return counts


async def _kept_counts(
    db: Database, user_id: int, rest: Rest, wanted: set[str], windows: Windows, facts: TrackFacts
) -> Counter[str]:
    """The same counts from the window's counts by key: a track's id, and each catalog track a name
    names (a track once however often its names repeat, as ``name_keys`` lists them once). The
    counts of every catalog track are kept with the window until it or the catalog changes."""
    window = await windows.window(db, user_id, rest.days, *rest.window())
    if window.derived is None or window.derived[0] is not facts or window.derived[1] != window.version:
        every: Counter[str] = Counter()
        for (kind, value), n in window.counts.items():
            for track_id in (value,) if kind == "id" else facts.named_by.get(value, ()):
                every[track_id] += n
        window.derived = (facts, window.version, every)
    every = window.derived[2]
    return Counter({t: n for t, n in every.items() if t in wanted})


@dataclass
class Played:
    """A track played in the window: its catalog id when known, the names to show, how often."""

    track_id: str | None
    title: str
    artist: str
    count: int
    artists: list[str] = field(default_factory=list)  # every artist the catalog names (else the play's)

    def described(self) -> dict[str, Any]:
        return {"name": self.title, "artists": self.artists or [self.artist]}


async def most_played(db: Database, user_id: int, rest: Rest) -> list[Played]:
    """Every track played in the window, most played first (then by title, artist). Plays without
    an id are grouped by their folded names, and join a catalog track played by id in the window
    when they name it (the first such track by id)."""
    by_id: dict[str, Played] = {}
    by_name: dict[NameKey, Played] = {}
    async for play in plays_between(db, user_id, *rest.window()):
        if play.get("track_id"):
            found = by_id.setdefault(
                play["track_id"], Played(play["track_id"], play.get("track") or "", play["artist"], 0)
            )
            found.title = found.title or play.get("track") or ""
        elif (key := play_name(play)) is not None:
            found = by_name.setdefault(key, Played(None, play["track"], play["artist"], 0))
        else:
            continue
        found.count += 1
    described = await describe_tracks(db, user_id, list(by_id))
    for track_id in sorted(by_id):
        track, played = described.get(track_id), by_id[track_id]
        if track is None:
            played.title = played.title or track_id
            continue
        played.artists = list(track.get("artists") or [played.artist])
        played.title, played.artist = track["name"], played.artists[0]
        for key in name_keys(track):
            joined = by_name.pop(key, None)
            if joined is not None:
                played.count += joined.count
    every = [*by_id.values(), *by_name.values()]
    every.sort(key=lambda p: (-p.count, p.title.casefold(), p.artist.casefold(), p.track_id or ""))
    return every
