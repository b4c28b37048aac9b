"""Playlist heads (``playlists``) against the projection of their history buckets.

Every deterministic field of the document is compared; ``touched_ns`` (when it was last written)
is not: it says when, not what. Heads whose history is gone (orphans) are deleted, as start-up
recovery does; history without a head gets its head.
"""

from __future__ import annotations

from typing import Any

from service.ledger.keys import head_id
from service.ledger.projection import derive_head, store_head
from service.rederive.compare import Difference, difference, differing
from service.storage.database import Database

VIEW = "playlist_head"
# What a reader of the head relies on, then the bookkeeping the writer advances incrementally.
FIELDS = (
    "track_ids",
    "seq",
    "name",
    "description",
    "intent_tags",
    "track_count",
    "open_base_seq",
    "created_at",
    "forked_from",
    "seed_context",
    "created_ns",
    "updated_at",
    "latest_snapshot",
    "recent_events",
    "recent_snapshots",
    "bucket_index",
)


async def check_heads(db: Database, user_id: int, caps: dict[str, int], write: bool) -> tuple[list[Difference], int]:
    """(differences, playlists checked) for one user; repaired when ``write``."""
    found: list[Difference] = []
    firsts = await db.history.find({"user_id": user_id, "base_seq": 0}, {"playlist_id": 1})
    with_history = sorted({b["playlist_id"] for b in firsts})
    heads = {h["playlist_id"]: h for h in await db.playlists.find({"user_id": user_id}, {"playlist_id": 1})}
    for playlist_id in sorted(set(heads) - set(with_history)):
        found.append(difference(VIEW, playlist_id, [], "orphan_head: a playlist document without history"))
        if write:
            await db.playlists.delete_many({"_id": head_id(user_id, playlist_id), "user_id": user_id})
    for playlist_id in with_history:
        derived = await derive_head(db, user_id, playlist_id, caps, trust_index=False)
        if derived is None:  # forgotten meanwhile
            continue
        stored = await db.playlists.find_one({"_id": head_id(user_id, playlist_id), "user_id": user_id})
        if stored is None:
            found.append(difference(VIEW, playlist_id, [], "missing_head: history without a playlist document"))
        else:
            fields = differing(stored, derived, FIELDS)
            if not fields:
                continue
            found.append(
                difference(
                    VIEW,
                    playlist_id,
                    fields,
                    "differs from its history",
                    stored_seq=stored.get("seq"),
                    derived_seq=derived["seq"],
                )
            )
        if write:
            await _store(db, derived)
    return found, len(with_history)


async def _store(db: Database, derived: dict[str, Any]) -> None:
    """The derived head replaces the stored one, even one claiming a later sequence: the history
    is the record (``store_head`` alone never moves a head back, against racing writers)."""
    await db.playlists.delete_many(
        {"_id": derived["_id"], "user_id": derived["user_id"], "seq": {"$gt": derived["seq"]}}
    )
    await store_head(db, derived)
