"""Background tasks that live as long as a block: the server's periodic and warm-up work."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any

log = logging.getLogger("taste_memory")


@contextlib.asynccontextmanager
async def in_background(work: Coroutine[Any, Any, None], name: str) -> AsyncIterator[asyncio.Task[None]]:
    """Run ``work`` as a task while the block runs; cancel it (and wait for it) on the way out."""
    task = asyncio.create_task(work, name=name)
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def repeating(work: Callable[[], Awaitable[None]], every: float, first_after: float, what: str) -> None:
    """Run ``work`` after ``first_after`` seconds, then every ``every`` seconds, for ever (until
    cancelled); a failed run is logged and the next period tries again."""
    await asyncio.sleep(first_after)
    while True:
        try:
            await work()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("%s failed; retrying at the next period", what)
        await asyncio.sleep(every)
