"""Typed memories (seed 001): recommendations, insights, events, feedback and discussions, each
with an importance, stored once however often restated, found by entity or words, and later
checked against what the listener played (``plays``, ``followups``) or faded by ``aging``.

The store keeps every user's analysed memories current on the embedded engine (``index``): each
write here updates that copy in the same call, and an import or a delete drops it (the search
engine's ``user_reloaded`` calls back).
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from datetime import datetime, timedelta
from typing import Any

from service.audit.origin import written_by
from service.errors import InvalidArgument, MemoryNotFound
from service.limits import require_at_most
from service.locks import UserLocks
from service.memories import dedup
from service.memories.index import MemoryIndex, index_cache
from service.memories.keys import entity_key, is_memory_id, memory_key, new_memory_id
from service.memories.query import Filters, ranked
from service.memories.views import memory_view, query_row
from service.search.engine import SearchEngine
from service.settings import Settings
from service.storage.database import Database
from service.storage.units import unit_of_work
from service.text.entities import folded_entity
from service.timeutil import as_utc, utc_now
from service.users import stats as user_stats

LOAD_SLICE = 200  # memories analysed between two turns of the event loop (~6 ms)
SUMMARY_MAX = 2000
STORED_ONLY = {"written_by": 0}


class MemoryStore:
    def __init__(self, db: Database, settings: Settings, search: SearchEngine) -> None:
        self._db = db
        self.settings = settings
        self._search = search
        self._cache = index_cache() if db.engine == "embedded" else None
        self._locks = UserLocks()
        search.on_user_reloaded(self.forget_user)

    # -- the analysed copy -------------------------------------------------------------------------
    @property
    def kept_between_calls(self) -> bool:
        """Whether the analysed copy is kept between calls (the embedded engine) or read anew."""
        return self._cache is not None

    def forget_user(self, user_id: int) -> None:
        if self._cache is not None:
            self._cache.forget(user_id)

    def kept_index(self, user_id: int) -> MemoryIndex | None:
        """The analysed copy this process keeps for the user, if any (``rederive`` compares it)."""
        return self._cache.get(user_id) if self._cache is not None else None

    async def index_of(self, user_id: int, narrowed: dict[str, Any] | None = None) -> MemoryIndex:
        """The user's memories, analysed (kept between calls on the embedded engine only). On real
        MongoDB, ``narrowed`` (extra equality/range conditions) lets the server's indexes select
        only the memories the call can use."""
        if self._cache is not None and (index := self._cache.get(user_id)) is not None:
            return index
        generation = self._cache.generation(user_id) if self._cache is not None else 0
        query = {"user_id": user_id, **(narrowed if self._cache is None and narrowed else {})}
        docs = await self._db.memories.find(query, STORED_ONLY)
        index = MemoryIndex()
        for start in range(0, len(docs), LOAD_SLICE):
            for doc in docs[start : start + LOAD_SLICE]:
                index.put(doc)
            await asyncio.sleep(0)
        if self._cache is not None:
            self._cache.keep(user_id, index, generation)
        return index

    def stored(self, user_id: int, doc: dict[str, Any]) -> None:
        """After a write of ``doc`` (as now stored): the kept copy says the same."""
        if self._cache is not None:
            index = self._cache.get(user_id)
            self._cache.forget(user_id)  # a build reading meanwhile is not kept...
            if index is not None:  # ...the kept copy is updated instead
                index.put({k: v for k, v in doc.items() if k != "written_by"})
                self._cache.keep(user_id, index, self._cache.generation(user_id))
        self._search.memories_changed(user_id, [doc])

    def removed(self, user_id: int, memory_ids: list[str]) -> None:
        if self._cache is not None:
            index = self._cache.get(user_id)
            self._cache.forget(user_id)
            if index is not None:
                for memory_id in memory_ids:
                    index.remove(memory_id)
                self._cache.keep(user_id, index, self._cache.generation(user_id))
        self._search.memories_removed(user_id, memory_ids)

    def held(self, user_id: int) -> AbstractAsyncContextManager[None]:
        """The user's memory lock: whoever decides from a memory as stored and then writes it
        (a restatement, aging) holds it, so neither acts on what the other just changed."""
        return self._locks.held(user_id)

    async def get(self, user_id: int, memory_id: str) -> dict[str, Any]:
        """The stored memory, or MemoryNotFound (another user's id is not found either)."""
        doc = None
        if is_memory_id(memory_id):
            doc = await self._db.memories.find_one(
                {"_id": memory_key(user_id, memory_id), "user_id": user_id}, STORED_ONLY
            )
        if doc is None:
            raise MemoryNotFound("no memory with this id for this user", {"field": "memory_id"})
        return doc

    # -- memory_add --------------------------------------------------------------------------------
    @unit_of_work
    async def add(
        self,
        user_id: int,
        memory_type: str,
        entities: list[str],
        summary: str,
        importance: int,
        metadata: dict[str, Any] | None,
        timestamp: datetime | None,
        skip_dedup: bool,
        sensitive: bool = False,
    ) -> dict[str, Any]:
        entities, summary, metadata = _checked(entities, summary, metadata or {}, self.settings)
        now = utc_now()
        moment = timestamp or now
        key = entity_key(entities)
        try:
            async with self.held(user_id):
                previous = None
                if not skip_dedup:
                    index = await self.index_of(user_id, {"type": memory_type, "entity_key": key})
                    candidates = index.with_key(memory_type, key)
                    previous = dedup.restated(candidates, summary, moment)
                if previous is not None:
                    doc = await self._restate(user_id, previous, summary, importance, metadata, moment, now, sensitive)
                else:
                    doc = await self._insert(
                        user_id, memory_type, entities, key, summary, importance, metadata, moment, now, sensitive
                    )
        except BaseException:
            self.forget_user(user_id)  # whatever reached the store, the next read sees it
            raise
        self.stored(user_id, doc)
        return {
            "user_id": user_id,
            "memory_id": doc["memory_id"],
            "deduplicated": previous is not None,
            "memory": memory_view(doc),
        }

    async def _insert(
        self,
        user_id: int,
        memory_type: str,
        entities: list[str],
        key: str,
        summary: str,
        importance: int,
        metadata: dict[str, Any],
        moment: datetime,
        now: datetime,
        sensitive: bool,
    ) -> dict[str, Any]:
        memory_id = new_memory_id()
        doc = {
            "_id": memory_key(user_id, memory_id),
            "user_id": user_id,
            "memory_id": memory_id,
            "type": memory_type,
            "entities": entities,
            "entity_key": key,
            "summary": summary,
            "importance": importance,
            "metadata": metadata,
            "timestamp": moment,
            "last_seen_at": moment,
            "seen_count": 1,
            "fuzzy": False,
            "sensitive": sensitive,
            "validated_at": None,
            "created_at": now,
            "updated_at": now,
            "written_by": written_by(),
        }
        await self._db.memories.insert_one(doc)
        await user_stats.count_records_added(self._db, user_id, "memory_count", 1)
        return doc

    async def _restate(
        self,
        user_id: int,
        previous: dict[str, Any],
        summary: str,
        importance: int,
        metadata: dict[str, Any],
        moment: datetime,
        now: datetime,
        sensitive: bool,
    ) -> dict[str, Any]:
        merged = dedup.merged_metadata(previous.get("metadata") or {}, metadata)
        require_at_most(
            merged,
            self.settings.max_memory_metadata_bytes,
            "metadata",
            "the memory's metadata merged with the stored one's (store it with skip_dedup instead)",
        )
        changes = {
            "summary": dedup.merged_summary(previous["summary"], summary, SUMMARY_MAX),
            "metadata": merged,
            "importance": max(previous["importance"], importance),
            "timestamp": min(previous["timestamp"], moment, key=_utc_key),
            "last_seen_at": max(previous["last_seen_at"], moment, key=_utc_key),
            "seen_count": previous["seen_count"] + 1,
            "fuzzy": False,  # restated: clear again until it ages again
            # once said to hurt, a restatement that does not say so again does not expose it
            "sensitive": sensitive or bool(previous.get("sensitive")),
            "updated_at": now,
            "written_by": written_by(),
        }
        await self._db.memories.update_one({"_id": previous["_id"], "user_id": user_id}, {"$set": changes})
        return {**previous, **changes}

    # -- memory_query ------------------------------------------------------------------------------
    async def query(
        self,
        user_id: int,
        entity: str | None,
        text: str | None,
        memory_type: str | None,
        since_days: int | None,
        importance_min: int | None,
        limit: int,
        naming: str | None = None,
    ) -> dict[str, Any]:
        """``naming``: words that may name a sensitive memory (the block's focus) without ranking."""
        now = utc_now()
        filters = Filters(
            memory_type,
            now - timedelta(days=since_days) if since_days is not None else None,
            importance_min,
            entity,
            " ".join(t for t in (text, naming) if t) or None,
        )
        index = await self.index_of(user_id, filters.narrowed())
        meaning = await self._search.meaning(user_id, text, "memory") if text else None
        rows = [
            query_row(doc, now, score, alone)
            for score, doc, alone in ranked(index, entity, text, filters, limit, meaning)
        ]
        return {"user_id": user_id, "memories": rows}


def _utc_key(moment: datetime) -> float:
    return as_utc(moment).timestamp()


def _checked(
    entities: list[str], summary: str, metadata: dict[str, Any], settings: Settings
) -> tuple[list[str], str, dict[str, Any]]:
    """What the schema cannot say: every entity and the summary carry words, the metadata fits,
    and a follow-up delay, when given, is a whole number of days."""
    cleaned = [" ".join(e.split()) for e in entities]
    for i, entity in enumerate(cleaned):
        if not entity or not folded_entity(entity):
            raise InvalidArgument("an entity is empty once blanks are removed", {"field": f"entities[{i}]"})
    summary = summary.strip()
    if not summary:
        raise InvalidArgument("summary is empty once blanks are removed", {"field": "summary"})
    require_at_most(metadata, settings.max_memory_metadata_bytes, "metadata", "metadata")
    delay = metadata.get("check_after_days")
    if "check_after_days" in metadata and not (type(delay) is int and 0 <= delay <= 3650):
        raise InvalidArgument(
            "metadata.check_after_days must be a whole number of days, 0 to 3650",
            {"field": "metadata.check_after_days"},
        )
    return cleaned, summary, metadata
