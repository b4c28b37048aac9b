"""Event-loop lag: the monitor sees a call that holds the loop, and /metrics exposes it."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

from host.loop_lag import watching_loop_lag
from host.metrics import ToolMetrics
from tests.support.backends import make_settings
from tests.support.mcp_sessions import sse_session
from tests.support.server_process import http_get, running_server


async def test_a_call_holding_the_loop_is_seen_as_lag() -> None:
    seen: list[float] = []
    async with watching_loop_lag(seen.append, interval=0.01):
        await asyncio.sleep(0.05)
        quiet = list(seen)
        time.sleep(0.2)  # what a synchronous export of a large user used to do to every session
        await asyncio.sleep(0.05)
    assert quiet and max(quiet) < 0.1
    assert max(seen) >= 0.15


def lag_count(text: str) -> float:
    found = re.search(r"^taste_memory_event_loop_lag_seconds_count (\S+)$", text, re.MULTILINE)
    assert found, "no event-loop lag histogram in /metrics"
    return float(found.group(1))


async def test_metrics_expose_the_event_loop_lag(tmp_path: Path) -> None:
    metrics = ToolMetrics()
    metrics.loop_lag.observe(0.003)
    assert 'taste_memory_event_loop_lag_seconds_bucket{le="0.005"} 1.0' in metrics.exposition().decode()

    with running_server(make_settings("embedded", tmp_path / "data"), tmp_path) as server:
        async with sse_session(server) as call:
            await call.ok("memory_get_profile", {"user_id": 1})
        first = lag_count(http_get(f"{server.base_url}/metrics")[1])
        await asyncio.sleep(0.3)
        later = lag_count(http_get(f"{server.base_url}/metrics")[1])
    assert later >= first + 5  # sampled every 25 ms while the server runs
