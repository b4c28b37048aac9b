"""The embedded engine: mongomock-motor in process, made durable by the SQLite journal."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

from mongomock.collection import Collection as MockCollection
from mongomock_motor import AsyncMongoMockClient

from service.errors import StorageFault, StorageUnavailable, UserQuarantined
from service.storage.embedded.journal import Damage, DocumentWrite, Journal
from service.storage.embedded.lockfile import DataDirLock
from service.storage.embedded.pending import ALL_FIELDS, Changes, Unit, current_unit, merge, undo_reach
from service.storage.embedded.quarantine import Quarantine
from service.storage.embedded.records import owner
from service.storage.embedded.tuning.install import install
from service.storage.embedded.tuning.user_index import by_user, rebuild_user_index

log = logging.getLogger(__name__)
JOURNAL_FILE = "memory.sqlite3"


def _mock_collection(client: AsyncMongoMockClient[dict[str, Any]], database: str, name: str) -> MockCollection:
    # mongomock-motor's stubs present its wrapper as motor's collection; the mongomock collection
    # it wraps is a private attribute the stubs do not know.
    return cast(MockCollection, client[database][name]._AsyncMongoMockCollection__collection)


class EmbeddedEngine:
    """Owns the in-process client, the data-directory lock and the journal.

    SQLite work runs on one writer thread, in commit order, so a call waiting for its commit
    leaves the event loop free for every other session; what a commit stores is encoded on the
    loop at one instant (no coroutine runs meanwhile), so it is a consistent state. Each call
    commits its own changes (``pending``); a commit that fails puts them back to what the file
    holds, so memory never shows a write the disk does not have.

    ``readonly`` opens the file without the lock and writes nothing (what a command that only
    reads uses while the server runs); ``source`` reads another file (a backup) instead.
    """

    def __init__(
        self, data_dir: Path, database: str, journal: bool, readonly: bool = False, source: Path | None = None
    ) -> None:
        install()  # mongomock's tuning: only a process that runs the embedded engine changes mongomock
        self.data_dir = data_dir
        self.database = database
        self.client: AsyncMongoMockClient[dict[str, Any]] = AsyncMongoMockClient(tz_aware=True)
        self.readonly = readonly
        self.source = source or data_dir / JOURNAL_FILE
        self._lock = DataDirLock(data_dir)
        self._journal: Journal | None = None
        self._use_journal = journal
        self._ambient: Changes = {}  # single writes made outside any unit of work
        self._units: set[Unit] = set()
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal")
        # The newest write handed to the thread: every earlier one is done when it is.
        self._last_write: Future[None] | None = None
        self._stores: dict[str, Any] = {}
        self.failed_commits = 0
        self.failing: StorageUnavailable | None = None  # the last commit failed (full disk, I/O error)
        self._quarantine = Quarantine()
        self._reverted: set[int] = set()

    def _store(self, name: str) -> Any:
        store = self._stores.get(name)
        if store is None:
            store = self._stores[name] = _mock_collection(self.client, self.database, name)._store
        return store

    def open(self) -> int:
        """Lock the directory (unless read-only) and load every journalled document; return how many."""
        if not self.readonly:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            self._lock.acquire()
        if not self._use_journal:
            return 0
        if self.readonly and not self.source.exists():
            return 0  # nothing stored yet: an empty store, as a server would start on
        self._journal = Journal(self.source, readonly=self.readonly)
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
            loaded -= self._quarantine.set_aside(self._journal.damage, self._stores)
            self._journal.quarantined = set(self._quarantine.users)
        finally:
            if collecting:
                gc.enable()
        gc.freeze()
        return loaded

    @property
    def damage(self) -> list[Damage]:
        return self._quarantine.damage

    @property
    def quarantined(self) -> dict[int, list[Damage]]:
        return self._quarantine.users

    def release(self, user_id: int) -> list[Damage]:
        """Salvage: lift the user's quarantine, its sound records back in place and its damaged
        ones deleted at the next commit of the running call; return the damage dropped."""
        dropped, held = self._quarantine.release(user_id)
        for name, document in held:
            self._store(name)[document["_id"]] = document
        for found in dropped:
            self.mark_dirty(found.collection, json.loads(found.key))
        if self._journal is not None:
            self._journal.quarantined.discard(user_id)
        return dropped

    def replace_user(self, user_id: int, documents: list[tuple[str, dict[str, Any]]]) -> list[Damage]:
        """Salvage from a backup: every record of the user replaced by ``documents`` (the backup's),
        written at the next commit of the running call; return the damage dropped with them."""
        dropped = self.release(user_id)
        for name, store in self._stores.items():
            for doc_id in list(by_user(store).get(user_id, {})):
                del store[doc_id]
                self.mark_dirty(name, doc_id)
        for name, document in documents:
            self._store(name)[document["_id"]] = document
            self.mark_dirty(name, document["_id"])
        return dropped

    # --- changes and units of work -------------------------------------------------------------

    def _running_unit(self) -> Unit | None:
        # A task started inside a call inherits its unit; once that call ended, its writes are background ones.
        unit = current_unit.get()
        return unit if unit is not None and unit in self._units else None

    def mark_dirty(self, collection: str, doc_id: Any, fields: Iterable[str] | None = ALL_FIELDS) -> None:
        unit = self._running_unit()
        merge(unit.changes if unit is not None else self._ambient, (collection, doc_id), fields)

    def before_write(self) -> None:
        """A call whose changes a failure already undid writes nothing more (no half of it lands)."""
        unit = self._running_unit()
        if unit is not None and unit.undone is not None:
            raise unit.undone

    def begin(self) -> tuple[Unit, bool]:
        """The unit of work of the running call; True if it opened here (the outermost)."""
        unit = self._running_unit()
        if unit is not None:
            return unit, False
        unit = Unit()
        self._units.add(unit)
        current_unit.set(unit)
        return unit, True

    def end(self, unit: Unit) -> None:
        self._units.discard(unit)
        current_unit.set(None)

    def _submit(self, changes: Changes) -> Future[None] | None:
        """Hand these changes to the writer thread (one SQLite transaction), encoded as of now."""
        if self._journal is None or self.readonly or not changes:
            return None
        writes = [
            DocumentWrite(name, doc_id, self._store(name)._documents.get(doc_id), None if f is None else frozenset(f))
            for (name, doc_id), f in changes.items()
        ]
        self._last_write = self._writer.submit(self._journal.write, self._journal.encode(writes))
        return self._last_write

    def _failed(self, changes: Changes, exc: BaseException) -> None:
        """A commit failed: the file holds none of it, and memory goes back to what the file holds."""
        if not isinstance(exc, UserQuarantined):
            self.failed_commits += 1
            self.failing = exc if isinstance(exc, StorageUnavailable) else StorageFault()
            log.error("store: a commit failed, its changes are undone: %s", exc)
        self.revert(changes)

    def revert(self, changes: Changes) -> set[int]:
        """Put these documents back to what the file holds, and with them every other call's
        changes to any of them (those calls will answer an error); return the users touched."""
        if self._journal is None or not changes:
            return set()
        keys = undo_reach(self._units, set(changes))
        for key in keys:
            self._ambient.pop(key, None)
        journal = self._journal
        stored = self._writer.submit(journal.read_documents, list(keys)).result()  # after every queued write
        users: set[int] = set()
        for (name, doc_id), document in stored.items():
            store = self._store(name)
            for seen in (store._documents.get(doc_id), document):
                if isinstance(seen, dict) and owner(seen) is not None:
                    users.add(cast(int, owner(seen)))
            if document is None:
                if doc_id in store._documents:
                    del store[doc_id]
            else:
                store[doc_id] = document
        self._reverted |= users
        return users

    def abandon(self, unit: Unit) -> None:
        """The call failed: its uncommitted changes go back to what the file holds."""
        changes, unit.changes = unit.changes, {}
        self.revert(changes)

    def take_reverted(self) -> set[int]:
        """Users whose documents went back to the file since the last call: their in-process
        views (search index, cached context) must be rebuilt."""
        users, self._reverted = self._reverted, set()
        return users

    def _claim(self, unit: Unit | None) -> Changes:
        """The changes a commit takes: the background writes, and the running call's own."""
        changes, self._ambient = self._ambient, {}
        if unit is not None:
            for key, fields in unit.changes.items():
                merge(changes, key, fields)  # a field set joined, never replaced: a partial write needs all
            unit.changes = {}
        return changes

    def commit(self) -> None:
        """Make every change so far durable, blocking (bulk loaders and shutdown)."""
        changes = self._claim(self._running_unit())
        write = self._submit(changes)
        if write is None:
            return
        try:
            write.result()
        except BaseException as exc:
            self._failed(changes, exc)
            raise
        self.failing = None

    async def commit_async(self) -> None:
        """Make the running call's changes so far durable (outside a call: the background
        changes); the caller waits, the event loop does not. On failure the changes are undone
        and the failure (``StorageFull``, ``StorageFault``…) is raised."""
        unit = self._running_unit()
        # Background writes (a listing's cursor, a projection rolled forward) are each whole when
        # made: any commit may carry them. A unit's own changes go only with its own commit.
        changes = self._claim(unit)
        if unit is not None and unit.undone is not None:
            self.revert(changes)
            raise unit.undone
        write = self._submit(changes)
        if write is None:
            return
        try:
            await asyncio.shield(asyncio.wrap_future(write))
        except asyncio.CancelledError:
            # The answer is never sent; if SQLite then fails, memory still goes back to the file.
            loop = asyncio.get_running_loop()

            def undo_if_failed(done: Future[None]) -> None:
                failure = done.exception()
                if failure is not None:
                    loop.call_soon_threadsafe(self._failed, changes, failure)

            write.add_done_callback(undo_if_failed)
            raise
        except BaseException as exc:
            self._failed(changes, exc)
            raise
        self.failing = None

    async def scrub(self) -> None:
        if self._journal is not None and not self.readonly:
            await asyncio.wrap_future(self._writer.submit(self._journal.scrub))

    def close(self) -> None:
        gc.unfreeze()  # a process that opens stores one after another (the tests) gets them back
        if self._journal is not None:
            if not self.readonly:
                self.commit()
            self._writer.shutdown(wait=True)
            self._journal.close()
            self._journal = None
        if not self.readonly:
            self._lock.release()
