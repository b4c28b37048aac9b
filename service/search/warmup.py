"""The server's background warm-up of the embedded search indexes.

Start-up indexes nothing (a user's index is built on its first search); once the server is up,
this task builds every user's index one at a time, yielding to the event loop between users and
within a large one, so first searches are usually warm and no session waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

from service.background import in_background

log = logging.getLogger("taste_memory")

Build = Callable[[], Awaitable[tuple[int, float]]]


@contextlib.asynccontextmanager
async def warming_search(build: Build, enabled: bool = True) -> AsyncIterator[asyncio.Task[None] | None]:
    """Run ``build`` (``MemoryService.build_search_index``) in the background while the block runs;
    it is cancelled at exit if not done. A failure is logged, never raised: searches still build
    each user's index on first use."""
    if not enabled:
        yield None
        return

    async def run() -> None:
        try:
            entries, seconds = await build()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("search index warm-up failed; indexes are built on first search instead")
            return
        if entries:
            log.info("search index warm-up: %d entries in %.1f ms", entries, seconds * 1000)

    async with in_background(run(), "search-warm-up") as task:
        yield task
