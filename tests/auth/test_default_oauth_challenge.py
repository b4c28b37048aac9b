"""OAuth is on by default whenever tokens are required: a call without a token is answered 401 with
``WWW-Authenticate: Bearer resource_metadata=…``, which is how an MCP client starts discovery. A
bearer token the server does not know is still answered in band (UNAUTHORIZED), the open loopback
mode stays open, and ``MEMORY_OAUTH=off`` keeps the in-band answer for a tokenless call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.auth.tokens import TokenStore
from service.settings import Settings
from tests.auth.oauth.oauth_http import BASE, McpSession, serving

ALICE = 1
CHALLENGE = f'Bearer resource_metadata="{BASE}/.well-known/oauth-protected-resource"'


def default_settings(tmp_path: Path, **overrides: Any) -> Settings:
    # No oauth setting: the default is what is under test.
    return Settings(
        data_dir=tmp_path / "data", semantic_search="off", search_warmup=False, aging_interval_s=0, **overrides
    )


@pytest.mark.parametrize(("transport", "method", "path"), [("streamable-http", "POST", "/mcp"), ("sse", "GET", "/sse")])
async def test_a_tokenless_call_is_a_401_that_starts_discovery(
    tmp_path: Path, transport: str, method: str, path: str
) -> None:
    settings = default_settings(tmp_path, transport=transport)
    TokenStore(settings.tokens_path).create("user", [ALICE])
    async with serving(settings) as client:
        answer = await client.request(method, path, headers={"Accept": "application/json, text/event-stream"})
        assert answer.status_code == 401, answer.text
        assert answer.headers["www-authenticate"] == CHALLENGE
        metadata = (await client.get("/.well-known/oauth-protected-resource")).json()
        assert metadata["resource"] == BASE + path and metadata["authorization_servers"] == [BASE]


async def test_an_unknown_bearer_token_is_still_answered_in_band(tmp_path: Path) -> None:
    settings = default_settings(tmp_path, transport="streamable-http")
    TokenStore(settings.tokens_path).create("user", [ALICE])
    async with serving(settings) as client:
        session = McpSession(client, "tm_000000000000_" + "x" * 43)
        await session.open()
        refused = await session.envelope("memory_get_profile", {"user_id": ALICE})
        assert refused["error"]["code"] == "UNAUTHORIZED"


async def test_the_open_loopback_mode_has_no_challenge(tmp_path: Path) -> None:
    async with serving(default_settings(tmp_path, transport="streamable-http")) as client:
        assert (await client.get("/.well-known/oauth-authorization-server")).status_code == 404
        session = McpSession(client, "")
        await session.open()
        assert (await session.envelope("memory_get_profile", {"user_id": ALICE}))["success"]


async def test_oauth_off_answers_a_tokenless_call_in_band(tmp_path: Path) -> None:
    settings = default_settings(tmp_path, transport="streamable-http", oauth="off")
    TokenStore(settings.tokens_path).create("user", [ALICE])
    async with serving(settings) as client:
        assert (await client.get("/.well-known/oauth-authorization-server")).status_code == 404
        session = McpSession(client, "")
        await session.open()
        refused = await session.envelope("memory_get_profile", {"user_id": ALICE})
        assert refused["error"]["code"] == "UNAUTHORIZED"
