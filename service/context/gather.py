"""Reading what the block can say, through the service's own readers: the profile, the like /
dislike / rule preference events, the pairwise choices (``service.profiles.choices``), the typed memories
(insights and feedback), the playlist heads and the open follow-ups. Everything read is this
user's only (every read filters on ``user_id``). A profile key goes to a section by its name
(``CLASSIFIED``); a key that matches nothing is left out and named in the diagnostics.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from service.context.candidates import (
    CHOICE_AVOID_LOSSES,
    Candidate,
    choice_item,
    event_item,
    followup_item,
    memory_item,
    playlist_item,
    profile_item,
)
from service.profiles.choices import EVENT_TYPE as CHOICE_EVENT_TYPE
from service.profiles.choices import tally
from service.storage.database import Database
from service.text.naming import names_any
from service.text.sensitive import FIELDS_KEY, event_names, field_names, marked_by, sensitive_event, sensitive_paths
from service.timeutil import as_utc

# Which profile keys go where is decided by the key's name (the PRD §11 profile has ``core_genres``,
# ``secondary_vibes``, ``energy_preferences``, ``playlist_rules`` and ``avoid``; agents also write
# ``likes``, ``dislikes``, ``favorite_artists``, ``rules``...): in this order, first match wins
# ("dislikes" holds "like": avoid is tested first). A key that matches nothing is left out and named
# in the diagnostics ("unclassified").
CLASSIFIED = (
    ("avoid", ("avoid", "dislike", "hate", "never", "skip")),
    ("rules", ("rule", "constraint", "limit")),
    ("prefer", ("like", "love", "favo", "prefer", "genre", "vibe", "artist", "band", "mood", "taste", "energy")),
)
EVENT_TYPES = ("like", "dislike", "rule")
MEMORIES_READ = 50  # memory_query's maximum, per type: the most important first
PLAYLISTS_READ = 20
FOLLOWUPS_READ = 50
_HEAD_FIELDS = {"playlist_id": 1, "name": 1, "updated_at": 1, "intent_tags": 1, "track_count": 1}


@dataclass
class Gathered:
    candidates: list[Candidate] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)  # like/dislike, oldest first: for supersession
    unclassified: list[str] = field(default_factory=list)  # JSON Pointers of profile keys left out
    resting: bool = False  # a rest rule holds: the block has a Resting section (``service.context.resting``)


def classify(key: str) -> str | None:
    folded = re.sub(r"[^a-z]+", "_", key.casefold())
    for section, stems in CLASSIFIED:
        if any(s in folded for s in stems):
            return section
    return None


def _leaves(value: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
    """Objects are walked; a list of strings gives one leaf per string (one line each); anything
    else (a number, a list of objects) is one leaf."""
    if isinstance(value, dict):
        for key in sorted(value):
            yield from _leaves(value[key], [*path, key])
    elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        for i, item in enumerate(value):
            yield [*path, str(i)], item
    elif value not in (None, [], {}):
        yield path, value


def profile_candidates(view: dict[str, Any], gathered: Gathered, focus: str | None = None) -> None:
    """A field listed in ``sensitive_fields`` only when ``focus`` names it (that list itself is not
    a preference: it is never a line)."""
    moment = as_utc(view["updated_at"]).timestamp() if view.get("updated_at") else 0.0
    position = 0
    marked = sensitive_paths(view["profile"])
    for key in sorted(view["profile"]):
        if key == FIELDS_KEY:
            continue
        section = classify(key)
        if section is None:
            if marked_by([key], marked) is not None:  # its name alone may say what it hides
                continue
            gathered.unclassified.append("/" + key.replace("~", "~0").replace("/", "~1"))
            continue
        for path, value in _leaves(view["profile"][key], [key]):
            mark = marked_by(path, marked)
            if mark is not None and not names_any(field_names(mark, value), text=focus):
                continue
            gathered.candidates.append(profile_item(section, path, value, moment, position))
            position += 1


async def event_candidates(db: Database, user_id: int, gathered: Gathered, focus: str | None = None) -> None:
    """A sensitive event is a line only when ``focus`` names its subject; it still supersedes."""
    events = await db.preference_events.find(
        {"user_id": user_id, "type": {"$in": list(EVENT_TYPES)}},
        {"type": 1, "payload": 1, "timestamp": 1, "recorded_ns": 1},
    )
    events.sort(key=lambda e: (as_utc(e["timestamp"]), e.get("recorded_ns") or 0, str(e["_id"])))
    for position, event in enumerate(events):
        if not isinstance(event.get("payload"), dict):
            continue
        section = {"like": "prefer", "dislike": "avoid", "rule": "rules"}[event["type"]]
        if not sensitive_event(event) or names_any(event_names(event["payload"]), text=focus):
            gathered.candidates.append(event_item(section, event, position))
        if event["type"] != "rule":
            gathered.events.append(event)


async def choice_candidates(db: Database, user_id: int, gathered: Gathered) -> None:
    """Pairwise choices (``memory_record_choice``), one line per subject: in Prefer every subject
    chosen at least once (its wins rank it above plain likes); in Avoid a subject passed over at
    least ``CHOICE_AVOID_LOSSES`` times and never chosen. Subjects in between are left out."""
    events = await db.preference_events.find(
        {"user_id": user_id, "type": CHOICE_EVENT_TYPE}, {"type": 1, "payload": 1, "timestamp": 1, "recorded_ns": 1}
    )
    standings = sorted(tally(events).items(), key=lambda item: (-item[1].newest, item[0]))
    for position, (_, standing) in enumerate(standings):
        if standing.wins:
            gathered.candidates.append(choice_item("prefer", standing, position))
        elif standing.losses >= CHOICE_AVOID_LOSSES:
            gathered.candidates.append(choice_item("avoid", standing, position))


def memory_section(row: dict[str, Any]) -> str | None:
    """Insights are preferences; feedback is something to avoid unless it says it was positive."""
    if row["type"] == "insight":
        return "prefer"
    if row["type"] == "feedback":
        sentiment = (row.get("metadata") or {}).get("sentiment")
        return "prefer" if isinstance(sentiment, str) and sentiment.casefold() == "positive" else "avoid"
    return None


def memory_candidates(rows: list[dict[str, Any]], gathered: Gathered) -> None:
    for position, row in enumerate(rows):
        section = memory_section(row)
        if section is not None:
            gathered.candidates.append(memory_item(section, row, position))


async def playlist_candidates(db: Database, user_id: int, gathered: Gathered) -> None:
    """The most recently changed heads, ordered as ``get_playlists`` orders them (updated_at, then
    playlist_id, descending). Read here rather than through ``get_playlists``: its first page stores
    a paging cursor when there are more, and this read must write nothing."""
    heads = await db.playlists.find({"user_id": user_id}, _HEAD_FIELDS)
    heads.sort(key=lambda h: (as_utc(h["updated_at"]), h["playlist_id"]), reverse=True)
    for position, head in enumerate(heads[:PLAYLISTS_READ]):
        gathered.candidates.append(playlist_item(head, position))


def followup_candidates(rows: list[dict[str, Any]], gathered: Gathered) -> None:
    for position, row in enumerate(rows):
        gathered.candidates.append(followup_item(row, position))
