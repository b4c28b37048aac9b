"""Idempotency keys: a canonical hash of the request and a per-user claim taken before commit.

The claim is what makes a key name one request across all of a user's playlists; the per-
playlist sequence number is what makes the request commit once. Keys are scoped by user id in
the claim's ``_id``, so one user's key can never find another user's result.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from service.errors import IdempotencyKeyReused
from service.storage import Database, DuplicateDocument
from service.timeutil import utc_now


def request_hash(arguments: dict[str, Any]) -> str:
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def claim_id(user_id: int, scope: str, key: str) -> str:
    return f"{user_id}:{scope}:{key}"


async def claim_key(
    db: Database, user_id: int, scope: str, key: str, digest: str, playlist_id: str
) -> bool:
    """Claim ``key`` for this request. Return True if it was claimed earlier for the same request
    (a retry), False if this call claimed it; raise if it belongs to a different request."""
    record = {
        "_id": claim_id(user_id, scope, key),
        "user_id": user_id,
        "scope": scope,
        "key": key,
        "request_hash": digest,
        "playlist_id": playlist_id,
        "created_at": utc_now(),
    }
    try:
        await db.idempotency.insert_one(record)
        return False
    except DuplicateDocument:
        existing = await db.idempotency.find_one({"_id": record["_id"]})
    if existing is None or existing["request_hash"] != digest:
        field = "idempotency_key" if scope == "create" else "client_event_id"
        raise IdempotencyKeyReused(
            f"this {field} was already used for a different request", {"field": field}
        )
    return True
