"""SQLite journal of the embedded store: the latest BSON of every document, field by field.

SQLite (WAL, ``synchronous=FULL``) does the hard part of durability: each commit is one transaction
before the call is answered, so an acknowledged write survives ``kill -9``; a failed commit (a full
disk, an I/O error) leaves the file as it was and is reported by kind. A large document is kept one
row per top-level field (``SPLIT_ABOVE_ITEMS``), so a write that names the fields it changed rewrites
only those rows. Every row carries its owner and a checksum (``records``): a row that fails its
check when loaded is reported as damage, for the engine to quarantine its user.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bson

from service.errors import StorageFault, StorageFull, StorageUnavailable, UserQuarantined
from service.storage.embedded.migration import add_checksums, needs_checksums
from service.storage.embedded.records import WHOLE, Damage, Row, RowDamaged, decode_checked, document_key, owner, row

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS fields (
    collection TEXT NOT NULL,
    doc_key TEXT NOT NULL,
    field TEXT NOT NULL,
    ord INTEGER NOT NULL,
    body BLOB NOT NULL,
    user_id INTEGER,
    sum INTEGER,
    PRIMARY KEY (collection, doc_key, field)
) WITHOUT ROWID
"""
_COLUMNS = "collection, doc_key, field, ord, body, user_id, sum"
# Journals written before field rows kept one row per document; they are converted on open.
_LEGACY = "documents"

# A document with more list items than this is kept field by field (a playlist document, a
# history bucket); smaller ones (events, audit entries, counters) as one row: fewer rows to read
# at start-up, and rewriting them whole costs nothing.
SPLIT_ABOVE_ITEMS = 256

__all__ = ["WHOLE", "Damage", "DocumentWrite", "Journal", "document_key"]


def _encode(value: Any) -> bytes:
    return bson.encode({"v": value})


def _list_items(document: dict[str, Any]) -> int:
    """Items of the lists in a document, nested objects included (a bucket's snapshot.track_ids)."""
    return sum(
        len(value) if type(value) is list else _list_items(value) if type(value) is dict else 0
        for value in document.values()
    )


def failure_of(exc: sqlite3.Error) -> StorageUnavailable:
    """What a failed commit tells the caller: a full disk, or another I/O error, by SQLite's code."""
    if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
        return StorageFull()
    return StorageFault(f"the store could not write to disk ({exc}): the write was not applied")


@dataclass
class DocumentWrite:
    """What one commit stores of one document: all of it, some fields of it, or its removal."""

    collection: str
    doc_id: Any
    document: dict[str, Any] | None  # None: the document is gone
    fields: frozenset[str] | None = None  # None: every field (insert, replace)


Encoded = tuple[str, str, list[Row], list[str]]  # rows, fields to delete


