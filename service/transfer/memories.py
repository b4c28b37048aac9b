"""Typed memories, plays and aging records in the export (sections 5, 6 and 7) and back.

Like the track catalog these are current state, not history: a memory restated or aged since the
export began is exported as it now is; one first recorded after the export's moment is left out
(plays carry no recording time: every bucket is exported as it stands). Derived fields (the
deduplication key) and the stores' own stamps are not exported; the import (``service/transfer/build.py``)
derives and stamps them again, keyed for the importing user, so a renumbered user gets its own documents.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

from service.audit.origin import written_by
from service.errors import InvalidArgument
from service.memories.keys import MEMORY_TYPES, entity_key, is_memory_id, memory_key
from service.storage.database import Database
from service.timeutil import parse_iso

# Export section → the list it fills in the export document.
SECTIONS = {
    "memory": "memories",
    "play_bucket": "plays",
    "memory_aging": "memory_aging",
    "memory_controls": "memory_controls",
}
Fit = Callable[[str, list[Any], dict[str, Any]], list[tuple[str, list[Any], dict[str, Any]]]]
_NOT_EXPORTED = ("_id", "user_id", "written_by", "entity_key")


def _before(moment: datetime, as_of_ns: int) -> bool:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment <= datetime.fromtimestamp(as_of_ns / 1e9, tz=UTC)


def _suffix(doc: dict[str, Any]) -> str:
    return str(doc["_id"]).split(":", 1)[1]  # the id without its "<user_id>:" prefix


async def memory_pieces(
    db: Database,
    user_id: int,
    as_of_ns: int,
    section: int,
    after: list[Any] | None,
    to_json: Callable[[Any], Any],
    fit: Fit,
) -> AsyncIterator[tuple[str, list[Any], dict[str, Any]]]:
    """Section 5 (memories by id), 6 (play buckets by month and part), 7 (aging records by id), 8
    (the user's switches, when ever set)."""

    start: Any = after[1] if after else None  # a section past 0 comes from a cursor (after)

    def later(number: int, key: str) -> bool:
        return section < number or key >= start

    if section <= 5:
        for doc in await db.memories.find({"user_id": user_id}, sort=[("_id", 1)]):
            if later(5, doc["memory_id"]) and _before(doc["created_at"], as_of_ns):
                body = to_json({k: v for k, v in doc.items() if k not in _NOT_EXPORTED})
                for piece in fit("memory", [5, doc["memory_id"]], body):
                    yield piece
    if section <= 6:
        for doc in await db.plays.find({"user_id": user_id}, sort=[("_id", 1)]):
            key = _suffix(doc)
            if later(6, key):
                body = {"bucket_id": key} | to_json({k: v for k, v in doc.items() if k not in _NOT_EXPORTED})
                for piece in fit("play_bucket", [6, key], body):
                    yield piece
    if section <= 7:
        for doc in await db.memory_aging.find({"user_id": user_id}, sort=[("_id", 1)]):
            key = _suffix(doc)
            if later(7, key) and _before(doc["recorded_at"], as_of_ns):
                body = {"aging_id": key} | to_json({k: v for k, v in doc.items() if k not in _NOT_EXPORTED})
                for piece in fit("memory_aging", [7, key], body):
                    yield piece
    controls = await db.memory_controls.find_one({"_id": user_id, "user_id": user_id})
    if controls is not None and later(8, "controls"):
        for piece in fit(
            "memory_controls", [8, "controls"], to_json({k: v for k, v in controls.items() if k not in _NOT_EXPORTED})
        ):
            yield piece


def _dates(item: dict[str, Any], *names: str) -> dict[str, Any]:
    """Dates back from RFC 3339 (a ValueError is the importer's INVALID_ARGUMENT for the section)."""
    return {**item, **{n: parse_iso(item[n]) for n in names if isinstance(item.get(n), str)}}


_READ_FIELDS: dict[str, type] = {
    "timestamp": datetime,
    "last_seen_at": datetime,
    "created_at": datetime,
    "updated_at": datetime,
    "seen_count": int,
}


def memory_document(user_id: int, body: dict[str, Any]) -> dict[str, Any]:
    memory_id, entities = body.get("memory_id"), body.get("entities")
    importance = body.get("importance")
    if not (
        isinstance(memory_id, str)
        and is_memory_id(memory_id)
        and body.get("type") in MEMORY_TYPES
        and isinstance(entities, list)
        and entities
        and all(isinstance(e, str) and e for e in entities)
        and isinstance(body.get("summary"), str)
        and type(importance) is int
        and 1 <= importance <= 10
    ):
        raise InvalidArgument("a memory in the export is malformed", {"field": "data.memories", "memory_id": memory_id})
    doc = _dates(body, "timestamp", "last_seen_at", "validated_at", "created_at", "updated_at")
    # What every read of a memory (and the aging run) takes as given: missing, it would be an
    # INTERNAL error at the first read instead of this import's INVALID_ARGUMENT.
    for name, kind in _READ_FIELDS.items():
        if not isinstance(doc.get(name), kind) or isinstance(doc.get(name), bool):
            raise InvalidArgument(
                f"a memory in the export has no valid {name}", {"field": "data.memories", "memory_id": memory_id}
            )
    if not isinstance(doc.get("sensitive", False), bool):  # the store's validator takes only a bool
        raise InvalidArgument(
            "a memory's sensitive must be true or false", {"field": "data.memories", "memory_id": memory_id}
        )
    return {
        **doc,
        "_id": memory_key(user_id, memory_id),
        "user_id": user_id,
        "entity_key": entity_key(entities),
        "written_by": written_by(),
    }


def bucket_document(user_id: int, body: dict[str, Any]) -> dict[str, Any]:
    plays = body.get("plays")
    if not (
        isinstance(body.get("bucket_id"), str)
        and isinstance(body.get("month"), str)
        and type(body.get("part")) is int
        and isinstance(plays, list)
        and all(
            isinstance(p, dict) and isinstance(p.get("artist"), str) and isinstance(p.get("played_at"), str)
            for p in plays
        )
    ):
        raise InvalidArgument("a play bucket in the export is malformed", {"field": "data.plays"})
    doc = _dates({k: v for k, v in body.items() if k != "bucket_id"}, "updated_at")
    doc["plays"] = [_dates(p, "played_at") for p in plays]
    skips = body.get("skips")  # imported histories' short streams, kept beside the plays
    if skips is not None:
        if not (
            isinstance(skips, list) and all(isinstance(p, dict) and isinstance(p.get("played_at"), str) for p in skips)
        ):
            raise InvalidArgument("a play bucket in the export is malformed", {"field": "data.plays"})
        doc["skips"] = [_dates(p, "played_at") for p in skips]
    return {**doc, "_id": f"{user_id}:{body['bucket_id']}", "user_id": user_id, "written_by": written_by()}


def aging_document(user_id: int, body: dict[str, Any]) -> dict[str, Any]:
    if not (isinstance(body.get("aging_id"), str) and isinstance(body.get("memory_id"), str)):
        raise InvalidArgument("an aging record in the export is malformed", {"field": "data.memory_aging"})
    doc = _dates({k: v for k, v in body.items() if k != "aging_id"}, "aged_at", "recorded_at")
    for side in ("before", "after"):  # the memory views keep their dates as dates too
        if isinstance(doc.get(side), dict):
            doc[side] = _dates(doc[side], "timestamp", "last_seen_at", "validated_at")
    return {**doc, "_id": f"{user_id}:{body['aging_id']}", "user_id": user_id, "written_by": written_by()}


def controls_document(user_id: int, body: dict[str, Any]) -> dict[str, Any]:
    until = body.get("paused_until")
    if not (type(body.get("enabled")) is bool and (until is None or isinstance(until, str))):
        raise InvalidArgument("the switches in the export are malformed", {"field": "data.memory_controls"})
    doc = _dates(body, "paused_until", "updated_at")
    return {**doc, "_id": user_id, "user_id": user_id, "written_by": written_by()}


# Export list → the builder of its stored documents (the collection has the list's name).
BUILDERS: dict[str, Callable[[int, dict[str, Any]], dict[str, Any]]] = {
    "memories": memory_document,
    "plays": bucket_document,
    "memory_aging": aging_document,
    "memory_controls": controls_document,
}
