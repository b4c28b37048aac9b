"""The authorization server through the ASGI app: the metadata documents, the 401 that starts
discovery, registration, authorize → consent on the page → code → tokens, a tool call with the
access token, scopes, isolation, audience, refresh and revocation."""

from __future__ import annotations

from pathlib import Path

from service.auth.tokens import TokenStore
from tests.auth.oauth.oauth_http import (
    BASE,
    McpSession,
    approve,
    authorize,
    exchange,
    oauth_settings,
    page_session,
    register,
    serving,
)

ALICE, BOB = 1, 2


async def test_metadata_documents_name_this_server_from_the_settings(tmp_path: Path) -> None:
    settings = oauth_settings(tmp_path, public_url="https://memory.example.com")
    async with serving(settings) as client:
        # The Host header says otherwise: the documents still name the public URL.
        server = (await client.get("/.well-known/oauth-authorization-server", headers={"Host": "evil.test"})).json()
        assert server["issuer"] == "https://memory.example.com"
        assert server["token_endpoint"] == "https://memory.example.com/token"
        assert server["registration_endpoint"] == "https://memory.example.com/register"
        assert server["revocation_endpoint"] == "https://memory.example.com/revoke"
        assert server["code_challenge_methods_supported"] == ["S256"]
        assert server["scopes_supported"] == ["memory:read", "memory:write", "memory:control"]
        for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
            resource = (await client.get(path)).json()
            assert resource["resource"] == "https://memory.example.com/mcp"
            assert resource["authorization_servers"] == ["https://memory.example.com"]


async def test_a_call_without_a_token_is_answered_401_pointing_at_the_metadata(tmp_path: Path) -> None:
    settings = oauth_settings(tmp_path)
    TokenStore(settings.tokens_path).create("user", [ALICE])  # tokens are required from now on
    async with serving(settings) as client:
        answer = await client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"] == (
            f'Bearer resource_metadata="{BASE}/.well-known/oauth-protected-resource"'
        )


async def test_the_whole_flow_then_a_tool_call_refresh_and_revocation(tmp_path: Path) -> None:
    settings = oauth_settings(tmp_path)
    user_token, _ = TokenStore(settings.tokens_path).create("user", [ALICE])
    async with serving(settings) as client:
        client_id = await register(client)
        request_id = await authorize(client, client_id)
        csrf = await page_session(client, user_token)
        shown = (await client.get(f"/ui/api/oauth/requests/{request_id}")).json()
        assert shown == {
            "client_name": "Test connector",
            "redirect_origin": "http://127.0.0.1:40111",
            "scopes": ["memory:read", "memory:write"],
            "users": [{"user_id": ALICE, "held_scopes": []}],
        }
        code = await approve(client, request_id, csrf)
        tokens = (await exchange(client, client_id, code)).json()
        assert tokens["token_type"] == "Bearer" and tokens["scope"] == "memory:read memory:write"

        session = McpSession(client, tokens["access_token"])
        await session.open()
        written = await session.envelope("memory_update_profile", {"user_id": ALICE, "patch": {"a": 1}, "reason": "t"})
        assert written["success"], written
        read = await session.envelope("memory_get_profile", {"user_id": ALICE})
        assert read["success"] and read["result"]["profile"] == {"a": 1}

        refreshed = await client.post(
            "/token",
            data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": client_id},
        )
        assert refreshed.status_code == 200, refreshed.text
        renewed = refreshed.json()
        assert renewed["refresh_token"] != tokens["refresh_token"]
        assert (await McpSession(client, tokens["access_token"]).post({})).status_code == 401

        revoked = await client.post("/revoke", data={"token": renewed["refresh_token"], "client_id": client_id})
        assert revoked.status_code == 200
        after = await McpSession(client, renewed["access_token"]).post({})
        assert after.status_code == 401 and 'error="invalid_token"' in after.headers["www-authenticate"]


async def test_the_audit_trail_names_the_client_that_wrote(tmp_path: Path) -> None:
    settings = oauth_settings(tmp_path)
    user_token, _ = TokenStore(settings.tokens_path).create("user", [ALICE])
    operator, _ = TokenStore(settings.tokens_path).create("operator", [])
    async with serving(settings) as client:
        client_id = await register(client)
        code = await approve(client, await authorize(client, client_id), await page_session(client, user_token))
        session = McpSession(client, (await exchange(client, client_id, code)).json()["access_token"])
        await session.open()
        assert (await session.envelope("memory_update_profile", {"user_id": ALICE, "patch": {"a": 1}, "reason": "t"}))[
            "success"
        ]
        client.cookies.clear()
        csrf = await page_session(client, operator)
        audit = await client.post("/ui/api/tools/ops_audit", json={"user_id": ALICE}, headers={"X-CSRF-Token": csrf})
        entries = audit.json()["result"]["entries"]
        assert {e["principal"] for e in entries} == {f"oauth:{client_id}"}, entries


async def test_the_page_lists_connected_clients_and_revokes_them(tmp_path: Path) -> None:
    settings = oauth_settings(tmp_path)
    alice, _ = TokenStore(settings.tokens_path).create("user", [ALICE])
    bob, _ = TokenStore(settings.tokens_path).create("user", [BOB])
    async with serving(settings) as client:
        client_id = await register(client)
        csrf = await page_session(client, alice)
        code = await approve(client, await authorize(client, client_id), csrf)
        access = (await exchange(client, client_id, code)).json()["access_token"]
        await McpSession(client, access).open()  # a use, so the listing shows one
        [row] = (await client.get("/ui/api/oauth/clients")).json()["clients"]
        assert (row["client_id"], row["client_name"], row["user_id"]) == (client_id, "Test connector", ALICE)
        assert row["scopes"] == ["memory:read", "memory:write"] and row["last_used_at"]

        client.cookies.clear()
        bob_csrf = await page_session(client, bob)
        assert (await client.get("/ui/api/oauth/clients")).json() == {"clients": []}
        taken = await client.post(f"/ui/api/oauth/clients/{client_id}/revoke", headers={"X-CSRF-Token": bob_csrf})
        assert taken.status_code == 404  # Alice's client is no client of Bob's
        assert (await McpSession(client, access).post({})).status_code != 401

        client.cookies.clear()
        csrf = await page_session(client, alice)
        revoked = await client.post(f"/ui/api/oauth/clients/{client_id}/revoke", headers={"X-CSRF-Token": csrf})
        assert revoked.json() == {"revoked": client_id}
        assert (await McpSession(client, access).post({})).status_code == 401
        assert (await client.get("/ui/api/oauth/clients")).json() == {"clients": []}


async def test_the_open_loopback_mode_stays_open_with_oauth_on(tmp_path: Path) -> None:
    async with serving(oauth_settings(tmp_path)) as client:  # no token file: every local caller is answered
        session = McpSession(client, "")
        await session.open()
        assert (await session.envelope("memory_get_profile", {"user_id": ALICE}))["success"]
