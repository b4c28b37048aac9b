"""/metrics and the transport guards, against a real ``serve`` process driven over SSE by the
official MCP client: calls counted per tool and errors per code with nothing of any user's data,
and foreign hosts, cross-site origins and oversized bodies refused without a crash report.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
import pytest

from service.settings import Settings
from tests.support import playlist, track
from tests.support.mcp_sessions import sse_session
from tests.support.server_process import http_get, running_server

pytestmark = pytest.mark.slow

ALICE, BOB = 1, 2
MIX = playlist(7)


async def test_metrics_count_calls_per_tool_and_errors_per_code(settings: Settings, tmp_path: Path) -> None:
    with running_server(settings, tmp_path) as server:
        async with sse_session(server) as call:
            for _ in range(3):
                await call.ok("memory_get_profile", {"user_id": ALICE})
            await call.ok(
                "memory_log_playlist_create",
                {"user_id": ALICE, "playlist_id": MIX, "name": "Secret name", "track_ids": [track(1)]},
            )
            await call.error("memory_reconstruct_playlist", {"user_id": ALICE, "playlist_id": playlist(8)}, "NOT_FOUND")
            await call.error("memory_get_profile", {"user_id": "one"}, "INVALID_ARGUMENT")
        status, text = http_get(f"{server.base_url}/metrics")
        bodies = [str(http_get(f"{server.base_url}/{path}")[1]) for path in ("healthz", "readyz")]
    assert status == 200
    assert 'taste_memory_tool_call_seconds_count{tool="memory.get_profile"} 4.0' in text
    assert 'taste_memory_tool_call_seconds_bucket{le="+Inf",tool="memory.log_playlist_create"} 1.0' in text
    assert 'taste_memory_tool_errors_total{code="NOT_FOUND",tool="memory.reconstruct_playlist"} 1.0' in text
    assert 'taste_memory_tool_errors_total{code="INVALID_ARGUMENT",tool="memory.get_profile"} 1.0' in text
    # Served without authentication, so nothing of any user's data may appear.
    for body in (text, *bodies):
        assert MIX not in body and "Secret name" not in body and "user_id" not in body


async def test_transport_refuses_foreign_hosts_origins_and_oversized_bodies(settings: Settings, tmp_path: Path) -> None:
    limit = {"MEMORY_MAX_REQUEST_BYTES": "65536"}
    with running_server(settings, tmp_path, extra_env=limit) as server:
        async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
            # DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends its own Host.
            rebound = await http.get("/sse", headers={"Host": "evil.example:8765"})
            posted = await http.post(
                "/messages/?session_id=" + uuid.uuid4().hex, json={}, headers={"Host": "evil.example"}
            )
            cross_site = await http.post(
                "/messages/?session_id=" + uuid.uuid4().hex, json={}, headers={"Origin": "http://evil.example"}
            )
            huge = await http.post(
                "/messages/?session_id=" + uuid.uuid4().hex,
                content=b'{"pad": "' + b"x" * 70_000 + b'"}',
                headers={"Content-Type": "application/json"},
            )
        # Legitimate loopback clients still work after all that.
        async with sse_session(server) as call:
            await call.ok("memory_get_profile", {"user_id": ALICE})
        log = server.stderr_text()
    # Each refusal is one warning, not a crash report with a trace (a probe must not flood the log).
    assert "Invalid Host header" in log and "Exception in ASGI application" not in log
    assert (rebound.status_code, posted.status_code) == (421, 421)
    assert cross_site.status_code == 403
    assert huge.status_code == 413
