"""The embedded engine: mongomock-motor in process, made durable by the SQLite journal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mongomock.collection import Collection as MockCollection
from mongomock.filtering import filter_applies
from mongomock_motor import AsyncMongoMockClient

from service.storage.journal import Journal
from service.storage.lockfile import DataDirLock

_scan_documents = MockCollection._iter_documents


def _iter_documents_by_id(self: MockCollection, filter_: Any) -> Iterator[dict] | Any:
    # mongomock scans every document for every query; a lookup by plain _id (how the service
    # reads and writes single documents) goes straight to the stored document instead.
    if isinstance(filter_, dict) and "_id" in filter_:
        key = filter_["_id"]
        if isinstance(key, str | int) and not isinstance(key, bool):
            document = self._store._documents.get(key)
            found = document is not None and filter_applies(filter_, document)
            return iter([document] if found else [])
    return _scan_documents(self, filter_)


MockCollection._iter_documents = _iter_documents_by_id


def _mock_collection(client: AsyncMongoMockClient, database: str, name: str) -> MockCollection:
    return client[database][name]._AsyncMongoMockCollection__collection


class EmbeddedEngine:
    """Owns the in-process client, the data-directory lock and the journal."""

    def __init__(self, data_dir: Path, database: str, journal: bool) -> None:
        self.data_dir = data_dir
        self.database = database
        self.client = AsyncMongoMockClient(tz_aware=True)
        self._lock = DataDirLock(data_dir)
        self._journal: Journal | None = None
        self._use_journal = journal
        self._dirty: set[tuple[str, Any]] = set()

    def open(self) -> int:
        """Lock the directory and load every journalled document; return how many."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._lock.acquire()
        if not self._use_journal:
            return 0
        self._journal = Journal(self.data_dir / "memory.sqlite3")
        loaded = 0
        for name, document in self._journal.load():
            # Straight into the store: insert_one would re-check unique indexes by scanning.
            _mock_collection(self.client, self.database, name)._store[document["_id"]] = document
            loaded += 1
        return loaded

    def mark_dirty(self, collection: str, doc_id: Any) -> None:
        self._dirty.add((collection, doc_id))

    def commit(self) -> None:
        """Write every document changed since the last commit, in one SQLite transaction.

        Synchronous on purpose: no other coroutine runs while the state is read, so what is
        committed is the in-memory state at one instant.
        """
        if self._journal is None or not self._dirty:
            self._dirty.clear()
            return
        dirty, self._dirty = self._dirty, set()
        upserts: list[tuple[str, dict]] = []
        deletes: list[tuple[str, Any]] = []
        for name, doc_id in dirty:
            document = _mock_collection(self.client, self.database, name)._store._documents.get(doc_id)
            if document is None:
                deletes.append((name, doc_id))
            else:
                upserts.append((name, document))
        try:
            self._journal.write(upserts, deletes)
        except BaseException:
            self._dirty |= dirty
            raise

    def scrub(self) -> None:
        if self._journal is not None:
            self._journal.scrub()

    def close(self) -> None:
        if self._journal is not None:
            self.commit()
            self._journal.close()
            self._journal = None
        self._lock.release()
