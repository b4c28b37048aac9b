"""Rows written before checksums: their owner and checksum added on the first writable open.

One transaction (the caller's), so a crash mid-way leaves the store as it was, to be migrated at
the next open. A row whose document does not decode keeps no checksum: it is damage, found by
decoding when the store loads.
"""

from __future__ import annotations

import logging
import sqlite3

import bson

from service.storage.embedded.records import WHOLE, owner, row

log = logging.getLogger(__name__)


def needs_checksums(db: sqlite3.Connection) -> bool:
    columns = {info[1] for info in db.execute("PRAGMA table_info(fields)")}
    return "sum" not in columns or db.execute("SELECT 1 FROM fields WHERE sum IS NULL LIMIT 1").fetchone() is not None


def add_checksums(db: sqlite3.Connection) -> None:
    columns = {info[1] for info in db.execute("PRAGMA table_info(fields)")}
    for column in ("user_id", "sum"):
        if column not in columns:
            db.execute(f"ALTER TABLE fields ADD COLUMN {column} INTEGER")
    owners: dict[tuple[str, str], int | None] = {}
    undecodable: set[tuple[str, str]] = set()
    for collection, key, field, body in db.execute(
        "SELECT collection, doc_key, field, body FROM fields WHERE field IN (?, 'user_id')", (WHOLE,)
    ).fetchall():
        try:
            decoded = bson.decode(body)
        except Exception:  # bson raises several types; this row is damage, left to be found
            undecodable.add((collection, key))
            continue
        owners[(collection, key)] = owner(decoded if field == WHOLE else {"user_id": decoded["v"]})
    updates = []
    for collection, key, field, ord_, body in db.execute(
        "SELECT collection, doc_key, field, ord, body FROM fields WHERE sum IS NULL"
    ).fetchall():
        if (collection, key) in undecodable:
            continue
        user_id = owners.get((collection, key))  # a document without user_id belongs to no user
        updates.append((user_id, row(collection, key, field, ord_, body, user_id)[6], collection, key, field))
    db.executemany("UPDATE fields SET user_id = ?, sum = ? WHERE collection = ? AND doc_key = ? AND field = ?", updates)
    log.info("journal: checksums added to %d stored rows", len(updates))
