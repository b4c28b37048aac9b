"""Tracks the person likes by name, which ``rest`` never benches: a profile ``likes`` entry naming
the track, or a like event (not superseded by a later dislike of the same subject) whose payload
names it: ``track_id`` the track's id, or ``track`` / ``title`` / ``name`` / ``subject`` naming it,
with ``artist`` (when given) one of its artists. A name names a track as an avoid entry does: its
title (whole, or without qualifiers such as "- Remastered"), or "title – artist" (en dash or hyphen).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from service.profiles.opinions import superseded
from service.storage.database import Database
from service.text.words import core_title, folded_text

_TITLE_ARTIST = re.compile(r"\s+[-–—]\s+")
_TITLE_FIELDS = ("track", "title", "name", "subject")
Entry = tuple[str, str | None]  # folded title, folded artist (None: any artist)


def _strings(value: Any) -> Iterator[str]:
    """Strings of a profile field: itself, a list's, or an object's values' (``{"tracks": [...]}``)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        yield from (v for v in value if isinstance(v, str))
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _strings(inner) if not isinstance(inner, dict) else ()


def _entries(text: str, artist: str | None = None) -> list[Entry]:
    """What a name may mean: the whole text as a title, and each "title – artist" split of it."""
    if artist is not None:
        return [(folded_text(text), folded_text(artist))]
    found: list[Entry] = [(folded_text(text), None)]
    for split in _TITLE_ARTIST.finditer(text):
        found.append((folded_text(text[: split.start()]), folded_text(text[split.end() :])))
    return [(t, a) for t, a in found if t and a != ""]


@dataclass
class Liked:
    ids: set[str] = field(default_factory=set)
    entries: set[Entry] = field(default_factory=set)

    def names(self, track_id: str, track: dict[str, Any] | None) -> bool:
        if track_id in self.ids:
            return True
        if not self.entries or track is None or not isinstance(track.get("name"), str):
            return False
        titles = {folded_text(track["name"]), folded_text(core_title(track["name"]))}
        artists = {folded_text(a) for a in track.get("artists") or [] if isinstance(a, str)}
        return any(title in titles and (artist is None or artist in artists) for title, artist in self.entries)


async def liked_by_name(db: Database, user_id: int, profile: dict[str, Any]) -> Liked:
    liked = Liked()
    for text in _strings(profile.get("likes")):
        liked.entries.update(_entries(text))
    events = await db.preference_events.find(
        {"user_id": user_id, "type": {"$in": ["like", "dislike"]}},
        {"type": 1, "payload": 1, "timestamp": 1, "recorded_ns": 1},
    )
    opinions = [e for e in events if isinstance(e.get("payload"), dict)]
    replaced = superseded(opinions)
    for event in opinions:
        if event["type"] != "like" or str(event["_id"]) in replaced:
            continue
        payload = event["payload"]
        if isinstance(payload.get("track_id"), str) and payload["track_id"].strip():
            liked.ids.add(payload["track_id"].strip())
        artist = payload.get("artist") if isinstance(payload.get("artist"), str) else None
        for name in _TITLE_FIELDS:
            if isinstance(payload.get(name), str):
                liked.entries.update(_entries(payload[name], artist))
    return liked
