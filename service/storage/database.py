"""Open the configured engine, create indexes (and validators on real MongoDB), hand out collections."""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beanie import init_beanie
from pymongo.errors import PyMongoError

from models.documents.registry import DOCUMENT_MODELS
from models.validators import VALIDATORS
from service.errors import StorageUnavailable, UserQuarantined
from service.settings import Settings
from service.storage.collection import OnChange, TrackedCollection
from service.storage.embedded.engine import EmbeddedEngine

log = logging.getLogger(__name__)


@dataclass
class Database:
    engine: str  # "mongodb" | "embedded"
    profiles: TrackedCollection
    preference_events: TrackedCollection
    playlists: TrackedCollection
    history: TrackedCollection
    idempotency: TrackedCollection
    cursors: TrackedCollection
    audit_log: TrackedCollection
    audit_state: TrackedCollection
    user_stats: TrackedCollection
    tracks: TrackedCollection
    track_choices: TrackedCollection
    memories: TrackedCollection
    plays: TrackedCollection
    memory_aging: TrackedCollection
    memory_controls: TrackedCollection
    _raw_database: Any = field(repr=False)
    _embedded: EmbeddedEngine | None = field(default=None, repr=False)
    _on_reverted: list[Callable[[int], Awaitable[None]]] = field(default_factory=list, repr=False)

    @asynccontextmanager
    async def unit(self) -> AsyncIterator[None]:
        """One call's writes as a unit of work: committed (durable on the embedded store) when it
        ends; if it fails, or its commit does, none of its changes remain, in memory or on disk.
        A unit inside a unit is part of it. (Real MongoDB acknowledges each write itself.)"""
        engine = self._embedded
        if engine is None:
            yield
            return
        unit, outermost = engine.begin()
        if not outermost:
            yield
            return
        try:
            yield
            await engine.commit_async()
        except BaseException:
            engine.abandon(unit)
            raise
        finally:
            engine.end(unit)
            await self._refresh_reverted()

    def on_reverted(self, hook: Callable[[int], Awaitable[None]]) -> None:
        """Call ``hook(user_id)`` when a user's documents went back to the file (a failed call or
        commit): what the service keeps beside the store (search index, cached context) is rebuilt."""
        self._on_reverted.append(hook)

    async def _refresh_reverted(self) -> None:
        assert self._embedded is not None
        for user_id in sorted(self._embedded.take_reverted()):
            for hook in self._on_reverted:
                await hook(user_id)

    def settle(self) -> None:
        """After a bulk write (an import's file): on the embedded engine what it stored is as
        long-lived as the loaded store, so it is frozen out of the cyclic collector's reach too
        (as the store is at load), or every full collection walks it again: an import of 300,000
        rows saw pauses of up to 184 ms. Nothing to do on MongoDB."""
        if self._embedded is not None:
            gc.freeze()

    def refuse_quarantined(self, user_id: int) -> None:
        if self._embedded is not None and user_id in self._embedded.quarantined:
            raise UserQuarantined(user_id)

    def health(self) -> dict[str, Any]:
        """The store's state for readiness and metrics: ``degraded`` names why commits fail (None
        while they succeed), with the failed commits so far and the quarantined users."""
        engine = self._embedded
        if engine is None:
            return {"degraded": None, "failed_commits": 0, "quarantined_users": []}
        failing = engine.failing
        reason = (
            (failing.details or {}).get("reason") if failing is not None and isinstance(failing.details, dict) else None
        )
        return {
            "degraded": reason,
            "failed_commits": engine.failed_commits,
            "quarantined_users": sorted(engine.quarantined),
        }

    @property
    def embedded(self) -> EmbeddedEngine | None:
        """The embedded engine (None on MongoDB): what the operator commands inspect."""
        return self._embedded

    def commit(self) -> None:
        """Make every write so far durable, blocking the loop (bulk loaders, shutdown).

        Real MongoDB acknowledges each write with ``w: majority`` and the journal already."""
        if self._embedded is not None:
            self._embedded.commit()

    async def commit_async(self) -> None:
        """Make the running call's writes so far durable before it goes on (outside a call: the
        background writes), with the disk work off the event loop (embedded store)."""
        if self._embedded is not None:
            try:
                await self._embedded.commit_async()
            finally:
                await self._refresh_reverted()

    async def scrub(self) -> None:
        """After a hard delete: leave no copy of deleted data in the embedded store's files.
        (Real MongoDB reclaims deleted documents' space itself.)"""
        if self._embedded is not None:
            await self._embedded.scrub()

    def observe_writes(self, on_change: OnChange, collections: Iterable[str]) -> None:
        """Call ``on_change`` after each write to these collections (by name), within the same
        unit of work: how app assembly wires the embedded engine's write-path audit in."""
        names = set(collections)
        for collection in (
            self.profiles,
            self.preference_events,
            self.playlists,
            self.history,
            self.idempotency,
            self.cursors,
            self.audit_state,
            self.user_stats,
            self.tracks,
            self.track_choices,
            self.memories,
            self.plays,
            self.memory_aging,
            self.memory_controls,
        ):
            if collection.name in names:
                collection.on_change = on_change

    async def ping(self) -> bool:
        try:
            await self._raw_database.command("ping")
        except PyMongoError:
            return False
        return True

    @property
    def raw(self) -> Any:
        """The driver's database object, for what the collection wrapper does not cover
        (the change-stream watcher's ``watch``)."""
        return self._raw_database

    def user_collections(self) -> list[TrackedCollection]:
        return [
            self.profiles,
            self.preference_events,
            self.playlists,
            self.history,
            self.idempotency,
            self.tracks,
            self.track_choices,
            self.memories,
            self.plays,
            self.memory_aging,
            self.memory_controls,
        ]


