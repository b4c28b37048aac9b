"""The per-call log line copies the raw ``playlist_id`` argument, whatever its size or type.

``tools/server.py`` logs ``arguments.get("playlist_id")`` before (and whether or not)
validation passed, and before authentication: any caller that reaches the endpoint, without a
token, writes a log line as large as its request body (2 MB by default) per call, with a nested
object if it sends one. Nothing rate-limits unauthenticated calls, so the log (and the disk it is
kept on) grows at the attacker's bandwidth. A playlist id is at most 80 characters.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from tests.support import connected


@pytest.mark.parametrize("playlist_id", ["p" * 1_000_000, {"deep": ["x" * 10_000] * 50}, ["x" * 100_000]])
async def test_the_log_line_of_a_call_stays_small(
    settings: Any, caplog: pytest.LogCaptureFixture, playlist_id: Any
) -> None:
    caplog.set_level(logging.INFO, logger="taste_memory.calls")
    async with connected(settings) as call:
        await call.error("memory_get_playlist", {"user_id": 1, "playlist_id": playlist_id}, "INVALID_ARGUMENT")
    lines = [r for r in caplog.records if r.name == "taste_memory.calls" and r.getMessage() == "tool call"]
    assert len(lines) == 1
    logged = lines[0].playlist_id  # type: ignore[attr-defined]
    assert logged is None or (isinstance(logged, str) and len(logged) <= 100), json.dumps(logged)[:200]


async def test_a_valid_playlist_id_is_still_logged(settings: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="taste_memory.calls")
    pid = "playlist00000000000001"
    async with connected(settings) as call:
        await call.error("memory_get_playlist", {"user_id": 1, "playlist_id": pid}, "NOT_FOUND")
    lines = [r for r in caplog.records if r.name == "taste_memory.calls" and r.getMessage() == "tool call"]
    assert [r.playlist_id for r in lines] == [pid]  # type: ignore[attr-defined]
