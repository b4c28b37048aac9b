"""Driving the OAuth flow through the ASGI app in process: a registered client, a consent
approved on the page API with a user token's session, the code exchanged, MCP calls over
streamable HTTP with the access token (raw JSON-RPC: each POST's stream ends with its answer)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
from jsonschema import Draft202012Validator

from host.app import build_app
from models.schema_files import envelope_schema, success_envelope_schema
from service.auth.oauth.checks import s256
from service.settings import Settings
from tests.support.mcp_sessions import FORMATS, prd_name

BASE = "http://127.0.0.1:8765"
RESOURCE = BASE + "/mcp"
REDIRECT = "http://127.0.0.1:40111/callback"
VERIFIER = "a-verifier-of-at-least-forty-three-characters-0123"
ACCEPT = {"Accept": "application/json, text/event-stream"}


def oauth_settings(tmp_path: Path, **overrides: Any) -> Settings:
    return Settings(
        data_dir=tmp_path / "data", transport="streamable-http", oauth="on", semantic_search="off",
        search_warmup=False, aging_interval_s=0, **overrides,
    )  # fmt: skip


@asynccontextmanager
async def serving(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app, _, _ = build_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url=BASE) as client,
    ):
        yield client


async def register(client: httpx.AsyncClient, name: str = "Test connector") -> str:
    answer = await client.post(
        "/register", json={"redirect_uris": [REDIRECT], "client_name": name, "token_endpoint_auth_method": "none"}
    )
    assert answer.status_code == 201, answer.text
    return str(answer.json()["client_id"])


async def authorize(client: httpx.AsyncClient, client_id: str, scope: str | None = None, **extra: str) -> str:
    """The consent request id the authorization endpoint redirected the browser to."""
    params = {
        "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "state": "xyz",
        "code_challenge": s256(VERIFIER), "code_challenge_method": "S256", "resource": RESOURCE, **extra,
    }  # fmt: skip
    if scope is not None:
        params["scope"] = scope
    answer = await client.get("/authorize", params=params)
    assert answer.status_code == 302, answer.text
    location = answer.headers["location"]
    assert location.startswith(BASE + "/ui/#/consent/"), location
    return location.rsplit("/", 1)[1]


async def page_session(client: httpx.AsyncClient, token: str) -> str:
    answer = await client.post("/ui/api/session", json={"token": token})
    assert answer.status_code == 200, answer.text
    return str(answer.json()["csrf"])


async def approve(client: httpx.AsyncClient, request_id: str, csrf: str, body: dict[str, Any] | None = None) -> str:
    """The code the client's redirect receives."""
    answer = await client.post(
        f"/ui/api/oauth/requests/{request_id}/approve", json=body or {}, headers={"X-CSRF-Token": csrf}
    )
    assert answer.status_code == 200, answer.text
    query = parse_qs(urlsplit(answer.json()["redirect"]).query)
    assert query["state"] == ["xyz"]
    return query["code"][0]


async def exchange(client: httpx.AsyncClient, client_id: str, code: str, verifier: str = VERIFIER) -> httpx.Response:
    return await client.post(
        "/token",
        data={
            "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "client_id": client_id,
            "code_verifier": verifier, "resource": RESOURCE,
        },
    )  # fmt: skip


@dataclass
class McpSession:
    client: httpx.AsyncClient
    token: str
    session_id: str | None = None
    next_id: int = 1

    async def post(self, message: dict[str, Any]) -> httpx.Response:
        headers = {**ACCEPT, **({"Authorization": f"Bearer {self.token}"} if self.token else {})}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        return await self.client.post("/mcp", json=message, headers=headers)

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        answer = await self.post({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert answer.status_code == 200, (answer.status_code, answer.text)
        self.session_id = answer.headers.get("mcp-session-id", self.session_id)
        if answer.headers["content-type"].startswith("application/json"):
            return dict(answer.json())
        data = [line[5:].strip() for line in answer.text.splitlines() if line.startswith("data:")]
        return dict(json.loads(data[-1]))

    async def open(self) -> None:
        await self.request(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "oauth-test", "version": "1"}},
        )
        await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def envelope(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The tool's envelope, checked against its published schema as an agent would read it."""
        reply = await self.request("tools/call", {"name": tool, "arguments": arguments})
        envelope = dict(reply["result"]["structuredContent"])
        schema = success_envelope_schema(prd_name(tool)) if envelope.get("success") else envelope_schema()
        errors = [e.message for e in Draft202012Validator(schema, format_checker=FORMATS).iter_errors(envelope)]
        assert not errors, (tool, errors[:3], envelope)
        return envelope
