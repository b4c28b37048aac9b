"""The user's feedback as observations: one per considered preference event, one per profile key
path a patch set (see ``folding`` for the signature each carries)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.insights.folding import Signature, path_text, signature
from service.storage.database import Database
from service.timeutil import as_utc

# Rules and dislikes: "feedback" is how the PRD's agent records "too much X"; likes and notes are
# tastes, not rules, and stay out.
CONSIDERED_TYPES = ("rule", "dislike", "feedback")
SUBJECT_FIELDS = ("track_id", "artist", "genre")  # most specific first
# A patch setting more key paths than this is a whole-profile write (onboarding, a resend): it
# counts only for the paths whose value it changes, so resending a profile does not repeat rules.
FOCUSED_PATCH_PATHS = 5
YIELD_EVERY = 300


@dataclass
class Observation:
    source: str  # "preference_event" | "profile_patch"
    ref: str | int  # the event's id or the patch's profile version
    type: str  # the event's type, or "profile_patch"
    at: datetime
    text: str
    subject: str | None  # "artist:Nightwish", "profile:playlist_rules.max_tracks_per_artist"
    signature: Signature
    surface: dict[str, str]


def _subject(payload: dict[str, Any]) -> tuple[str, str] | None:
    for name in SUBJECT_FIELDS:
        value = payload.get(name)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            value = ", ".join(value)
        if isinstance(value, str) and value.strip():
            return name, value.strip()
    return None


def _text(payload: dict[str, Any]) -> str:
    raw = payload.get("raw_text")
    if isinstance(raw, str) and raw.strip():
        return raw
    # No words of the user's: the structured fields say what it was about ({"rule": ..., "value": 3}).
    return " ".join(f"{k} {v}" for k, v in payload.items() if isinstance(v, str | int | float) and k != "raw_text")


def from_event(document: dict[str, Any]) -> Observation:
    payload = document["payload"] if isinstance(document.get("payload"), dict) else {}
    text = _text(payload)
    refuses = document["type"] == "dislike"
    subject = _subject(payload)
    if subject is None:
        sig, surface = signature(text, refuses)
    else:
        # The structured subject is what it is about; the words only give the cue (limit, refuse).
        cue = signature(text, refuses)[0].cue
        if subject[0] == "track_id":  # an id is one opaque token: never stemmed or typo-matched
            sig, surface = Signature(cue, frozenset({f"track:{subject[1]}"})), {}
        else:
            about, surface = signature(subject[1])
            sig = Signature(cue, about.content)
    return Observation(
        "preference_event",
        document["_id"],
        document["type"],
        as_utc(document["timestamp"]),
        text,
        None if subject is None else f"{subject[0]}:{subject[1]}",
        sig,
        surface,
    )


def _leaves(patch: dict[str, Any], path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Key paths a merge patch sets: objects merge, so their keys are paths; arrays replace whole."""
    for key, value in patch.items():
        if isinstance(value, dict) and value:
            yield from _leaves(value, (*path, key))
        else:
            yield (*path, key), value


def from_patches(history: list[dict[str, Any]]) -> Iterator[Observation]:
    """Observations of the profile's patches, oldest first; an array counts the items it adds."""
    seen: dict[tuple[str, ...], Any] = {}  # each path's value as the earlier patches left it
    for entry in sorted(history, key=lambda e: e["version"]):
        leaves = list(_leaves(entry["patch"]))
        focused = len(leaves) <= FOCUSED_PATCH_PATHS
        for path, value in leaves:
            before, seen[path] = seen.get(path), value
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                earlier = before if isinstance(before, list) else []
                items = [v for v in dict.fromkeys(value) if v not in earlier]
            elif focused or value != before:
                items = [value]
            else:
                items = []
            for item in items:
                yield _patch_observation(entry, list(path), item)


def _patch_observation(entry: dict[str, Any], path: list[str], value: Any) -> Observation:
    words = path_text(path) + (f" {value}" if isinstance(value, str) else "")
    sig, surface = signature(words)
    said = "removed" if value is None else json.dumps(value, ensure_ascii=False)
    text = f"{'.'.join(path)} = {said}" + (f" ({entry['reason']})" if entry.get("reason") else "")
    return Observation(
        "profile_patch",
        entry["version"],
        "profile_patch",
        as_utc(entry["applied_at"]),
        text,
        f"profile:{'.'.join(path)}",
        sig,
        surface,
    )


async def read_observations(db: Database, user_id: int) -> tuple[list[Observation], int, int]:
    """Every observation of one user's feedback, and how many events and patches they came from."""
    events = await db.preference_events.find(
        {"user_id": user_id, "type": {"$in": list(CONSIDERED_TYPES)}}, {"type": 1, "payload": 1, "timestamp": 1}
    )
    profile = await db.profiles.find_one({"_id": user_id, "user_id": user_id}, {"history": 1})
    history = (profile or {}).get("history", [])
    observed: list[Observation] = []
    for n, event in enumerate(sorted(events, key=lambda e: (as_utc(e["timestamp"]), e["_id"])), 1):
        observed.append(from_event(event))
        if n % YIELD_EVERY == 0:
            await asyncio.sleep(0)  # thousands of events must not stall other sessions
    observed.extend(from_patches(history))
    return observed, len(events), len(history)
