"""One candidate line of the context block per remembered thing, with what ranking needs.

Each builder turns one stored record into a ``Candidate``: its section, what it is (``kind`` and
``ref``, the names ``memory_forget`` will take: profile_field with a JSON Pointer,
preference_event, memory, playlist), the rendered line (every user text quoted by ``quoting``),
an importance on seed 001's scale, its moment and its folded, stemmed words (for ``focus``).

Importance of what carries none of its own (seed 001: 10 absolute rules and strong dislikes,
9 negative feedback, 8 core preferences, 7 discovery, 6 casual), in one table: ``IMPORTANCE``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from service.context.quoting import quote, quote_value
from service.profiles.choices import Standing
from service.text.analysis import terms
from service.text.sensitive import SUBJECT_FIELDS
from service.timeutil import as_utc

# Resting is last: a turn after every other section, and shown only when a rest rule holds.
SECTIONS = ("prefer", "avoid", "rules", "playlists", "followups", "resting")
HEADERS = {
    "prefer": "## Prefer",
    "avoid": "## Avoid",
    "rules": "## Rules",
    "playlists": "## Recent playlists",
    "followups": "## Open follow-ups",
    "resting": "## Resting",
}
IMPORTANCE = {
    ("profile", "prefer"): 8,  # the normalized profile: core preferences
    ("profile", "avoid"): 10,  # ... its avoid list: strong dislikes
    ("profile", "rules"): 10,  # ... its rules: absolute
    ("event", "like"): 7,
    ("event", "dislike"): 9,  # negative feedback weighs more (seed 001)
    ("event", "rule"): 9,  # said, perhaps not yet normalized into the profile
    ("playlist", ""): 5,
    ("followup", ""): 8,  # a recommendation (seed 001)
    ("choice", "prefer"): 7,  # pairwise wins: a like's weight, ordered above likes by ``wins`` (seed 003)
    ("choice", "avoid"): 6,  # passed over repeatedly and never chosen: a casual signal
    ("resting", ""): 8,  # played past the rest limit: ordered among themselves by plays (``position``)
}
CHOICE_OPPONENTS = 3  # opponents named on a choice line (newest first), the rest counted
CHOICE_AVOID_LOSSES = 2  # passed over at least this often, never chosen: listed in Avoid


@dataclass(frozen=True)
class Candidate:
    section: str
    kind: str  # profile_field | preference_event | memory | playlist
    ref: str  # the id memory_forget takes (a JSON Pointer for a profile field)
    line: str
    importance: int
    moment: float  # POSIX seconds; newest first within an importance
    position: int  # order within its source (a profile list's order), the last tiebreak
    words: frozenset[str]
    fuzzy: bool = False
    wins: int = 0  # pairwise wins: more ranks first among equal importance (service.profiles.choices)


def day(moment: datetime) -> str:
    utc = as_utc(moment)
    return f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}"


@functools.lru_cache(maxsize=8192)  # as the lines below: the same texts call after call
def _words(*texts: str) -> frozenset[str]:
    return frozenset(t for text in texts for t in terms(text))


def _pointer(path: list[str]) -> str:
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in path)


def profile_item(section: str, path: list[str], value: Any, moment: float, position: int) -> Candidate:
    """A profile leaf: ``- profile "core_genres": "symphonic metal"``."""
    dotted = ".".join(p for p in path if not p.isdigit())
    texts = [*path, *([value] if isinstance(value, str) else [])]
    return Candidate(
        section,
        "profile_field",
        _pointer(path),
        f"- profile {quote(dotted)}: {quote_value(value)}",
        IMPORTANCE[("profile", section)],
        moment,
        position,
        _words(*texts),
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else quote_value(value)


def event_item(section: str, event: dict[str, Any], position: int) -> Candidate:
    """``- dislike artist "Nickelback" 2025-03-02: "too much"`` (the payload when it says nothing else)."""
    payload = event.get("payload") or {}
    parts = [event["type"]]
    texts: list[str] = []
    for name in SUBJECT_FIELDS:
        if name in payload and payload[name] is not None:
            parts.append(f"{name} {quote_value(payload[name])}")
            texts.append(_text(payload[name]))
    parts.append(day(event["timestamp"]))
    line = "- " + " ".join(parts)
    said = payload.get("raw_text")
    if said is not None:
        line += f": {quote_value(said)}"
        texts.append(_text(said))
    elif not texts:
        line += f": {quote_value(payload)}"
        texts.append(_text(payload))
    return Candidate(
        section,
        "preference_event",
        str(event["_id"]),
        line,
        IMPORTANCE[("event", event["type"])],
        as_utc(event["timestamp"]).timestamp(),
        position,
        _words(*texts),
    )


def _times(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 'es' if word.endswith('s') else 's'}"


def choice_item(section: str, standing: Standing, position: int) -> Candidate:
    """A subject's pairwise standing (``service.profiles.choices.Standing``): in Prefer, what it beat,
    ``- chose artist "Nightwish" over "Epica", "Delain" (3 wins, 1 loss) 2025-01-05``; in Avoid,
    what beat it, ``- passed over artist "Epica" for "Nightwish" (2 losses) 2025-01-05``; the newest
    ``CHOICE_OPPONENTS`` named, the rest counted; the date is its newest choice's."""
    opponents = list((standing.beat if section == "prefer" else standing.lost_to).values())
    shown = opponents[:CHOICE_OPPONENTS]
    others = ", ".join(quote(o) for o in shown)
    if len(opponents) > len(shown):
        others += f" and {len(opponents) - len(shown)} more"
    tally = [_times(standing.wins, "win")] if standing.wins else []
    if standing.losses:
        tally.append(_times(standing.losses, "loss"))
    verb, link = ("chose", "over") if section == "prefer" else ("passed over", "for")
    line = (
        f"- {verb} {standing.kind} {quote(standing.label)} {link} {others} ({', '.join(tally)}) "
        f"{day(datetime.fromtimestamp(standing.newest, UTC))}"
    )
    return Candidate(
        section,
        "preference_event",
        standing.newest_event,
        line,
        IMPORTANCE[("choice", section)],
        standing.newest,
        position,
        _words(standing.label, *shown),
        wins=standing.wins,
    )


