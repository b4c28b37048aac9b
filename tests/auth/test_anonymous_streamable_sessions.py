"""Once tokens exist, only a verified, active token holds streamable-HTTP session state.

On ``--transport streamable-http`` every ``initialize`` POST without ``Mcp-Session-Id`` could open
a stateful session in the SDK's session manager, whoever sends it, kept 30 minutes after its last
request; the manager admits at most 10,000 and answers 503 beyond (10,000 anonymous initialize
POSTs take about 100 s from one client, grow the server from 99 MB to ~480 MB, and lock a valid
token's ``initialize`` out). An anonymous, revoked or forged-token caller has nothing to keep in a
session (its every call is UNAUTHORIZED), so it is served statelessly: same answers, nothing kept.
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

ALICE = 1
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}
ACCEPT = {"Accept": "application/json, text/event-stream"}
# With OAuth on (the default once tokens exist) a tokenless POST is answered 401 before any session
# (tests/auth/test_default_oauth_challenge.py); with it off, the tools answer it, statelessly.
IN_BAND = {"MEMORY_OAUTH": "off"}


async def test_only_an_active_token_opens_a_streamable_http_session(settings: Settings, tmp_path: Path) -> None:
    token_file = tmp_path / "secrets" / "tokens.json"
    alice, _ = create_token(token_file, ALICE)
    revoked, revoked_id = create_token(token_file, ALICE)
    revoke_token(token_file, revoked_id)
    with running_server(
        settings, tmp_path, transport="streamable-http", extra_env={**token_env(token_file), **IN_BAND}
    ) as server:
        async with httpx.AsyncClient(timeout=10) as http:
            for headers in (
                {},
                {"Authorization": "Bearer tm_000000000000_" + "x" * 43},
                {"Authorization": f"Bearer {revoked}"},
            ):
                for _ in range(20):
                    opened = await http.post(server.mcp_url, json=INITIALIZE, headers={**ACCEPT, **headers})
                    assert opened.status_code == 200, opened.text
                    assert "mcp-session-id" not in opened.headers, f"a session was kept for {headers or 'nobody'}"
            # Nor does a GET without a session id hold a stream open for nobody.
            probe = await http.get(server.mcp_url, headers={"Accept": "text/event-stream"})
            assert probe.status_code in (400, 405), probe.status_code
            opened = await http.post(
                server.mcp_url, json=INITIALIZE, headers={**ACCEPT, "Authorization": f"Bearer {alice}"}
            )
            assert opened.status_code == 200 and opened.headers.get("mcp-session-id"), opened.text
        # Anonymous callers are still told why, by the tools, on the legacy and the 2026 protocol.
        for mode in ("legacy", "auto"):
            async with streamable_http_session(server, None, mode=mode) as call:
                await call.error("memory_get_profile", {"user_id": ALICE}, "UNAUTHORIZED")
            async with streamable_http_session(server, revoked, mode=mode) as call:
                await call.error("memory_get_profile", {"user_id": ALICE}, "UNAUTHORIZED")
        async with streamable_http_session(server, alice, mode="legacy") as call:
            await call.ok("memory_get_profile", {"user_id": ALICE})
