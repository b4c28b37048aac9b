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
