"""Background tasks that live as long as a block: the server's periodic and warm-up work."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from typing import Any


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
