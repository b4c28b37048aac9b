"""SQLite journal of the embedded store: the latest BSON of every document, field by field.

SQLite (WAL, ``synchronous=FULL``) does the hard part of durability: each commit writes what a
call changed in one transaction before the call is answered, so an acknowledged write survives
``kill -9``, and a crash mid-commit leaves the previous state intact.

A large document is kept one row per top-level field (``SPLIT_ABOVE_ITEMS``), so a write that
names the fields it changed (``$set``, ``$push``…) rewrites only those rows: a commit costs what the
change costs, not what the document weighs.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bson

_SCHEMA = """
CREATE TABLE IF NOT EXISTS fields (
    collection TEXT NOT NULL,
    doc_key TEXT NOT NULL,
    field TEXT NOT NULL,
    ord INTEGER NOT NULL,
    body BLOB NOT NULL,
    PRIMARY KEY (collection, doc_key, field)
) WITHOUT ROWID
"""
# Journals written before field rows kept one row per document; they are converted on open.
_LEGACY = "documents"


def document_key(doc_id: Any) -> str:
    return json.dumps(doc_id)


def _encode(value: Any) -> bytes:
    return bson.encode({"v": value})


WHOLE = ""  # the field name of a row that holds a whole (small) document
# A document with more list items than this is kept field by field (a playlist document, a
# history bucket); smaller ones (events, audit entries, counters) as one row: fewer rows to read
# at start-up, and rewriting them whole costs nothing.
SPLIT_ABOVE_ITEMS = 256


def _list_items(document: dict[str, Any]) -> int:
    """Items of the lists in a document, nested objects included (a bucket's snapshot.track_ids)."""
    return sum(
        len(value) if type(value) is list else _list_items(value) if type(value) is dict else 0
        for value in document.values()
    )


@dataclass
class DocumentWrite:
    """What one commit stores of one document: all of it, some fields of it, or its removal."""

    collection: str
    doc_id: Any
    document: dict[str, Any] | None  # None: the document is gone
    fields: frozenset[str] | None = None  # None: every field (insert, replace)


Encoded = tuple[str, str, list[tuple[str, str, str, int, bytes]], list[str]]  # rows, fields to delete


class Journal:
    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        # Deleted rows are zeroed in the file, not left in free pages (a hard delete means gone).
        self._db.execute("PRAGMA secure_delete=ON")
        self._db.execute(_SCHEMA)
        # Documents stored field by field: a partial write of one of these rewrites its fields only.
        self._split: set[tuple[str, str]] = set()
        self._convert_legacy()

    def _convert_legacy(self) -> None:
        found = self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (_LEGACY,))
        if found.fetchone() is None:
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for collection, body in self._db.execute(f"SELECT collection, body FROM {_LEGACY}").fetchall():
                document = bson.decode(body)
                _, _, rows, _ = self.encode([DocumentWrite(collection, document["_id"], document)])[0]
                self._db.executemany("INSERT OR REPLACE INTO fields VALUES (?, ?, ?, ?, ?)", rows)
            self._db.execute(f"DROP TABLE {_LEGACY}")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def load(self) -> Iterator[tuple[str, dict[str, Any]]]:
        current: tuple[str, str] | None = None
        whole: dict[str, Any] | None = None
        fields: list[tuple[int, str, bytes]] = []

        def assembled() -> dict[str, Any]:
            if whole is not None:
                return whole
            self._split.add(current)  # type: ignore[arg-type]
            return {name: bson.decode(body)["v"] for _, name, body in sorted(fields)}

        # Primary-key order: no sort of the whole table; fields are put in order per document.
        for collection, key, field, ord_, body in self._db.execute(
            "SELECT collection, doc_key, field, ord, body FROM fields"
        ):
            if (collection, key) != current:
                if current is not None:
                    yield current[0], assembled()
                current, whole, fields = (collection, key), None, []
            if field == WHOLE:
                whole = bson.decode(body)
            else:
                fields.append((ord_, field, body))
        if current is not None:
            yield current[0], assembled()

    def encode(self, writes: Iterable[DocumentWrite]) -> list[Encoded]:
        """Each write as (collection, key, rows to store, fields to delete; ``["*"]``: every row of
        the document first). Encoded now, on the caller's thread: the rows are the state of this
        instant even if the document changes before SQLite writes them. Called in commit order."""
        encoded: list[Encoded] = []
        for write in writes:
            key = document_key(write.doc_id)
            slot = (write.collection, key)
            document = write.document
            if document is None:
                self._split.discard(slot)
                encoded.append((write.collection, key, [], ["*"]))
            elif _list_items(document) <= SPLIT_ABOVE_ITEMS:
                self._split.discard(slot)
                encoded.append(
                    (write.collection, key, [(write.collection, key, WHOLE, 0, bson.encode(document))], ["*"])
                )
            else:
                order = {name: i for i, name in enumerate(document)}
                partial = write.fields is not None and slot in self._split
                names = write.fields if partial else order.keys()
                rows = [
                    (write.collection, key, name, order[name], _encode(document[name]))
                    for name in names
                    if name in order
                ]  # type: ignore[union-attr]
                gone = [name for name in names if name not in order] if partial else ["*"]  # type: ignore[union-attr]
                self._split.add(slot)
                encoded.append((write.collection, key, rows, gone))
        return encoded

    def write(self, encoded: list[Encoded]) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for collection, key, rows, gone in encoded:
                if gone == ["*"]:
                    self._db.execute("DELETE FROM fields WHERE collection = ? AND doc_key = ?", (collection, key))
                elif gone:
                    self._db.executemany(
                        "DELETE FROM fields WHERE collection = ? AND doc_key = ? AND field = ?",
                        [(collection, key, name) for name in gone],
                    )
                if rows:
                    self._db.executemany("INSERT OR REPLACE INTO fields VALUES (?, ?, ?, ?, ?)", rows)
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
