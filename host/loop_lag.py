"""Event-loop lag: how late a short periodic sleep wakes up. Every session shares one event loop,
so a call that holds it (a long export on the embedded engine, say) shows up here as lag that
every other session paid, whatever that call's own latency was."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from service.background import in_background

INTERVAL_S = 0.025


async def measure_lag(observe: Callable[[float], None], interval: float = INTERVAL_S) -> None:
    loop = asyncio.get_running_loop()
    while True:
        started = loop.time()
        await asyncio.sleep(interval)
        observe(max(0.0, loop.time() - started - interval))


def watching_loop_lag(
    observe: Callable[[float], None], interval: float = INTERVAL_S
) -> AbstractAsyncContextManager[asyncio.Task[None]]:
    return in_background(measure_lag(observe, interval), "event-loop-lag")
