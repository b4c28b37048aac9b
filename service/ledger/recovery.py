"""Start-up roll-forward: bring every playlist document level with its history buckets."""

from __future__ import annotations

from service.ledger.keys import head_id
from service.ledger.projection import BUCKET_HEADER, load_bucket, rebuild_head, walk_forward
from service.storage.database import Database


async def roll_forward_all(db: Database, caps: dict[str, int]) -> int:
    """Rebuild each playlist document that a crash left behind, and drop any whose history a
    deletion already removed; return how many documents were repaired."""
    rebuilt = 0
    for playlist in await db.playlists.find({}, {"user_id": 1, "playlist_id": 1}):
        if await load_bucket(db, playlist["user_id"], playlist["playlist_id"], 0, {"_id": 1}) is None:
            await db.playlists.delete_many({"_id": playlist["_id"], "user_id": playlist["user_id"]})
            rebuilt += 1
    for first in await db.history.find({"base_seq": 0}, {"user_id": 1, "playlist_id": 1}):
        user_id, playlist_id = first["user_id"], first["playlist_id"]
        head = await db.playlists.find_one(
            {"_id": head_id(user_id, playlist_id), "user_id": user_id}, {"seq": 1, "open_base_seq": 1}
        )
        if head is not None:
            # Headers only: the sweep reads every playlist at start-up, not its track lists.
            bucket = await load_bucket(db, user_id, playlist_id, head["open_base_seq"], BUCKET_HEADER)
            if bucket is not None:
                newest, _ = await walk_forward(db, bucket, BUCKET_HEADER)
                if newest["last_seq"] == head["seq"]:
                    continue
        await rebuild_head(db, user_id, playlist_id, caps)
        rebuilt += 1
    return rebuilt
