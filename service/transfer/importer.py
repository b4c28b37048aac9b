"""Import of an export (one document or its continuation parts) back into the store: the writing half.

The whole export is built first (``service/transfer/build.py``: parsed, checked, turned into
documents); only then is anything read for conflicts or written. So an export that is malformed
anywhere, or that would collide with what is stored, leaves the store as it was: with
``replace``, the user's old data is deleted only once the new data is known to be writable.
"""

from __future__ import annotations

from typing import Any

from service.errors import EventIdTaken, UserHasData
from service.ledger.projection import rebuild_head
from service.profiles.supersession import remark
from service.storage.database import Database
from service.transfer.build import ImportPlan, build
from service.transfer.rekey import rekey_events
from service.users import directory as users


async def has_data(db: Database, user_id: int) -> bool:
    for collection in db.user_collections():
        if await collection.count_documents({"user_id": user_id}):
            return True
    return False


async def _held_elsewhere(db: Database, user_id: int, ids: list[str]) -> list[str]:
    """Which of ``ids`` are stored as preference events of another user than ``user_id``."""
    taken: list[str] = []
    for start in range(0, len(ids), 500):
        found = await db.preference_events.find(
            {"_id": {"$in": ids[start : start + 500]}, "user_id": {"$ne": user_id}}, {"_id": 1}
        )
        taken += [str(t["_id"]) for t in found]
    return sorted(taken)


async def place_event_ids(db: Database, plan: ImportPlan) -> None:
    """Preference events are stored under their own ids, which the export carries; an import never
    writes over, or beside, another user's records. So when those ids are held by another user:
    an export of some other user (a copy of them) gets ids of its own for the target
    (``rekey_events``, the same on every import of it); an export of this very user whose ids
    another user now holds is refused, as are copied ids that are themselves taken."""
    taken = await _held_elsewhere(db, plan.user_id, [e["_id"] for e in plan.preference_events])
    if taken and plan.event_owners != {plan.user_id}:
        copies = rekey_events(plan.user_id, plan.preference_events)
        taken = await _held_elsewhere(db, plan.user_id, sorted(copies.values()))
        if len(set(copies.values())) != len(copies):  # two ids that differ only where a copy rewrites
            taken = sorted(copies.values())
    if taken:
        raise EventIdTaken(
            "preference events of this export are stored for another user (the export is "
            "already imported there); import it where those ids are free",
            {"reason": "event_id_taken", "field": "data.preference_events", "event_ids": taken[:10]},
        )


async def import_user(
    db: Database, parts: list[Any], user_id: int, caps: dict[str, int], replace: bool = False
) -> tuple[dict[str, int], bool]:
    """Load an export for ``user_id``: the counts per kind, and whether data of the user was
    replaced. A user who already has data is refused (``UserHasData``) unless ``replace``."""
    plan = build(parts, user_id)
    await place_event_ids(db, plan)
    replaced = await has_data(db, user_id)
    if replaced and not replace:
        raise UserHasData(
            f"user {user_id} already has data; delete it first, or import with replace",
            {"reason": "user_has_data", "field": "user_id"},
        )
    if replaced:
        await users.delete_user(db, user_id)
    await write(db, plan, caps)
    return plan.counts, replaced


async def write(db: Database, plan: ImportPlan, caps: dict[str, int]) -> None:
    """Store a built import: the records, then what is derived from them (playlist documents,
    supersession marks)."""
    if plan.profile is not None:
        await db.profiles.insert_one(plan.profile)
    for event in plan.preference_events:
        await db.preference_events.insert_one(event)
    for bucket in plan.history:
        await db.history.insert_one(bucket)
    for claim in plan.idempotency:
        await db.idempotency.replace_one(claim)
    for pid in plan.playlist_ids:
        await rebuild_head(db, plan.user_id, pid, caps)
    # Derived like the heads: the export carries no marks (and any an export did carry are replaced).
    await remark(db, plan.user_id, strays=True)
    for name, documents in plan.documents.items():
        collection = getattr(db, name)
        for document in documents:
            await collection.insert_one(document)
