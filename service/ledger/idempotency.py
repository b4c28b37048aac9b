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
from service.storage.collection import DuplicateDocument
from service.storage.database import Database
from service.timeutil import utc_now


def request_hash(arguments: dict[str, Any]) -> str:
    """Hash of the request without its user id: keys are scoped per user already, and an export
    imported under another user id must still recognise its retries."""
    request = {k: v for k, v in arguments.items() if k != "user_id"}
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def claim_id(user_id: int, scope: str, key: str) -> str:
    return f"{user_id}:{scope}:{key}"


def _reused(scope: str) -> IdempotencyKeyReused:
    field = "idempotency_key" if scope == "create" else "client_event_id"
    return IdempotencyKeyReused(f"this {field} was already used for a different request", {"field": field})


async def key_seen(db: Database, user_id: int, scope: str, key: str, digest: str) -> bool:
    """True if ``key`` was claimed for this same request (a retry); raise if for another one."""
    existing = await db.idempotency.find_one({"_id": claim_id(user_id, scope, key), "user_id": user_id})
    if existing is None:
        return False
    if existing["request_hash"] != digest:
        raise _reused(scope)
    return True


async def claim_key(db: Database, user_id: int, scope: str, key: str, digest: str, playlist_id: str) -> bool:
    """Claim ``key`` right before the commit (so a request the ledger refuses burns no key).

    Return True if this call took the claim, False if the same request holds it already (a
    concurrent or earlier attempt); raise if a different request holds it."""
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
        return True
    except DuplicateDocument:
        if await key_seen(db, user_id, scope, key, digest):
            return False
        raise _reused(scope) from None  # pragma: no cover - the claim vanished (user deleted) meanwhile


async def release_key(db: Database, user_id: int, scope: str, key: str) -> None:
    """Give back a claim this call took for a request that was then refused."""
    await db.idempotency.delete_many({"_id": claim_id(user_id, scope, key), "user_id": user_id})
