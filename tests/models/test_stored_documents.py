"""What the service stores is what the models and the real-server validators say it stores.

The ``$jsonSchema`` validators only run on real MongoDB; this checks them against the documents
the service really writes, with a small evaluator of the validator keywords they use, so a
validator can never reject the service's own writes on a real server.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from models.documents.ledger import IdempotencyRecord, PlaylistDocument, PlaylistHistoryBucket
from models.documents.profiles import PreferenceEventDocument, ProfileDocument
from models.validators import VALIDATORS
from service.settings import Settings
from tests.support import connected, playlist, track

_BSON_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool) and -(2**31) <= v < 2**31,
    "long": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "date": lambda v: isinstance(v, datetime),
    "bool": lambda v: isinstance(v, bool),
}


def violations(schema: dict[str, Any], value: Any, path: str = "$") -> list[str]:
    found: list[str] = []
    if "bsonType" in schema:
        kinds = schema["bsonType"] if isinstance(schema["bsonType"], list) else [schema["bsonType"]]
        if not any(_BSON_TYPES[k](value) for k in kinds):
            return [f"{path}: {type(value).__name__} is not {kinds}"]
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{path}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and value < schema["minimum"]:
        found.append(f"{path}: {value} < {schema['minimum']}")
    if "minLength" in schema and len(value) < schema["minLength"]:
        found.append(f"{path}: shorter than {schema['minLength']}")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        found.append(f"{path}: longer than {schema['maxLength']}")
    if isinstance(value, dict):
        found += [f"{path}.{k}: required" for k in schema.get("required", []) if k not in value]
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                found += violations(sub, value[key], f"{path}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            found += violations(schema["items"], item, f"{path}[{i}]")
    return found


def test_the_evaluator_catches_what_a_server_would_reject() -> None:
    schema = VALIDATORS["playlists"]
    assert violations(schema, {"user_id": 0}) != []
    assert any(
        "playlist_id" in v
        for v in violations(
            schema,
            {
                "user_id": 1,
                "playlist_id": "short",
                "name": "x",
                "seq": 0,
                "track_ids": [],
                "created_at": datetime.now(),
                "updated_at": datetime.now(),
            },
        )
    )


MODELS = {
    "profiles": ProfileDocument,
    "preference_events": PreferenceEventDocument,
    "playlists": PlaylistDocument,
    "playlist_history": PlaylistHistoryBucket,
    "idempotency": IdempotencyRecord,
}


async def test_every_stored_document_fits_its_model_and_validator(settings_factory: Any) -> None:
    settings: Settings = settings_factory(snapshot_every=2)
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": 1, "patch": {"core_genres": ["power metal"]}, "reason": "r"})
        await call.ok(
            "memory_append_preference_event",
            {"user_id": 1, "type": "rule", "payload": {"raw_text": "max 3 per artist"}, "source": "user"},
        )
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": 1,
                "playlist_id": playlist(1),
                "name": "Drive",
                "description": "d",
                "track_ids": [track(1), track(2)],
                "idempotency_key": "create-key-1",
                "seed_context": {"days": 60},
            },
        )
        for n in range(5):
            await call.ok(
                "memory_log_playlist_mutation",
                {
                    "user_id": 1,
                    "playlist_id": playlist(1),
                    "type": "ADD_TRACKS",
                    "payload": {"track_ids": [track(10 + n)]},
                    "client_event_id": str(uuid.uuid4()),
                },
            )
        await call.ok(
            "memory_log_playlist_mutation",
            {"user_id": 1, "playlist_id": playlist(1), "type": "UPDATE_META", "payload": {"intent_tags": ["x"]}},
        )
        db = call.service.database
        seen = 0
        for collection in db.user_collections():
            for document in await collection.find({}):
                assert violations(VALIDATORS[collection.name], document) == [], collection.name
                MODELS[collection.name].model_validate(document)
                seen += 1
    assert seen >= 1 + 1 + 1 + 4 + 6  # profile, event, playlist, buckets, claims
