"""Every write is audited and every call logged, against a real ``serve`` process driven over SSE
by the official MCP client.

Who writes the audit entries depends on the backend: on the embedded engine the write path, in the
same unit of work as the change (``via == "write_path"``, readable as soon as the call answered);
on real MongoDB the change-stream watcher, a moment after the change (``via == "change_stream"``,
or ``"backfill"`` for changes made before its stream opened at start-up), so there the trail is
read again until it is complete (``settled_entries``). A deletion's tombstone is written by the
delete itself on both; on MongoDB the watcher purges the deleted user's other entries.
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from service.settings import Settings
from tests.support import playlist, track
from tests.support.audit_checks import audit_entries, audit_vias, settled_entries, tool_call_lines
from tests.support.mcp_sessions import WireCaller, sse_session
from tests.support.server_process import running_server
from tests.support.tokens import create_token, token_env

pytestmark = pytest.mark.slow

ALICE, BOB = 1, 2
MIX = playlist(7)
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
