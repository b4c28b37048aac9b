"""OAuth on the SSE transport, served: the resource is /sse, a GET /sse without a token is the
401 that starts discovery, and the SDK's SSE client calls tools with an access token (its every
POST to /messages/ carries it), within the grant's scopes."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from service.auth.oauth.checks import s256
from service.settings import Settings
from tests.support.mcp_sessions import sse_session
from tests.support.server_process import ServerProcess, running_server
from tests.support.tokens import create_token, token_env

pytestmark = pytest.mark.slow

ALICE = 1
REDIRECT = "http://127.0.0.1:40124/callback"
VERIFIER = "an-sse-verifier-of-at-least-forty-three-characters"


async def access_token(server: ServerProcess, user_token: str, scope: str) -> str:
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        registered = await http.post(
            "/register", json={"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}
        )
        client_id = registered.json()["client_id"]
        to_consent = await http.get(
            "/authorize",
            params={"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "state": "s",
                    "code_challenge": s256(VERIFIER), "code_challenge_method": "S256", "scope": scope,
                    "resource": server.sse_url},
        )  # fmt: skip
        request_id = to_consent.headers["location"].split("/ui/#/consent/", 1)[1]
        csrf = (await http.post("/ui/api/session", json={"token": user_token})).json()["csrf"]
        approved = await http.post(f"/ui/api/oauth/requests/{request_id}/approve", headers={"X-CSRF-Token": csrf})
        code = parse_qs(urlsplit(approved.json()["redirect"]).query)["code"][0]
        tokens = await http.post(
            "/token",
            data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                  "client_id": client_id, "code_verifier": VERIFIER},
        )  # fmt: skip
        assert tokens.status_code == 200, tokens.text
        return str(tokens.json()["access_token"])


async def test_oauth_tokens_on_sse(settings: Settings, tmp_path: Path) -> None:
    token_file = tmp_path / "secrets" / "tokens.json"
    user_token, _ = create_token(token_file, ALICE)
    env = {**token_env(token_file), "MEMORY_OAUTH": "on"}
    with running_server(settings, tmp_path, transport="sse", extra_env=env) as server:
        async with httpx.AsyncClient() as http:
            challenge = await http.get(server.sse_url)
            assert challenge.status_code == 401
            assert f"{server.base_url}/.well-known/oauth-protected-resource" in challenge.headers["www-authenticate"]
            metadata = (await http.get(f"{server.base_url}/.well-known/oauth-protected-resource")).json()
            assert metadata["resource"] == server.sse_url

        reader = await access_token(server, user_token, "memory:read")
        async with sse_session(server, reader) as call:
            await call.ok("memory_get_profile", {"user_id": ALICE})
            await call.error("memory_update_profile", {"user_id": ALICE, "patch": {"a": 1}, "reason": "r"}, "FORBIDDEN")
        writer = await access_token(server, user_token, "memory:read memory:write")
        async with sse_session(server, writer) as call:
            await call.ok("memory_update_profile", {"user_id": ALICE, "patch": {"a": 1}, "reason": "w"})
            assert (await call.ok("memory_get_profile", {"user_id": ALICE}))["profile"] == {"a": 1}