def memory_item(section: str, row: dict[str, Any], position: int) -> Candidate:
    """``- insight i9 2025-10-13 "Taylor Swift", "storytelling": "values narrative songwriting"``;
    ``fuzzy`` (aged to a gist: half-remembered) is said in the line."""
    line = _memory_line(
        row["type"], row["importance"], row["fuzzy"], row["timestamp"], tuple(row["entities"]), row["summary"]
    )
    return Candidate(
        section,
        "memory",
        row["memory_id"],
        line,
        row["importance"],
        as_utc(row["timestamp"]).timestamp(),
        position,
        _words(row["summary"], *row["entities"]),
        fuzzy=row["fuzzy"],
    )


def playlist_item(head: dict[str, Any], position: int) -> Candidate:
    """``- "Summer drive": 24 tracks, tags "upbeat", "breathers", updated 2025-06-01, id "..."``."""
    tags = [t for t in head.get("intent_tags") or [] if isinstance(t, str)]
    tagged = f", tags {', '.join(quote(t, 40) for t in tags[:8])}" if tags else ""
    count = int(head.get("track_count") or 0)
    line = (
        f"- {quote(head['name'])}: {count} track{'' if count == 1 else 's'}{tagged}, "
        f"updated {day(head['updated_at'])}, id {quote(head['playlist_id'])}"
    )
    return Candidate(
        "playlists",
        "playlist",
        head["playlist_id"],
        line,
        IMPORTANCE[("playlist", "")],
        as_utc(head["updated_at"]).timestamp(),
        position,
        _words(head["name"], *tags),
    )


def followup_item(row: dict[str, Any], position: int) -> Candidate:
    """``- mem_… "The Zombies": "Recommended …" recommended 2025-10-13, due 2025-10-20``."""
    line = _followup_line(
        row["memory_id"], tuple(row["entities"]), row["summary"], row["recommended_at"], row["due_at"]
    )
    return Candidate(
        "followups",
        "memory",
        row["memory_id"],
        line,
        IMPORTANCE[("followup", "")],
        as_utc(row["recommended_at"]).timestamp(),
        position,
        _words(row["summary"], *row["entities"]),
    )


def resting_item(track_id: str | None, title: str, artist: str, plays: int, days: int, position: int) -> Candidate:
    """``- "Song 2" – "Blur": 14 plays in 7 days``; ``ref`` the catalog id, else "title – artist"."""
    return Candidate(
        "resting",
        "track",
        track_id or f"{title} – {artist}",
        f"- {quote(title)} – {quote(artist)}: {_times(plays, 'play')} in {_times(days, 'day')}",
        IMPORTANCE[("resting", "")],
        0.0,
        position,
        _words(title, artist),
    )


# The memories and follow-ups a block lists are the same call after call: their lines are kept.
@functools.lru_cache(maxsize=4096)
def _memory_line(
    kind: str, importance: int, fuzzy: bool, moment: datetime, entities: tuple[str, ...], summary: str
) -> str:
    mark = " fuzzy" if fuzzy else ""
    named = ", ".join(quote(e) for e in entities)
    return f"- {kind} i{importance}{mark} {day(moment)} {named}: {quote(summary)}"


@functools.lru_cache(maxsize=4096)
def _followup_line(
    memory_id: str, entities: tuple[str, ...], summary: str, recommended_at: datetime, due_at: datetime
) -> str:
    named = ", ".join(quote(e) for e in entities)
    return f"- {memory_id} {named}: {quote(summary)} recommended {day(recommended_at)}, due {day(due_at)}"
