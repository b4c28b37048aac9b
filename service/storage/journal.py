"""SQLite journal of the embedded store: the latest BSON of every document.

SQLite (WAL, ``synchronous=FULL``) does the hard part of durability: each commit writes every
document a call changed in one transaction before the call is answered, so an acknowledged write
survives ``kill -9``, and a crash mid-commit leaves the previous state intact.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import bson

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    collection TEXT NOT NULL,
    doc_key TEXT NOT NULL,
    body BLOB NOT NULL,
    PRIMARY KEY (collection, doc_key)
) WITHOUT ROWID
"""


def document_key(doc_id: Any) -> str:
    return json.dumps(doc_id)


class Journal:
    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        # Deleted rows are zeroed in the file, not left in free pages (a hard delete means gone).
        self._db.execute("PRAGMA secure_delete=ON")
        self._db.execute(_SCHEMA)

    def load(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for collection, body in self._db.execute("SELECT collection, body FROM documents"):
            yield collection, bson.decode(body)

    def write(self, upserts: Iterable[tuple[str, dict[str, Any]]], deletes: Iterable[tuple[str, Any]]) -> None:
        rows = [(name, document_key(doc["_id"]), bson.encode(doc)) for name, doc in upserts]
        gone = [(name, document_key(doc_id)) for name, doc_id in deletes]
        self._db.execute("BEGIN IMMEDIATE")
        try:
            if rows:
                self._db.executemany(
                    "INSERT OR REPLACE INTO documents (collection, doc_key, body) VALUES (?, ?, ?)", rows
                )
            if gone:
                self._db.executemany("DELETE FROM documents WHERE collection = ? AND doc_key = ?", gone)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def scrub(self) -> None:
        """Copy the WAL into the main file and empty it: old page images of deleted rows live in
        the WAL until a checkpoint overwrites them."""
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        self._db.close()
