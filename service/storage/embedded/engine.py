"""The embedded engine: mongomock-motor in process, made durable by the SQLite journal."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

from mongomock.collection import Collection as MockCollection
from mongomock_motor import AsyncMongoMockClient

from service.storage.embedded.journal import DocumentWrite, Journal
from service.storage.embedded.lockfile import DataDirLock
from service.storage.embedded.tuning.install import install
from service.storage.embedded.tuning.user_index import rebuild_user_index


def _mock_collection(client: AsyncMongoMockClient[dict[str, Any]], database: str, name: str) -> MockCollection:
    # mongomock-motor's stubs present its wrapper as motor's collection; the mongomock collection
    # it wraps is a private attribute the stubs do not know.
    return cast(MockCollection, client[database][name]._AsyncMongoMockCollection__collection)


# Whole document (insert, replace, delete) rather than named fields.
ALL_FIELDS = None


class EmbeddedEngine:
    """Owns the in-process client, the data-directory lock and the journal.

    SQLite work runs on one writer thread, in commit order, so a call waiting for its commit
    leaves the event loop free for every other session; what a commit stores is encoded on the
    loop at one instant (no coroutine runs meanwhile), so it is a consistent state.
    """

    def __init__(self, data_dir: Path, database: str, journal: bool) -> None:
        install()  # mongomock's tuning: only a process that runs the embedded engine changes mongomock
        self.data_dir = data_dir
        self.database = database
        self.client: AsyncMongoMockClient[dict[str, Any]] = AsyncMongoMockClient(tz_aware=True)
        self._lock = DataDirLock(data_dir)
        self._journal: Journal | None = None
        self._use_journal = journal
        # (collection, _id) -> the fields changed since the last commit, or ALL_FIELDS.
        self._dirty: dict[tuple[str, Any], set[str] | None] = {}
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal")
        # The newest write handed to the thread: a call whose changes an earlier commit already
        # took must still wait until they are on disk before it is answered.
        self._last_write: Future[None] | None = None
        self._stores: dict[str, Any] = {}

    def _store(self, name: str) -> Any:
        store = self._stores.get(name)
        if store is None:
            store = self._stores[name] = _mock_collection(self.client, self.database, name)._store
        return store

    def open(self) -> int:
        """Lock the directory and load every journalled document; return how many."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._lock.acquire()
        if not self._use_journal:
            return 0
        self._journal = Journal(self.data_dir / "memory.sqlite3")
        loaded = 0
        # The store is millions of small dicts and lists that live as long as the process: the
        # cyclic collector would walk all of them again and again while they load, and then in
        # every full collection afterwards (a pause every session waits for). They hold no
        # cycles, so they are loaded with it off and then frozen out of its reach.
        collecting = gc.isenabled()
        gc.disable()
        try:
            for name, document in self._journal.load():
                # Straight into the store's dict: insert_one would re-check unique indexes by
                # scanning, and the store's own setter takes a lock per document.
                self._store(name)._documents[document["_id"]] = document
                loaded += 1
            for store in self._stores.values():
                rebuild_user_index(store)  # now, not as a stall in some session's first call
        finally:
            if collecting:
                gc.enable()
        gc.freeze()
        return loaded

    def mark_dirty(self, collection: str, doc_id: Any, fields: Iterable[str] | None = ALL_FIELDS) -> None:
        key = (collection, doc_id)
        if fields is ALL_FIELDS:
            self._dirty[key] = ALL_FIELDS
        elif key not in self._dirty:
            self._dirty[key] = set(fields)
        else:
            pending = self._dirty[key]
            if pending is not ALL_FIELDS:
                pending.update(fields)

    def _take_dirty(self) -> tuple[dict[tuple[str, Any], set[str] | None], list[Any]]:
        """Claim every change since the last commit and encode it as of now."""
        dirty, self._dirty = self._dirty, {}
        writes = []
        for (name, doc_id), fields in dirty.items():
            document = self._store(name)._documents.get(doc_id)
            writes.append(DocumentWrite(name, doc_id, document, None if fields is None else frozenset(fields)))
        assert self._journal is not None
        return dirty, self._journal.encode(writes)

    def _restore_dirty(self, dirty: dict[tuple[str, Any], set[str] | None]) -> None:
        # Whole documents: after a failed write, what the file holds of them is not known.
        for name, doc_id in dirty:
            self.mark_dirty(name, doc_id, ALL_FIELDS)

    def _submit(self) -> tuple[Future[None] | None, dict[tuple[str, Any], set[str] | None]]:
        """Hand every change since the last commit to the writer thread (one SQLite transaction).
        Returns the newest write, which completes after every earlier one, and what it claimed."""
        if self._journal is None:
            self._dirty.clear()
            return None, {}
        claimed: dict[tuple[str, Any], set[str] | None] = {}
        if self._dirty:
            claimed, encoded = self._take_dirty()
            self._last_write = self._writer.submit(self._journal.write, encoded)
        return self._last_write, claimed

    def _failed(self, write: Future[None], claimed: dict[tuple[str, Any], set[str] | None]) -> None:
        # The changes stay pending for the next commit; a later call does not inherit the failure.
        self._restore_dirty(claimed)
        if self._last_write is write:
            self._last_write = None

    def commit(self) -> None:
        """Make every change so far durable, blocking (bulk loaders and shutdown)."""
        write, claimed = self._submit()
        if write is None:
            return
        try:
            write.result()
        except BaseException:
            self._failed(write, claimed)
            raise

    async def commit_async(self) -> None:
        """Make every change so far durable; the caller waits, the event loop does not."""
        write, claimed = self._submit()
        if write is None:
            return
        try:
            await asyncio.shield(asyncio.wrap_future(write))
        except BaseException:
            if write.done():
                self._failed(write, claimed)
            elif claimed:  # cancelled while SQLite writes: if that write fails, keep the changes
                loop = asyncio.get_running_loop()
                write.add_done_callback(lambda w: w.exception() and loop.call_soon_threadsafe(self._failed, w, claimed))
            raise

    async def scrub(self) -> None:
        if self._journal is not None:
            await asyncio.wrap_future(self._writer.submit(self._journal.scrub))

    def close(self) -> None:
        gc.unfreeze()  # a process that opens stores one after another (the tests) gets them back
        if self._journal is not None:
            self.commit()
            self._writer.shutdown(wait=True)
            self._journal.close()
            self._journal = None
        self._lock.release()
