"""Taste profile (JSON Merge Patch, versioned, optimistic concurrency) and preference events."""

from __future__ import annotations

import copy
import time
import uuid
from datetime import datetime
from typing import Any

import json_merge_patch

from service.audit.origin import written_by
from service.errors import ProfileNotFound, SequenceConflict
from service.limits import require_at_most
from service.storage.collection import DuplicateDocument
from service.storage.database import Database
from service.timeutil import utc_now

MAX_ATTEMPTS = 64


def _view(user_id: int, document: dict[str, Any] | None) -> dict[str, Any]:
    if document is None:
        return {"user_id": user_id, "profile": {}, "version": 0, "updated_at": None}
    return {
        "user_id": user_id,
        "profile": document["profile"],
        "version": document["version"],
        "updated_at": document["updated_at"],
    }


def merge(profile: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """RFC 7396: objects merge recursively, null deletes, arrays and scalars replace."""
    # json_merge_patch.merge edits its first argument in place.
    merged: dict[str, Any] = json_merge_patch.merge(copy.deepcopy(profile), copy.deepcopy(patch))  # an untyped library
    return merged


class Profiles:
    def __init__(self, db: Database, history_cap: int, max_bytes: int) -> None:
        self._db = db
        self._history_cap = history_cap
        self._max_bytes = max_bytes

    async def get(self, user_id: int) -> dict[str, Any]:
        return _view(user_id, await self._db.profiles.find_one({"_id": user_id, "user_id": user_id}))

    async def update(
        self, user_id: int, patch: dict[str, Any], reason: str | None, source: str, create_if_missing: bool
    ) -> dict[str, Any]:
        """Apply the patch; concurrent updates retry on the version so no patch is lost.

        A patch that changes nothing writes nothing and returns the current version, which is
        what makes loading the seed profile twice a no-op."""
        for _ in range(MAX_ATTEMPTS):
            current = await self._db.profiles.find_one({"_id": user_id, "user_id": user_id})
            if current is None and not create_if_missing:
                raise ProfileNotFound(
                    "this user has no profile yet; call again with create_if_missing true",
                    {"field": "create_if_missing"},
                )
            base = current["profile"] if current else {}
            merged = merge(base, patch)
            if current is not None and merged == base:
                return _view(user_id, current)
            require_at_most(merged, self._max_bytes, "patch", "the profile after this patch")
            now = utc_now()
            version = (current["version"] if current else 0) + 1
            stamp = written_by()
            entry = {
                "version": version,
                "patch": patch,
                "reason": reason,
                "source": source,
                "applied_at": now,
                "written_by": stamp,
            }
            if current is None:
                document = {
                    "_id": user_id,
                    "user_id": user_id,
                    "profile": merged,
                    "version": version,
                    "created_at": now,
                    "updated_at": now,
                    "history": [entry],
                    "written_by": stamp,
                }
                try:
                    await self._db.profiles.insert_one(document)
                except DuplicateDocument:
                    continue
                return _view(user_id, document)
            matched = await self._db.profiles.update_one(
                {"_id": user_id, "user_id": user_id, "version": current["version"]},
                {
                    "$set": {"profile": merged, "version": version, "updated_at": now, "written_by": stamp},
                    "$push": {"history": {"$each": [entry], "$slice": -self._history_cap}},
                },
            )
            if matched:
                return {"user_id": user_id, "profile": merged, "version": version, "updated_at": now}
        raise SequenceConflict("the profile is being updated concurrently; retry", {"field": "patch"})

    async def append_event(
        self, user_id: int, event_type: str, payload: dict[str, Any], source: str, timestamp: datetime | None
    ) -> dict[str, Any]:
        now = utc_now()
        document = {
            "_id": str(uuid.uuid4()),
            "user_id": user_id,
            "type": event_type,
            "source": source,
            "payload": payload,
            "timestamp": timestamp or now,
            "recorded_at": now,
            "recorded_ns": time.time_ns(),
            "written_by": written_by(),
        }
        await self._db.preference_events.insert_one(document)
        return {"event_id": document["_id"], "user_id": user_id, "timestamp": document["timestamp"]}