async def _apply_validators(database: Any) -> None:
    for name, schema in VALIDATORS.items():
        try:
            await database.command("collMod", name, validator={"$jsonSchema": schema}, validationLevel="moderate")
        except PyMongoError as exc:  # pragma: no cover - needs a real server
            log.warning("could not apply validator to %s: %s", name, exc)


# mongomock enforces a unique index by scanning on every insert, so a playlist write got slower
# with every playlist stored. These two keys are also encoded in the documents' deterministic _id
# (service/ledger/keys.py), which mongomock checks in O(1): on the embedded engine the _id alone
# keeps them unique. And mongomock honours a TTL index by scanning the collection on every access;
# the listing deletes a user's expired cursors itself. Real MongoDB keeps (and uses) all three.
_NOT_EMBEDDED = {"playlists": "user_playlist", "playlist_history": "user_playlist_seq", "listing_cursors": "expiry"}


async def _drop_scanning_indexes(database: Any) -> None:
    for collection, index in _NOT_EMBEDDED.items():
        if index in await database[collection].index_information():
            await database[collection].drop_index(index)


@asynccontextmanager
async def open_database(
    settings: Settings, readonly: bool = False, source: Path | None = None
) -> AsyncIterator[Database]:
    """The configured store; ``readonly`` (embedded) reads the file without taking the directory's
    lock and writes nothing, so it works beside a running server; ``source`` reads another file
    (a backup)."""
    embedded: EmbeddedEngine | None = None
    client: Any
    if settings.mongodb_uri:
        from motor.motor_asyncio import AsyncIOMotorClient

        client = AsyncIOMotorClient(settings.mongodb_uri, w="majority", journal=True, tz_aware=True)
        mark_dirty = _ignore_dirty
    else:
        embedded = EmbeddedEngine(settings.data_dir, settings.database_name, settings.journal, readonly, source)
        loaded = embedded.open()
        log.info("embedded store at %s: %d documents loaded", embedded.source, loaded)
        client = embedded.client
        mark_dirty = embedded.mark_dirty
    raw = client[settings.database_name]
    try:
        try:
            await init_beanie(database=raw, document_models=DOCUMENT_MODELS)
        except PyMongoError as exc:
            raise StorageUnavailable(f"cannot initialise the database: {exc}") from exc
        if settings.mongodb_uri:
            await _apply_validators(raw)
        else:
            await _drop_scanning_indexes(raw)

        def tracked(name: str) -> TrackedCollection:
            return TrackedCollection(
                raw[name],
                mark_dirty,
                in_process=embedded is not None,
                before_write=embedded.before_write if embedded is not None else None,
            )

        yield Database(
            engine="mongodb" if settings.mongodb_uri else "embedded",
            profiles=tracked("profiles"),
            preference_events=tracked("preference_events"),
            playlists=tracked("playlists"),
            history=tracked("playlist_history"),
            idempotency=tracked("idempotency"),
            cursors=tracked("listing_cursors"),
            audit_log=tracked("audit_log"),
            audit_state=tracked("audit_state"),
            user_stats=tracked("user_stats"),
            tracks=tracked("tracks"),
            track_choices=tracked("track_choices"),
            memories=tracked("memories"),
            plays=tracked("plays"),
            memory_aging=tracked("memory_aging"),
            memory_controls=tracked("memory_controls"),
            _raw_database=raw,
            _embedded=embedded,
        )
    finally:
        if embedded is not None:
            embedded.close()
        else:
            client.close()


def _ignore_dirty(collection: str, doc_id: Any, fields: Iterable[str] | None) -> None:
    return None
