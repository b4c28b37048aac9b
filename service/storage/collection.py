"""The subset of the collection API the service uses, with every written ``_id`` reported.

Each write names the documents it touches, so the embedded store can commit exactly those
documents; pymongo's errors become the service's own so no driver detail reaches a caller.
"""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from bson.errors import InvalidDocument
from pymongo import ReturnDocument
from pymongo.errors import DocumentTooLarge, DuplicateKeyError, PyMongoError

from service.errors import InvalidArgument, StorageUnavailable
from service.storage.embedded.tuning.reads import documents_per_user, find_documents, stored_document, stored_documents

# (collection, _id, the top-level fields changed or None for the whole document)
MarkDirty = Callable[[str, Any, Iterable[str] | None], None]
# Called after each applied write with an event shaped like a MongoDB change event, so the
# embedded engine can derive audit entries exactly as the change-stream watcher does.
OnChange = Callable[[dict[str, Any]], Awaitable[None]]


async def _now(function: Callable[..., Any], *args: Any) -> Any:
    """A synchronous call into the embedded engine as an awaitable, so it goes through ``_run``."""
    return function(*args)


class DuplicateDocument(Exception):
    """A unique index (or ``_id``) refused the write: another writer got there first."""


def changed_fields(update: Mapping[str, Any]) -> set[str]:
    """The top-level fields an update document (``$set``, ``$push``, ``$inc``…) can change."""
    return {path.split(".", 1)[0] for operation in update.values() for path in operation}


def _document_id(filter_: Mapping[str, Any]) -> Any:
    if "_id" not in filter_ or isinstance(filter_["_id"], Mapping):
        raise ValueError("writes must name the document by _id")
    return filter_["_id"]


