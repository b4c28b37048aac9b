"""Stated versus played: where a like or dislike in force and the plays drift apart. A pure function
of the opinions, settlements and plays, so the thresholds are testable alone (reads: ``conflict_reads``):

* ``played_despite_dislike``: a dislike in force of one artist or one genre, and at least
  ``DISLIKE_PLAYS`` plays of it within the last ``DISLIKE_DAYS`` days: ``now - 30 days <= played_at
  <= now`` (a play exactly 30 days old counts) and after the conflict's last settlement, if any.
* ``liked_but_unplayed``: a like in force of one artist or one genre, stated (or last settled) at
  least ``UNPLAYED_DAYS`` days ago, no play of it within the last 180 days (inclusive as above),
  while at least ``MIN_LOGGED`` plays are logged in total.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

PLAYED_DESPITE_DISLIKE = "played_despite_dislike"
LIKED_BUT_UNPLAYED = "liked_but_unplayed"
KINDS = (PLAYED_DESPITE_DISLIKE, LIKED_BUT_UNPLAYED)
DISLIKE_PLAYS = 5
DISLIKE_DAYS = 30
UNPLAYED_DAYS = 180
MIN_LOGGED = 100
SUBJECT_FIELDS = ("artist", "genre")  # what plays can be matched against (genre: through the catalog)
EXAMPLES = 3

Subject = tuple[str, str]  # (field, folded name): ("artist", "nickelback")


@dataclass(frozen=True)
class Opinion:
    """A like or dislike in force that names exactly one artist or one genre."""

    type: str  # "like" | "dislike"
    subject: Subject
    name: str  # as the newest statement wrote it
    at: datetime
    event_ids: tuple[str, ...]  # the one in force first, then the same opinion said before it
    text: str


@dataclass(frozen=True)
class Play:
    at: datetime
    artist: str  # folded
    genres: frozenset[str]  # folded; empty when the track is not in the catalog
    shown: dict[str, object] = field(compare=False, hash=False)  # {artist, track, played_at} as stored


@dataclass(frozen=True)
class Settled:
    """The newest resolution of one (kind, subject): evidence before ``at`` is spent."""

    at: datetime
    event_id: str


@dataclass(frozen=True)
class Found:
    kind: str
    opinion: Opinion
    count: int  # plays counted (0 for an unplayed like)
    days: int
    examples: tuple[Play, ...]  # newest first
    settled: Settled | None


def kind_of(opinion_type: str) -> str:
    return PLAYED_DESPITE_DISLIKE if opinion_type == "dislike" else LIKED_BUT_UNPLAYED


def matches(play: Play, subject: Subject) -> bool:
    name, value = subject
    return play.artist == value if name == "artist" else value in play.genres


def in_window(moment: datetime, now: datetime, days: int) -> bool:
    """Within the last ``days`` days: the boundary itself included, the future not."""
    return now - timedelta(days=days) <= moment <= now


def detect(
    opinions: list[Opinion], plays: list[Play], logged: int, settled: dict[tuple[str, Subject], Settled], now: datetime
) -> list[Found]:
    """The open conflicts, played_despite_dislike first (most plays first), then liked_but_unplayed
    (longest unplayed first); ``logged`` is how many plays the user has in total (any count at
    or past ``MIN_LOGGED`` is as good as the exact one)."""
    found: list[Found] = []
    for opinion in opinions:
        kind = kind_of(opinion.type)
        last = settled.get((kind, opinion.subject))
        if kind == PLAYED_DESPITE_DISLIKE:
            counted = [
                p
                for p in plays
                if matches(p, opinion.subject)
                and in_window(p.at, now, DISLIKE_DAYS)
                and (last is None or p.at > last.at)
            ]
            if len(counted) >= DISLIKE_PLAYS:
                newest = sorted(counted, key=lambda p: p.at, reverse=True)[:EXAMPLES]
                found.append(Found(kind, opinion, len(counted), DISLIKE_DAYS, tuple(newest), last))
            continue
        since = max(opinion.at, last.at) if last is not None else opinion.at
        if logged < MIN_LOGGED or since > now - timedelta(days=UNPLAYED_DAYS):  # stated exactly 180 days ago counts
            continue
        if any(matches(p, opinion.subject) and in_window(p.at, now, UNPLAYED_DAYS) for p in plays):
            continue
        found.append(Found(kind, opinion, 0, UNPLAYED_DAYS, (), last))
    found.sort(key=_order)
    return found


def _order(item: Found) -> tuple[int, int, float, str]:
    if item.kind == PLAYED_DESPITE_DISLIKE:
        return 0, -item.count, 0.0, item.opinion.subject[1]
    return 1, 0, item.opinion.at.timestamp(), item.opinion.subject[1]
