"""SQLite journal of the embedded store: the latest BSON of every document, field by field.

SQLite (WAL, ``synchronous=FULL``) does the hard part of durability: each commit writes what a
call changed in one transaction before the call is answered, so an acknowledged write survives
``kill -9``, and a crash mid-commit leaves the previous state intact.

A row holds one top-level field of one document. A write that names the fields it changed (an
update's ``$set``/``$push``…) rewrites only those rows: appending an event to a history bucket no
longer rewrites the bucket's 5,000-track snapshot, so a commit costs what the change costs, not
what the document weighs.
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


@dataclass
class DocumentWrite:
    """What one commit stores of one document: all of it, some fields of it, or its removal."""

    collection: str
    doc_id: Any
    document: dict[str, Any] | None  # None: the document is gone
    fields: frozenset[str] | None = None  # None: every field (insert, replace)

    def rows(self) -> tuple[list[tuple[str, str, str, int, bytes]], list[str]]:
        """(field rows to upsert, fields to delete) — encoded now, so the rows are the state of
        this instant even if the document changes before SQLite writes them."""
        assert self.document is not None
        key = document_key(self.doc_id)
        order = {name: i for i, name in enumerate(self.document)}
        names = order.keys() if self.fields is None else self.fields
        rows = [(self.collection, key, name, order[name], _encode(self.document[name]))
                for name in names if name in order]
        gone = [name for name in (self.fields or ()) if name not in order]
        return rows, gone


class Journal:
    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        # Deleted rows are zeroed in the file, not left in free pages (a hard delete means gone).
        self._db.execute("PRAGMA secure_delete=ON")
        self._db.execute(_SCHEMA)
        self._convert_legacy()

    def _convert_legacy(self) -> None:
        found = self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (_LEGACY,))
        if found.fetchone() is None:
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for collection, body in self._db.execute(f"SELECT collection, body FROM {_LEGACY}").fetchall():
                document = bson.decode(body)
                rows, _ = DocumentWrite(collection, document["_id"], document).rows()
                self._db.executemany("INSERT OR REPLACE INTO fields VALUES (?, ?, ?, ?, ?)", rows)
            self._db.execute(f"DROP TABLE {_LEGACY}")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def load(self) -> Iterator[tuple[str, dict[str, Any]]]:
        current: tuple[str, str] | None = None
        document: dict[str, Any] = {}
        for collection, key, field, body in self._db.execute(
            "SELECT collection, doc_key, field, body FROM fields ORDER BY collection, doc_key, ord, field"
        ):
            if (collection, key) != current:
                if current is not None:
                    yield current[0], document
                current, document = (collection, key), {}
            document[field] = bson.decode(body)["v"]
        if current is not None:
            yield current[0], document

    @staticmethod
    def encode(writes: Iterable[DocumentWrite]) -> list[tuple[str, str, list[Any], list[str]]]:
        """Each write as (collection, key, rows, fields to delete); a whole-document write or a
        removal deletes every field first (``["*"]``)."""
        encoded = []
        for write in writes:
            key = document_key(write.doc_id)
            if write.document is None:
                encoded.append((write.collection, key, [], ["*"]))
                continue
            rows, gone = write.rows()
            encoded.append((write.collection, key, rows, ["*"] if write.fields is None else gone))
        return encoded

    def write(self, encoded: list[tuple[str, str, list[Any], list[str]]]) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for collection, key, rows, gone in encoded:
                if gone == ["*"]:
                    self._db.execute("DELETE FROM fields WHERE collection = ? AND doc_key = ?", (collection, key))
                elif gone:
                    self._db.executemany("DELETE FROM fields WHERE collection = ? AND doc_key = ? AND field = ?",
                                         [(collection, key, name) for name in gone])
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
