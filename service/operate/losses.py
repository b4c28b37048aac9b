"""Damaged records named in the user's terms: what salvage lost (``events 12–19 of playlist X``).

A history bucket holds a run of a playlist's events; the walk that replays a playlist goes from
bucket to bucket, so the buckets after a damaged one cannot be reached either: salvage drops them
too, and the playlist stands at the last event before the damage.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from service.storage.database import Database
from service.storage.embedded.records import Damage


@dataclass(frozen=True)
class Loss:
    record: str
    what: str

    def as_json(self) -> dict[str, str]:
        return {"record": self.record, "what": self.what}


_DERIVED = {
    "playlists": "the playlist document of {id} (derived: rebuilt from its history)",
    "user_stats": "the user's counters (derived: recounted)",
    "profiles": "the profile document (rebuilt from its patch history where that is whole)",
    "preference_events": "preference event {id}",
    "memories": "memory {id}",
    "tracks": "catalog track {id}",
}


def describe(damage: Damage) -> str:
    doc_id = json.loads(damage.key)
    template = _DERIVED.get(damage.collection)
    if template is None:
        return f"{damage.collection} record {doc_id}"
    shown = str(doc_id).split(":", 1)[1] if damage.collection == "playlists" else doc_id
    return template.format(id=shown)


def _bucket_of(key: str) -> tuple[int, str, int] | None:
    parts = str(json.loads(key)).rsplit(":", 1)
    head = parts[0].split(":", 1)
    if len(parts) != 2 or len(head) != 2 or not parts[1].isdigit() or not head[0].isdigit():
        return None
    return int(head[0]), head[1], int(parts[1])


async def drop_unreachable_history(db: Database, user_id: int, damaged: list[Damage]) -> list[Loss]:
    """For each playlist with a damaged bucket: drop the buckets after it; name the events lost."""
    losses: list[Loss] = []
    cut: dict[str, int] = {}  # playlist -> the base_seq of its first damaged bucket
    for found in damaged:
        if found.collection != "playlist_history":
            continue
        bucket = _bucket_of(found.key)
        if bucket is not None and bucket[0] == user_id:
            cut[bucket[1]] = min(cut.get(bucket[1], bucket[2]), bucket[2])
    for playlist_id, base in sorted(cut.items()):
        later: list[dict[str, Any]] = await db.history.find(
            {"user_id": user_id, "playlist_id": playlist_id, "base_seq": {"$gt": base}}, {"_id": 1, "last_seq": 1}
        )
        head = await db.playlists.find_one({"user_id": user_id, "playlist_id": playlist_id}, {"seq": 1})
        last = max([b.get("last_seq", base) for b in later] + [head.get("seq", base) if head else base])
        if later:
            await db.history.delete_many({"user_id": user_id, "_id": {"$in": [b["_id"] for b in later]}})
        events = f"events {base}–{last}" if last > base else f"event {base} and any after it"
        state = "the playlist is gone (its first events were)" if base == 0 else f"it stands at event {base - 1}"
        losses.append(Loss(f"playlist_history/{playlist_id}", f"{events} of playlist {playlist_id}; {state}"))
    return losses
