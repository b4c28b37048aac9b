"""Audit entries: one per change of a canonical record, built the same way from a real MongoDB
change event (the watcher) and from the embedded engine's write path (an event of the same shape).

The canonical records are the profile, the preference events and the ledger's history buckets;
the ``playlists`` documents are a projection rebuilt from the buckets and the idempotency claims
are bookkeeping, so auditing them would only repeat what the buckets already say.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime
from typing import Any

from service.audit.origin import current_origin
from service.timeutil import utc_now

AUDITED = (
    "profiles",
    "preference_events",
    "playlist_history",
    "tracks",
    "track_choices",
    "memories",
    "plays",
    "memory_aging",
    "memory_controls",
)
AUDITED_OPERATIONS = ("insert", "update", "replace")
TOMBSTONE = "delete_user_data"
# A change made around the service (an operator's mongosh edit) has no stamp; it is still listed,
# with principal, tool and request id null: "not written through the service".
UNSTAMPED = {"principal": None, "tool": None, "request_id": None}
NO_REQUEST = "-"  # the origin of work done outside any call (start-up recovery)


def entry_id(collection: str, document_key: Any, request_id: str | None, change_id: Any = None) -> str:
    """Deterministic, so the same change seen twice (a replay after a restart, or the backfill
    overlapping the stream) is stored once."""
    if request_id and request_id != NO_REQUEST:
        basis = f"{collection}\x00{document_key!r}\x00{request_id}"
    else:
        basis = f"change\x00{change_id!r}"
    return hashlib.sha256(basis.encode()).hexdigest()[:32]


def parse_bucket_key(key: str) -> tuple[int | None, str | None]:
    """``"7:playlistid:0000000010"`` → (7, "playlistid"); playlist ids may contain ':'."""
    head, _, rest = key.partition(":")
    playlist_id, _, _ = rest.rpartition(":")
    return (int(head) if head.isdigit() else None), (playlist_id or None)


def _subject(collection: str, key: Any, document: dict[str, Any]) -> tuple[int | None, str | None]:
    if collection == "playlist_history" and isinstance(key, str):  # the key names user and playlist
        return parse_bucket_key(key)
    if isinstance(document.get("user_id"), int):  # a whole document, or an update's owner
        return document["user_id"], document.get("playlist_id")
    if collection in ("profiles", "memory_controls") and isinstance(key, int):
        return key, None
    if collection in ("tracks", "track_choices", "memories", "plays", "memory_aging") and isinstance(key, str):
        head = key.partition(":")[0]  # "<user_id>:<track id, digest, memory id or month>"
        return (int(head) if head.isdigit() else None), None
    return None, None


def entry_from_change(change: dict[str, Any], via: str, now: datetime | None = None) -> dict[str, Any] | None:
    """The audit entry for one change event, or None if the change is not audited (deletes are
    recorded by ``tombstone`` instead, so a deleted user's trail is one entry)."""
    collection = (change.get("ns") or {}).get("coll")
    operation = change.get("operationType")
    if collection not in AUDITED or operation not in AUDITED_OPERATIONS:
        return None
    key = (change.get("documentKey") or {}).get("_id")
    document = change.get("fullDocument") or {}
    updated = (change.get("updateDescription") or {}).get("updatedFields") or {}
    # An imported preference event keeps its author's stamp; the import is who wrote it here.
    if operation == "update":  # the document (updateLookup) tells who wrote it before, not who changed it
        stamp = updated.get("written_by") or _dotted_stamp(updated) or updated.get("marked_by") or UNSTAMPED
    else:
        stamp = (
            document.get("imported_by")
            or document.get("written_by")
            or updated.get("written_by")
            or _dotted_stamp(updated)
            or UNSTAMPED
        )
    user_id, playlist_id = _subject(collection, key, document)
    moment = change.get("wallTime") or now or utc_now()
    change_id = (change.get("_id") or {}).get("_data")
    return make_entry(collection, operation, key, user_id, playlist_id, stamp, moment, via, change_id)


def make_entry(
    collection: str,
    operation: str,
    key: Any,
    user_id: int | None,
    playlist_id: str | None,
    stamp: dict[str, Any],
    moment: datetime,
    via: str,
    change_id: Any,
) -> dict[str, Any]:
    """One audit entry; ``change_id`` keys it when the stamp names no request."""
    return {
        "_id": entry_id(collection, key, stamp.get("request_id"), change_id),
        "time": moment,
        "collection": collection,
        "operation": operation,
        "user_id": user_id,
        "playlist_id": playlist_id,
        "document_key": str(key),
        "tool": stamp.get("tool"),
        "request_id": stamp.get("request_id"),
        "principal": stamp.get("principal"),
        "via": via,
    }


def _dotted_stamp(updated: dict[str, Any]) -> dict[str, Any] | None:
    """A server may report a changed subdocument field by field (``written_by.request_id``)."""
    parts = {k.split(".", 1)[1]: v for k, v in updated.items() if k.startswith("written_by.")}
    return parts or None


def tombstone(user_id: int) -> dict[str, Any]:
    """What remains of a deleted user in the audit log: that it happened, when, by whom."""
    origin = current_origin()
    return {
        "_id": uuid.uuid4().hex,
        "time": utc_now(),
        "collection": None,
        "operation": TOMBSTONE,
        "user_id": user_id,
        "playlist_id": None,
        "document_key": None,
        "tool": origin.tool,
        "request_id": origin.request_id,
        "principal": origin.principal,
        "via": "write_path",
    }
