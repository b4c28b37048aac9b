"""Bearer tokens on the streamable-HTTP transport (``serve --transport streamable-http``, /mcp)
behave as on SSE: no token, an unknown one or a revoked one is UNAUTHORIZED (a revoked token also
on the session it opened, from its next call), a user token is FORBIDDEN for another user, and a
session opened with one token cannot be used with another.

Both ways the official client talks to /mcp are covered: ``mode="legacy"`` (initialize handshake,
``Mcp-Session-Id`` session) and the default ``auto`` (the 2026 protocol's single-exchange requests,
each answered on its own).
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from service.settings import Settings
from tests.support.mcp_sessions import streamable_http_session
from tests.support.server_process import running_server
from tests.support.tokens import create_token, revoke_token, token_env

pytestmark = pytest.mark.slow

ALICE, BOB = 1, 2


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_tokens_on_streamable_http_behave_as_on_sse(settings: Settings, tmp_path: Path, mode: str) -> None:
    token_file = tmp_path / "secrets" / "tokens.json"
    alice, alice_id = create_token(token_file, ALICE)
    bob, _ = create_token(token_file, BOB)
    # OAuth off: the tokenless call is answered in band, as on SSE (with it on, a 401).
    env = {**token_env(token_file), "MEMORY_OAUTH": "off"}
    with running_server(settings, tmp_path, transport="streamable-http", extra_env=env) as server:
        for token in (None, "not-a-token", "tm_000000000000_" + "x" * 43):
            async with streamable_http_session(server, token, mode=mode) as call:
                await call.error("memory_get_profile", {"user_id": ALICE}, "UNAUTHORIZED")
                await call.error("ops_list_users", {}, "UNAUTHORIZED")
        async with streamable_http_session(server, bob, mode=mode) as call:
            await call.ok("memory_update_profile", {"user_id": BOB, "patch": {"b": 1}})
            await call.error("memory_get_profile", {"user_id": ALICE}, "FORBIDDEN")
        async with streamable_http_session(server, alice, mode=mode) as call:
            await call.ok("memory_update_profile", {"user_id": ALICE, "patch": {"a": 1}})
            await call.error("memory_get_profile", {"user_id": BOB}, "FORBIDDEN")
            assert [u["user_id"] for u in (await call.ok("ops_list_users", {}))["users"]] == [ALICE]
            revoke_token(token_file, alice_id)
            await call.error("memory_get_profile", {"user_id": ALICE}, "UNAUTHORIZED")
            await call.error("memory_update_profile", {"user_id": ALICE, "patch": {"a": 2}}, "UNAUTHORIZED")
        async with streamable_http_session(server, alice, mode=mode) as call:
            await call.error("memory_get_profile", {"user_id": ALICE}, "UNAUTHORIZED")
        async with streamable_http_session(server, bob, mode=mode) as call:
            assert (await call.ok("memory_get_profile", {"user_id": BOB}))["profile"] == {"b": 1}


async def test_a_streamable_http_session_answers_only_the_token_that_opened_it(
    settings: Settings, tmp_path: Path
) -> None:
    token_file = tmp_path / "secrets" / "tokens.json"
    alice, _ = create_token(token_file, ALICE)
    bob, _ = create_token(token_file, BOB)
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    accept = {"Accept": "application/json, text/event-stream"}
    with running_server(settings, tmp_path, transport="streamable-http", extra_env=token_env(token_file)) as server:
        async with httpx.AsyncClient(timeout=10) as http:
            opened = await http.post(
                server.mcp_url, json=initialize, headers={**accept, "Authorization": f"Bearer {alice}"}
            )
            assert opened.status_code == 200, opened.text
            session = opened.headers["mcp-session-id"]
            call = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "memory_get_profile", "arguments": {"user_id": ALICE}},
            }
            # Another token: no such session; no token at all: OAuth's 401 (on by default) comes first.
            for headers, status in (({"Authorization": f"Bearer {bob}"}, 404), ({}, 401)):
                refused = await http.post(
                    server.mcp_url, json=call, headers={**accept, **headers, "mcp-session-id": session}
                )
                assert refused.status_code == status, refused.text