class Journal:
    def __init__(self, path: Path, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        if readonly:
            self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
        else:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            # Deleted rows are zeroed in the file, not left in free pages (a hard delete means gone).
            self._db.execute("PRAGMA secure_delete=ON")
            self._db.execute(_SCHEMA)
        # Documents stored field by field: a partial write of one of these rewrites its fields only.
        self._split: set[tuple[str, str]] = set()
        self.damage: list[Damage] = []
        # Users whose damaged records are kept on disk untouched until salvaged: no write reaches them.
        self.quarantined: set[int] = set()
        if not readonly:
            self._convert_legacy()
            self._add_checksums()

    def _transaction(self, work: Any) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            work()
            self._db.execute("COMMIT")
        except BaseException:
            # A failed COMMIT (a full disk) may already have rolled back: ROLLBACK would then fail
            # and hide the real cause.
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def _convert_legacy(self) -> None:
        found = self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (_LEGACY,))
        if found.fetchone() is None:
            return

        def convert() -> None:
            for collection, body in self._db.execute(f"SELECT collection, body FROM {_LEGACY}").fetchall():
                document = bson.decode(body)
                _, _, rows, _ = self.encode([DocumentWrite(collection, document["_id"], document)])[0]
                self._db.executemany(f"INSERT OR REPLACE INTO fields ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            self._db.execute(f"DROP TABLE {_LEGACY}")

        self._transaction(convert)

    def _add_checksums(self) -> None:
        if needs_checksums(self._db):
            self._transaction(lambda: add_checksums(self._db))

    def _stored_rows(self, where: str = "", parameters: tuple[Any, ...] = ()) -> Iterator[Any]:
        columns = {info[1] for info in self._db.execute("PRAGMA table_info(fields)")}
        selected = _COLUMNS if "sum" in columns else "collection, doc_key, field, ord, body, NULL, NULL"
        return iter(self._db.execute(f"SELECT {selected} FROM fields {where}", parameters))

    def _assemble(self, rows: Iterable[Any]) -> Iterator[tuple[str, str, dict[str, Any] | None]]:
        """Documents from rows in primary-key order: (collection, key, document or None if damaged);
        every damaged row found is added to ``damage``."""
        current: tuple[str, str] | None = None
        whole: dict[str, Any] | None = None
        fields: list[tuple[int, str, Any]] = []
        damaged = False

        def assembled(slot: tuple[str, str]) -> dict[str, Any] | None:
            if damaged:
                return None
            if whole is not None:
                self._split.discard(slot)
                return whole
            self._split.add(slot)
            return {name: value for _, name, value in sorted(fields, key=lambda f: f[0])}

        for stored in rows:
            collection, key, field, ord_ = stored[0], stored[1], stored[2], stored[3]
            if (collection, key) != current:
                if current is not None:
                    yield current[0], current[1], assembled(current)
                current, whole, fields, damaged = (collection, key), None, [], False
            try:
                decoded = decode_checked(stored)
            except RowDamaged as exc:
                self.damage.append(Damage(collection, key, field, stored[5], exc.reason))
                damaged = True
                continue
            if field == WHOLE:
                whole = decoded
            else:
                fields.append((ord_, field, decoded.get("v")))
        if current is not None:
            yield current[0], current[1], assembled(current)

    def load(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every stored document that passes its checks (primary-key order: no sort of the table);
        the damaged ones are listed in ``damage`` instead."""
        self.damage = []
        for collection, _, document in self._assemble(self._stored_rows()):
            if document is not None:
                yield collection, document

    def read_documents(self, keys: Iterable[tuple[str, Any]]) -> dict[tuple[str, Any], dict[str, Any] | None]:
        """What the file holds of these documents now (None: not stored): after a failed commit,
        the state the documents go back to."""
        found: dict[tuple[str, Any], dict[str, Any] | None] = {}
        for collection, doc_id in keys:
            key = document_key(doc_id)
            slot = (collection, key)
            rows = self._stored_rows("WHERE collection = ? AND doc_key = ? ORDER BY field", (collection, key))
            documents = [document for _, _, document in self._assemble(rows)]
            found[(collection, doc_id)] = documents[0] if documents else None
            if not documents:
                self._split.discard(slot)
        return found

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
                continue
            user_id = owner(document)
            if _list_items(document) <= SPLIT_ABOVE_ITEMS:
                self._split.discard(slot)
                rows = [row(write.collection, key, WHOLE, 0, bson.encode(document), user_id)]
                encoded.append((write.collection, key, rows, ["*"]))
                continue
            order = {name: i for i, name in enumerate(document)}
            changed = write.fields
            partial = changed is not None and slot in self._split
            names = changed if changed is not None and partial else order.keys()
            rows = [
                row(write.collection, key, name, order[name], _encode(document[name]), user_id)
                for name in names
                if name in order
            ]
            gone = [name for name in names if name not in order] if partial else ["*"]
            self._split.add(slot)
            encoded.append((write.collection, key, rows, gone))
        return encoded

    def write(self, encoded: list[Encoded]) -> None:
        """One transaction; a failure leaves the file as it was and raises ``StorageFull``,
        ``StorageFault`` or ``UserQuarantined`` (a write that would reach a quarantined user)."""
        if self.quarantined:  # rare: only while a damaged user awaits salvage
            for _, _, rows, _ in encoded:
                for stored in rows:
                    if stored[5] in self.quarantined:
                        raise UserQuarantined(stored[5])

        def store() -> None:
            for collection, key, rows, gone in encoded:
                if gone == ["*"]:
                    self._db.execute("DELETE FROM fields WHERE collection = ? AND doc_key = ?", (collection, key))
                elif gone:
                    self._db.executemany(
                        "DELETE FROM fields WHERE collection = ? AND doc_key = ? AND field = ?",
                        [(collection, key, name) for name in gone],
                    )
                if rows:
                    self._db.executemany(
                        f"INSERT OR REPLACE INTO fields ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", rows
                    )

        try:
            self._transaction(store)
        except sqlite3.Error as exc:
            raise failure_of(exc) from exc

    def scrub(self) -> None:
        """Copy the WAL into the main file and empty it: old page images of deleted rows live in
        the WAL until a checkpoint overwrites them. On a full disk the next checkpoint does it."""
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:
            log.warning("journal: checkpoint after a delete failed (%s); the next one overwrites the pages", exc)

    def close(self) -> None:
        self._db.close()
