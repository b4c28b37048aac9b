"""What is searchable: one ``Entry`` per playlist, preference event and profile key, with weighted
fields. Both engines use these weights (``models.documents.text`` holds the MongoDB side)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from models.documents.text import EVENT_TEXT_WEIGHTS, MEMORY_TEXT_WEIGHTS, PLAYLIST_TEXT_WEIGHTS, TRACK_TEXT_WEIGHTS
from service.pointers import pointer
from service.search.hits import HitKind
from service.text.sensitive import (
    FIELDS_KEY,
    HIDDEN,
    event_names,
    field_names,
    leaf_texts,
    marked_by,
    sensitive_event,
    sensitive_paths,
    split_marked,
)

NAME = float(PLAYLIST_TEXT_WEIGHTS["name"])
TAGS = float(PLAYLIST_TEXT_WEIGHTS["intent_tags"])
DESCRIPTION = float(PLAYLIST_TEXT_WEIGHTS["description"])
NOTES = float(PLAYLIST_TEXT_WEIGHTS["seed_context.notes"])
RAW_TEXT = float(EVENT_TEXT_WEIGHTS["payload.raw_text"])
OTHER = 1.0
PROFILE_VALUE = DESCRIPTION
TRACK_NAME = float(TRACK_TEXT_WEIGHTS["name"])
TRACK_ARTISTS = float(TRACK_TEXT_WEIGHTS["artists"])
TRACK_ALBUM = float(TRACK_TEXT_WEIGHTS["album"])
TRACK_FIELDS = {"_id": 1, "user_id": 1, "track_id": 1, "name": 1, "artists": 1, "album": 1}
MEMORY_ENTITIES = float(MEMORY_TEXT_WEIGHTS["entities"])
MEMORY_SUMMARY = float(MEMORY_TEXT_WEIGHTS["summary"])
MEMORY_FIELDS = {
    "_id": 1,
    "user_id": 1,
    "memory_id": 1,
    "type": 1,
    "entities": 1,
    "summary": 1,
    "importance": 1,
    "timestamp": 1,
    "sensitive": 1,
}
MAX_WEIGHT = NAME

PLAYLIST_FIELDS = {
    "_id": 1,
    "user_id": 1,
    "playlist_id": 1,
    "name": 1,
    "description": 1,
    "intent_tags": 1,
    "seed_context": 1,
    "created_at": 1,
    "updated_at": 1,
}


@dataclass
class Field:
    name: str
    weight: float
    text: str


@dataclass
class Entry:
    kind: HitKind
    id: str
    fields: list[Field]
    metadata: dict[str, Any]
    # Kept out of sight: found only by a query naming one of these (``engine.SearchEngine.search``)
    hidden_unless: tuple[str, ...] | None = None


def flatten_text(value: Any) -> Iterator[str]:
    """Every string (and number) in a JSON value; object keys count as words too."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if not str(key).startswith("_"):
                yield str(key).replace("_", " ")
                yield from flatten_text(item)
    elif isinstance(value, list):
        for item in value:
            yield from flatten_text(item)
    elif value is not None and not isinstance(value, bool):
        yield str(value)


def playlist_entry(head: dict[str, Any]) -> Entry:
    fields = [Field("name", NAME, head["name"])]
    if head.get("intent_tags"):
        fields.append(Field("intent_tags", TAGS, " · ".join(head["intent_tags"])))
    if head.get("description"):
        fields.append(Field("description", DESCRIPTION, head["description"]))
    seed = " · ".join(flatten_text(head.get("seed_context") or {}))
    if seed:
        fields.append(Field("seed_context", NOTES, seed))
    metadata = {"name": head["name"], "intent_tags": list(head.get("intent_tags") or [])}
    for moment in ("created_at", "updated_at"):
        if head.get(moment) is not None:
            metadata[moment] = head[moment]
    return Entry("playlist", head["playlist_id"], fields, metadata)


def event_entry(event: dict[str, Any]) -> Entry:
    payload = event.get("payload") or {}
    raw = payload.get("raw_text")
    fields = []
    if isinstance(raw, str) and raw:
        fields.append(Field("raw_text", RAW_TEXT, raw))
    rest = " · ".join(flatten_text({k: v for k, v in payload.items() if k != "raw_text"}))
    if rest:
        fields.append(Field("payload", OTHER, rest))
    fields.append(Field("type", OTHER, event["type"]))
    metadata = {"type": event["type"], "source": event["source"], "timestamp": event["timestamp"]}
    if sensitive_event(event):
        metadata["sensitive"] = True
        return Entry("preference_event", str(event["_id"]), fields, metadata, tuple(event_names(payload)))
    return Entry("preference_event", str(event["_id"]), fields, metadata)


def profile_entries(document: dict[str, Any]) -> list[Entry]:
    """One entry per top-level key of the profile (notes, rules, genres …), without the parts listed
    in ``sensitive_fields``: each of those is an entry of its own (``profile:<pointer>``), found only
    by a query naming it. The list of pointers itself is not searchable."""
    found = []
    profile = document.get("profile") or {}
    marked = sensitive_paths(profile)
    for key, whole in profile.items():
        if key == FIELDS_KEY:
            continue
        value, parts = split_marked([key], whole, marked)
        if value is not HIDDEN:
            found.append(_profile_entry(document, key, f"profile:{key}", value))
        for path, part in parts:
            at = pointer(path)
            entry = _profile_entry(document, key, f"profile:{at}", part)
            entry.metadata.update(pointer=at, sensitive=True)
            mark = marked_by(path, marked) or path
            entry.hidden_unless = tuple(field_names(mark, None) + leaf_texts(part))
            found.append(entry)
    return found


def _profile_entry(document: dict[str, Any], key: str, entry_id: str, value: Any) -> Entry:
    fields = [Field("key", OTHER, key.replace("_", " "))]
    text = " · ".join(flatten_text(value))
    if text:
        fields.append(Field("value", PROFILE_VALUE, text))
    metadata = {"key": key, "version": document["version"]}
    if document.get("updated_at") is not None:
        metadata["updated_at"] = document["updated_at"]
    return Entry("profile", entry_id, fields, metadata)


def track_entry(track: dict[str, Any]) -> Entry:
    """A catalog track: its name, artists and album are text the user may search by."""
    fields = [Field("name", TRACK_NAME, track["name"])]
    if track.get("artists"):
        fields.append(Field("artists", TRACK_ARTISTS, " · ".join(track["artists"])))
    if track.get("album"):
        fields.append(Field("album", TRACK_ALBUM, track["album"]))
    metadata = {"name": track["name"], "artists": list(track.get("artists") or [])}
    if track.get("album"):
        metadata["album"] = track["album"]
    return Entry("track", track["track_id"], fields, metadata)


def memory_entry(memory: dict[str, Any]) -> Entry:
    """A typed memory: its entities and summary are what the user may search it by."""
    fields = [
        Field("entities", MEMORY_ENTITIES, " · ".join(memory["entities"])),
        Field("summary", MEMORY_SUMMARY, memory["summary"]),
    ]
    metadata = {
        "type": memory["type"],
        "entities": list(memory["entities"]),
        "importance": memory["importance"],
        "timestamp": memory["timestamp"],
    }
    if memory.get("sensitive"):  # found only by a query that names it (``engine.SearchEngine.search``)
        metadata["sensitive"] = True
        return Entry("memory", memory["memory_id"], fields, metadata, tuple(memory["entities"]))
    return Entry("memory", memory["memory_id"], fields, metadata)