class TrackedCollection:
    def __init__(
        self,
        motor_collection: Any,
        mark_dirty: MarkDirty,
        on_change: OnChange | None = None,
        in_process: bool = False,
        before_write: Callable[[], None] | None = None,
    ) -> None:
        self._collection = motor_collection
        self._mark_dirty = mark_dirty
        # The embedded engine refuses a write of a call whose earlier changes a failure undid.
        self._before_write = before_write or (lambda: None)
        self.on_change = on_change
        self.name: str = motor_collection.name
        # The embedded engine answers without ever suspending: each call yields to the event loop
        # once, as a network round trip would, so long work (an export, a delete) interleaves
        # with other sessions instead of stalling them.
        self._in_process = in_process

    async def _changed(
        self,
        operation: str,
        doc_id: Any,
        document: Mapping[str, Any] | None = None,
        updated: Mapping[str, Any] | None = None,
        owner: Any = None,
    ) -> None:
        if self.on_change is None:
            return
        if document is None and isinstance(owner, int) and not isinstance(owner, bool):
            # As MongoDB's updateLookup gives the document (the watcher asks for it): its owner at
            # least, so an update of a record keyed without its user (an event) is audited as theirs.
            document = {"user_id": owner}
        # Like a real change event, each has its own id (an unstamped change is keyed by it).
        change: dict[str, Any] = {
            "_id": {"_data": uuid.uuid4().hex},
            "operationType": operation,
            "ns": {"coll": self.name},
            "documentKey": {"_id": doc_id},
        }
        if document is not None:
            change["fullDocument"] = document
        if updated is not None:
            change["updateDescription"] = {"updatedFields": dict(updated)}
        await self.on_change(change)

    async def _run(self, operation: Any) -> Any:
        if self._in_process:
            await asyncio.sleep(0)
        try:
            return await operation
        except DuplicateKeyError as exc:
            raise DuplicateDocument(str(exc)) from exc
        except (DocumentTooLarge, InvalidDocument, OverflowError) as exc:
            # Input validation refuses what BSON cannot hold; this is the backstop.
            raise InvalidArgument("the data cannot be stored (too large or not representable)") from exc
        except PyMongoError as exc:
            raise StorageUnavailable("the database did not complete the operation") from exc

    async def find_one(
        self, filter_: Mapping[str, Any], projection: Any = None, sort: Any = None
    ) -> dict[str, Any] | None:
        found: dict[str, Any] | None = await self._run(self._collection.find_one(filter_, projection, sort=sort))
        return found

    async def find_one_shared(self, filter_: Mapping[str, Any]) -> dict[str, Any] | None:
        """Read-only: on the embedded engine the stored document itself, not a copy (its dates
        naive UTC, as stored), so a 5,000-track bucket with hundreds of events is read in
        microseconds; the caller must not modify it or anything in it. MongoDB: a plain find_one."""
        if not self._in_process:
            return await self.find_one(filter_)
        stored: dict[str, Any] | None = await self._run(_now(stored_document, self._collection, filter_))
        return stored

    async def find_shared(self, filter_: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Read-only, as ``find_one_shared``: every matching document itself, unsorted, for a
        caller that goes through thousands of them in slices. MongoDB: a plain find."""
        if not self._in_process:
            return await self.find(filter_)
        stored: list[dict[str, Any]] = await self._run(_now(stored_documents, self._collection, filter_))
        return stored

    async def find(
        self,
        filter_: Mapping[str, Any],
        projection: Any = None,
        sort: list[tuple[str, int]] | None = None,
        limit: int = 0,
    ) -> list[dict[str, Any]]:
        if self._in_process:
            return await self._find_in_process(filter_, projection, sort, limit)
        cursor = self._collection.find(filter_, projection)
        if sort:
            cursor = cursor.sort(sort)
        if limit:
            cursor = cursor.limit(limit)
        found: list[dict[str, Any]] = await self._run(cursor.to_list(length=None))
        return found

    async def _find_in_process(
        self, filter_: Mapping[str, Any], projection: Any, sort: Any, limit: int, chunk: int = 500
    ) -> list[dict[str, Any]]:
        """The embedded engine's find, handed out ``chunk`` documents at a time with a yield
        between chunks, so reading 25,000 events does not hold every other session (like a
        server's cursor batches, a chunk may see writes made while earlier chunks were read)."""
        found: list[dict[str, Any]] = []
        documents = await self._run(_now(find_documents, self._collection, filter_, projection, sort, limit))
        while True:  # each chunk its own round trip through _run (a yield, the error mapping)
            batch = await self._run(_now(list, itertools.islice(documents, chunk)))
            found.extend(batch)
            if len(batch) < chunk:
                return found

    async def count_documents(self, filter_: Mapping[str, Any]) -> int:
        count: int = await self._run(self._collection.count_documents(filter_))
        return count

    async def count_by_user(self) -> dict[int, int]:
        """Documents per ``user_id`` over the whole collection (start-up's recount): the embedded
        engine reads its per-user index, MongoDB groups over the ``user_id`` indexes."""
        if self._in_process:
            counts: dict[int, int] = await self._run(_now(documents_per_user, self._collection))
            return counts
        rows = await self.aggregate([{"$group": {"_id": "$user_id", "n": {"$sum": 1}}}])
        return {row["_id"]: row["n"] for row in rows if row["_id"] is not None}

    async def aggregate(self, pipeline: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = await self._run(self._collection.aggregate(pipeline).to_list(length=None))
        return rows

    async def insert_one(self, document: Mapping[str, Any]) -> None:
        doc_id = _document_id(document)
        self._before_write()
        try:
            await self._run(self._collection.insert_one(document))
        finally:
            self._mark_dirty(self.name, doc_id, None)
        await self._changed("insert", doc_id, document)

    async def update_one(self, filter_: Mapping[str, Any], update: Mapping[str, Any], upsert: bool = False) -> int:
        """Return how many documents matched (0 means the condition did not hold)."""
        doc_id = _document_id(filter_)
        self._before_write()
        try:
            result = await self._run(self._collection.update_one(filter_, update, upsert=upsert))
        finally:
            self._mark_dirty(self.name, doc_id, None if upsert else changed_fields(update))
        applied: int = result.matched_count + (1 if result.upserted_id is not None else 0)
        if applied:
            await self._changed("update", doc_id, updated=update.get("$set", {}), owner=filter_.get("user_id"))
        return applied

    async def find_one_and_update(
        self, filter_: Mapping[str, Any], update: Mapping[str, Any], upsert: bool = False
    ) -> dict[str, Any] | None:
        doc_id = _document_id(filter_)
        self._before_write()
        try:
            after: dict[str, Any] | None = await self._run(
                self._collection.find_one_and_update(
                    filter_, update, upsert=upsert, return_document=ReturnDocument.AFTER
                )
            )
        finally:
            self._mark_dirty(self.name, doc_id, None if upsert else changed_fields(update))
        if after is not None:
            await self._changed("update", doc_id, updated=update.get("$set", {}), owner=filter_.get("user_id"))
        return after

    async def replace_one(self, document: Mapping[str, Any], condition: Mapping[str, Any] | None = None) -> bool:
        """Insert or replace the document; with ``condition``, replace only a stored document that
        meets it. Return False if a stored document did not meet it (nothing written)."""
        doc_id = _document_id(document)
        # A sharded cluster refuses an upsert whose filter lacks the shard key (user_id).
        owner = {"user_id": document["user_id"]} if "user_id" in document else {}
        self._before_write()
        try:
            await self._run(
                self._collection.replace_one({"_id": doc_id, **owner, **(condition or {})}, document, upsert=True)
            )
        except DuplicateDocument:
            if condition is None:
                raise
            return False
        finally:
            self._mark_dirty(self.name, doc_id, None)
        await self._changed("replace", doc_id, document)
        return True

    async def delete_many(self, filter_: Mapping[str, Any], batch: int = 100) -> int:
        """Delete in batches, each its own round trip, so a user with 50,000 documents does not
        hold the event loop; each batch names its documents, so the journal drops exactly those."""
        ids = [doc["_id"] for doc in await self.find(filter_, {"_id": 1})]
        self._before_write()
        deleted = 0
        for start in range(0, len(ids), batch):
            chunk = ids[start : start + batch]
            try:
                result = await self._run(self._collection.delete_many({**filter_, "_id": {"$in": chunk}}))
            finally:
                for doc_id in chunk:
                    self._mark_dirty(self.name, doc_id, None)
            deleted += result.deleted_count
        return deleted
