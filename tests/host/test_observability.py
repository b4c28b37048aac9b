"""Audit trail, per-call log lines, /metrics and the transport guards, against a real ``serve``
process driven over SSE by the official MCP client.

Who writes the audit entries depends on the backend: on the embedded engine the write path, in the
same unit of work as the change (``via == "write_path"``, readable as soon as the call answered);
on real MongoDB the change-stream watcher, a moment after the change (``via == "change_stream"``,
or ``"backfill"`` for changes made before its stream opened at start-up), so there the trail is
read again until it is complete or ``AUDIT_WAIT`` has passed. A deletion's tombstone is written by
the delete itself on both (``"write_path"``); on MongoDB the watcher purges the deleted user's
other entries when it reaches the tombstone in stream order.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.settings import Settings
from tests.support import playlist, track
from tests.support.server_process import ServerProcess, WireCaller, http_get, running_server, sse_session
from tests.support.tokens import create_token, token_env

pytestmark = pytest.mark.slow

ALICE, BOB = 1, 2
MIX = playlist(7)
AUDIT_WAIT = 30.0  # seconds the MongoDB watcher gets to write the entries of the calls just made
WRITE_TOOLS = {
    "memory.update_profile",
    "memory.append_preference_event",
    "memory.log_playlist_create",
    "memory.log_playlist_mutation",
    "memory.delete_user_data",
}


class Recorder:
    """Calls tools in order, remembering each call and whether it should have written."""

    def __init__(self, call: WireCaller) -> None:
        self.call = call
        self.made: list[dict[str, Any]] = []

    async def __call__(self, tool: str, arguments: dict[str, Any], *, writes: bool, code: str | None = None) -> Any:
        envelope = await self.call(tool, arguments)
        assert envelope["success"] == (code is None), envelope
        if code is not None:
            assert envelope["error"]["code"] == code, envelope
        self.made.append(
            {
                "tool": tool,
                "user_id": arguments.get("user_id"),
                "writes": writes,
                "success": envelope["success"],
                "code": code,
            }
        )
        return envelope.get("result")


def tool_call_lines(server: ServerProcess) -> list[dict[str, Any]]:
    lines = []
    for raw in server.stderr_text().splitlines():
        if raw.startswith("{"):
            line = json.loads(raw)
            if line.get("event") == "tool call":
                lines.append(line)
    return lines


async def audit_entries(call: WireCaller, **filters: Any) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    arguments: dict[str, Any] = {**filters, "limit": 7}  # small pages: the cursor is exercised
    while True:
        page = await call.ok("ops_audit", arguments)
        entries += page["entries"]
        if page["next_cursor"] is None:
            return entries
        arguments = {**filters, "limit": 7, "cursor": page["next_cursor"]}


def audit_vias(settings: Settings) -> set[str]:
    """The ``via`` of the entries of ordinary writes on this backend."""
    return {"change_stream", "backfill"} if settings.mongodb_uri else {"write_path"}


async def settled_entries(
    call: WireCaller, settings: Settings, done: Callable[[list[dict[str, Any]]], bool], **filters: Any
) -> list[dict[str, Any]]:
    """``audit_entries`` once ``done`` holds for them: at once on the embedded engine (its entries
    are committed with the change), within AUDIT_WAIT on MongoDB (the watcher writes them later)."""
    deadline = time.monotonic() + (AUDIT_WAIT if settings.mongodb_uri else 0.0)
    while True:
        entries = await audit_entries(call, **filters)
        if done(entries) or time.monotonic() >= deadline:
            return entries
        await asyncio.sleep(0.25)


async def play_every_write(record: Recorder) -> None:
    await record("memory_update_profile", {"user_id": ALICE, "patch": {"core_genres": ["power metal"]}}, writes=True)
    await record(
        "memory_update_profile", {"user_id": ALICE, "patch": {"core_genres": ["power metal"]}}, writes=False
    )  # changes nothing: no write, so no entry
    await record(
        "memory_append_preference_event",
        {"user_id": ALICE, "type": "rule", "payload": {"raw_text": "max 3 per artist"}},
        writes=True,
    )
    create = {
        "user_id": ALICE,
        "playlist_id": MIX,
        "name": "Drive",
        "track_ids": [track(1), track(2)],
        "idempotency_key": "create-drive-1",
    }
    await record("memory_log_playlist_create", create, writes=True)
    await record("memory_log_playlist_create", create, writes=False)  # a retry: the original result, no write
    await record(
        "memory_log_playlist_create", {**create, "idempotency_key": "another-key-1"}, writes=False, code="CONFLICT"
    )
    for n in range(12):  # crosses the snapshot interval: one of these opens a new history bucket
        await record(
            "memory_log_playlist_mutation",
            {
                "user_id": ALICE,
                "playlist_id": MIX,
                "type": "ADD_TRACKS",
                "payload": {"track_ids": [track(10 + n)]},
                "client_event_id": str(uuid.uuid4()),
            },
            writes=True,
        )
    await record(
        "memory_log_playlist_mutation",
        {"user_id": ALICE, "playlist_id": MIX, "type": "REORDER", "payload": {"track_ids": [track(1)]}},
        writes=False,
        code="CONFLICT",
    )
    await record("memory_get_profile", {"user_id": ALICE}, writes=False)
    await record("memory_reconstruct_playlist", {"user_id": ALICE, "playlist_id": MIX}, writes=False)


async def test_every_write_is_audited_and_every_call_logged(settings: Settings, tmp_path: Path) -> None:
    token_file = tmp_path / "tokens.json"
    alice, alice_id = create_token(token_file, ALICE)
    bob, bob_id = create_token(token_file, BOB)
    operator, _ = create_token(token_file, role="operator")
    with running_server(settings, tmp_path, extra_env=token_env(token_file)) as server:
        async with sse_session(server, alice) as call:
            alice_calls = Recorder(call)
            await play_every_write(alice_calls)
        async with sse_session(server, bob) as call:
            bob_calls = Recorder(call)
            await bob_calls("memory_update_profile", {"user_id": BOB, "patch": {"x": 1}}, writes=True)
            await bob_calls("memory_delete_user_data", {"user_id": BOB, "confirm": True}, writes=True)
        logged = tool_call_lines(server)
        writes = sum(1 for m in alice_calls.made if m["writes"])
        async with sse_session(server, operator) as call:
            alice_trail = await settled_entries(call, settings, lambda e: len(e) >= writes, user_id=ALICE)
            bob_trail = await settled_entries(
                call, settings, lambda e: [x["operation"] for x in e] == ["delete_user_data"], user_id=BOB
            )
            mix_trail = await audit_entries(call, user_id=ALICE, playlist_id=MIX)
            recent = await call.ok("ops_audit", {"user_id": ALICE, "since": alice_trail[0]["time"]})

    # One log line per call, in call order, with every field the PRD names.
    made = alice_calls.made + bob_calls.made
    assert [(line["tool"], line["user_id"], line["success"], line["error_code"]) for line in logged[: len(made)]] == [
        (m["tool"].replace("_", ".", 1), m["user_id"], m["success"], m["code"]) for m in made
    ]
    for line in logged:
        assert {
            "tool",
            "user_id",
            "playlist_id",
            "request_id",
            "latency_ms",
            "success",
            "error_code",
            "principal",
        } <= set(line), line
        assert re.fullmatch(r"[0-9a-f]{32}", line["request_id"]) and line["latency_ms"] >= 0
    assert len({line["request_id"] for line in logged}) == len(logged), "request ids are unique per call"

    # Every call that wrote is in the trail, attributed to its token, tool and request; no other.
    assert len(alice_trail) == writes, f"{len(alice_trail)} entries for {writes} writes: {alice_trail}"
    by_request = {e["request_id"]: e for e in alice_trail}
    for call_made, line in zip(alice_calls.made, logged):
        entry = by_request.get(line["request_id"])
        if call_made["writes"]:
            assert entry is not None, f"no audit entry for {line}"
            assert (entry["tool"], entry["principal"], entry["user_id"]) == (line["tool"], alice_id, ALICE)
            assert entry["via"] in audit_vias(settings), entry
        else:
            assert entry is None, f"a call that wrote nothing is in the trail: {entry}"
    assert [e["time"] for e in alice_trail] == sorted((e["time"] for e in alice_trail), reverse=True)
    assert len({e["entry_id"] for e in alice_trail}) == len(alice_trail)
    assert {e["collection"] for e in alice_trail} == {"profiles", "preference_events", "playlist_history"}
    assert {e["playlist_id"] for e in mix_trail} == {MIX} and len(mix_trail) == 13  # create + 12 mutations
    assert recent["entries"][-1]["time"] >= alice_trail[0]["time"]
    # A deleted user's trail is one tombstone, naming who deleted and nothing of the data; the
    # delete writes it itself, on either backend.
    assert [(e["operation"], e["principal"], e["collection"], e["document_key"], e["via"]) for e in bob_trail] == [
        ("delete_user_data", bob_id, None, None, "write_path")
    ]


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
