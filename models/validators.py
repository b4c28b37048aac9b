"""``$jsonSchema`` validators applied on real MongoDB, so an operator's mongosh edit cannot
corrupt a document the service relies on (mongomock has no validators)."""

from __future__ import annotations

from typing import Any

_DATE = {"bsonType": "date"}
_INT = {"bsonType": ["int", "long"]}

VALIDATORS: dict[str, dict[str, Any]] = {
    "profiles": {
        "bsonType": "object",
        "required": ["user_id", "profile", "version", "updated_at", "history"],
        "properties": {
            "user_id": _INT | {"minimum": 1},
            "profile": {"bsonType": "object"},
            "version": _INT | {"minimum": 0},
            "updated_at": _DATE,
            "history": {"bsonType": "array"},
        },
    },
    "preference_events": {
        "bsonType": "object",
        "required": ["user_id", "type", "source", "payload", "timestamp"],
        "properties": {
            "user_id": _INT | {"minimum": 1},
            "type": {"enum": ["like", "dislike", "rule", "feedback", "note"]},
            "source": {"enum": ["user", "assistant", "inferred"]},
            "payload": {"bsonType": "object"},
            "timestamp": _DATE,
            # Derived (service/profiles/supersession.py): the id of the newer like/dislike of the same subject.
            "superseded_by": {"bsonType": "string"},
        },
    },
    "playlists": {
        "bsonType": "object",
        "required": ["user_id", "playlist_id", "name", "seq", "track_ids", "created_at", "updated_at"],
        "properties": {
            "user_id": _INT | {"minimum": 1},
            "playlist_id": {"bsonType": "string", "minLength": 10, "maxLength": 80},
            "name": {"bsonType": "string"},
            "seq": _INT | {"minimum": 0},
            "track_ids": {"bsonType": "array", "items": {"bsonType": "string"}},
            "created_at": _DATE,
            "updated_at": _DATE,
        },
    },
    "playlist_history": {
        "bsonType": "object",
        "required": ["user_id", "playlist_id", "base_seq", "last_seq", "snapshot", "events"],
        "properties": {
            "user_id": _INT | {"minimum": 1},
            "playlist_id": {"bsonType": "string"},
            "base_seq": _INT | {"minimum": 0},
            "last_seq": _INT | {"minimum": 0},
            "snapshot": {"bsonType": "object", "required": ["snapshot_id", "track_ids", "created_at"]},
            "events": {"bsonType": "array"},
        },
    },
    "idempotency": {
        "bsonType": "object",
        "required": ["user_id", "scope", "key", "request_hash"],
        "properties": {"user_id": _INT | {"minimum": 1}, "scope": {"enum": ["create", "mutation"]}},
    },
    "tracks": {
        "bsonType": "object",
        "required": ["user_id", "track_id", "name", "artists"],
        "properties": {
            "user_id": _INT | {"minimum": 1},
            "track_id": {"bsonType": "string", "minLength": 10, "maxLength": 80},
            "name": {"bsonType": "string"},
            "artists": {"bsonType": "array", "items": {"bsonType": "string"}},
        },
    },
    "track_choices": {
        "bsonType": "object",
        "required": ["user_id", "folded", "track_id"],
        "properties": {
            "user_id": _INT | {"minimum": 1},
            "folded": {"bsonType": "string"},
            "track_id": {"bsonType": "string", "minLength": 10, "maxLength": 80},
        },
    },
    "memories": {
        "bsonType": "object",
        "required": [
            "user_id",
            "memory_id",
            "type",
            "entities",
            "entity_key",
            "summary",
            "importance",
            "timestamp",
            "last_seen_at",
            "seen_count",
        ],
        "properties": {
            "user_id": _INT | {"minimum": 1},
            "memory_id": {"bsonType": "string"},
            "type": {"enum": ["recommendation", "insight", "event", "feedback", "discussion"]},
            "entities": {"bsonType": "array", "minItems": 1, "items": {"bsonType": "string"}},
            "summary": {"bsonType": "string"},
            "importance": _INT | {"minimum": 1, "maximum": 10},
            "metadata": {"bsonType": "object"},
            "timestamp": _DATE,
            "last_seen_at": _DATE,
            "seen_count": _INT | {"minimum": 1},
            "fuzzy": {"bsonType": "bool"},
            "sensitive": {"bsonType": "bool"},
        },
    },
    "plays": {
        "bsonType": "object",
        "required": ["user_id", "month", "part", "plays"],
        "properties": {
            "user_id": _INT | {"minimum": 1},
            "month": {"bsonType": "string", "pattern": "^[0-9]{4}-[0-9]{2}$"},
            "part": _INT | {"minimum": 0},
            "plays": {"bsonType": "array", "items": {"bsonType": "object", "required": ["artist", "played_at"]}},
        },
    },
    "memory_aging": {
        "bsonType": "object",
        "required": ["user_id", "memory_id", "action", "aged_at", "before"],
        "properties": {
            "user_id": _INT | {"minimum": 1},
            "action": {"enum": ["compressed", "removed"]},
            "aged_at": _DATE,
            "before": {"bsonType": "object"},
        },
    },
    "memory_controls": {
        "bsonType": "object",
        "required": ["user_id", "enabled", "updated_at"],
        "properties": {
            "user_id": _INT | {"minimum": 1},
            "enabled": {"bsonType": "bool"},
            "paused_until": {"bsonType": ["date", "null"]},
        },
    },
    "user_stats": {
        "bsonType": "object",
        "required": ["user_id"],
        "properties": {
            "user_id": _INT | {"minimum": 1},
            "playlist_count": _INT | {"minimum": 0},
            "preference_event_count": _INT | {"minimum": 0},
            "profile_version": _INT | {"minimum": 0},
        },
    },
}
