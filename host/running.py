"""The service's life in a serving process, whatever its transport: the store opened (after the
crash recovery), the work that runs beside the calls, and the holder the tools read the service
from. Kept apart from ``host.app`` (the HTTP host) so the command line's data and token
commands start without importing the MCP stack (about 1.5 s of a 2.7 s start)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from service.audit.retention import retaining_audit
from service.audit.watcher import watching_audit
from service.audit.write_path import record_audit_on_write_path
from service.facade import MemoryService
from service.memories.aging import aging_periodically
from service.search.warmup import warming_search
from service.settings import Settings
from service.storage.database import open_database

log = logging.getLogger("taste_memory")


class ServiceHolder:
    """Hands the tools the service the lifespan opened; a call before start-up is a bug."""

    def __init__(self) -> None:
        self.service: MemoryService | None = None

    def __call__(self) -> MemoryService:
        if self.service is None:
            raise RuntimeError("the service is not started")
        return self.service


@contextlib.asynccontextmanager
async def running_service(
    settings: Settings, holder: ServiceHolder, recover: bool = True, readonly: bool = False, source: Path | None = None
) -> AsyncIterator[MemoryService]:
    """The service on its store. ``recover``: repair what a crash can leave behind first (playlist
    documents, counters); ``rederive`` opens without it, as that repair would hide what it reports.
    ``readonly``: read the embedded store beside a running server, writing nothing (``source``:
    another file, a backup)."""
    async with open_database(settings, readonly, source) as db:
        record_audit_on_write_path(db)
        service = MemoryService(db, settings)
        rebuilt = await service.recover() if recover and not readonly else 0
        if rebuilt:
            log.warning("rolled %d playlist documents forward after an interrupted write", rebuilt)
        holder.service = service
        try:
            yield service
        finally:
            holder.service = None
            await service.close()


@contextlib.asynccontextmanager
async def background_work(service: MemoryService, settings: Settings) -> AsyncIterator[None]:
    """What a serving process runs beside the calls, whatever its transport."""
    async with contextlib.AsyncExitStack() as stack:
        # Real MongoDB: the change-stream watcher writes the audit log (idle on embedded).
        await stack.enter_async_context(watching_audit(service.database))
        # Embedded: search indexes are built per user on first search; this builds the rest
        # in the background, one user at a time (nothing to do on MongoDB).
        await stack.enter_async_context(
            warming_search(service.build_search_index, settings.search_warmup and service.database.engine == "embedded")
        )
        # MEMORY_AUDIT_RETENTION_DAYS: the TTL index on MongoDB, an hourly purge on embedded.
        await stack.enter_async_context(retaining_audit(service.database, settings.audit_retention_days))
        # MEMORY_AGING_INTERVAL_S: typed memories fade; the first run one interval (an hour at most) after start.
        await stack.enter_async_context(aging_periodically(service.aging, settings.aging_interval_s))
        yield
