"""The MCP Python SDK's own OAuth client against a served subprocess: discovery from the 401,
registration, authorization with the consent answered on the page API by a signed-in user token
(the browser's part without a browser: test_oauth_browser.py drives the view), code exchange, tool calls, a refresh when the
access token has run out, and revocation: the old token is refused and the client is sent back
to consent, which the person now denies."""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from service.settings import Settings
from tests.support.mcp_sessions import WireCaller
from tests.support.server_process import CALL_TIMEOUT, ServerProcess, running_server
from tests.support.tokens import create_token, token_env

pytestmark = pytest.mark.slow

ALICE = 1
REDIRECT = "http://127.0.0.1:40123/callback"


class MemoryStorage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class Person:
    """The browser and the person in it: signs in with their user token and answers the consent."""

    def __init__(self, server: ServerProcess, user_token: str) -> None:
        self.server = server
        self.user_token = user_token
        self.approve = True
        self.consents: list[dict[str, object]] = []
        self.answer: AuthorizationCodeResult | None = None

    async def redirected_to(self, authorization_url: str) -> None:
        async with httpx.AsyncClient(base_url=self.server.base_url) as browser:
            to_consent = await browser.get(authorization_url)
            assert to_consent.status_code == 302, to_consent.text
            request_id = to_consent.headers["location"].split("/ui/#/consent/", 1)[1]
            signed_in = await browser.post("/ui/api/session", json={"token": self.user_token})
            assert signed_in.status_code == 200, signed_in.text
            csrf = signed_in.json()["csrf"]
            self.consents.append((await browser.get(f"/ui/api/oauth/requests/{request_id}")).json())
            verdict = "approve" if self.approve else "deny"
            answered = await browser.post(
                f"/ui/api/oauth/requests/{request_id}/{verdict}", headers={"X-CSRF-Token": csrf}
            )
            assert answered.status_code == 200, answered.text
            query = parse_qs(urlsplit(answered.json()["redirect"]).query)
        self.answer = AuthorizationCodeResult(
            code=query.get("code", [""])[0], state=query["state"][0], iss=query.get("iss", [None])[0]
        )

    async def callback(self) -> AuthorizationCodeResult:
        assert self.answer is not None
        return self.answer


def connector(server: ServerProcess, person: Person, storage: MemoryStorage) -> OAuthClientProvider:
    metadata = OAuthClientMetadata(
        client_name="SDK connector", redirect_uris=[REDIRECT], grant_types=["authorization_code", "refresh_token"],
        response_types=["code"], token_endpoint_auth_method="none",
    )  # fmt: skip
    return OAuthClientProvider(server.mcp_url, metadata, storage, person.redirected_to, person.callback)


async def test_the_sdk_oauth_client_connects_refreshes_and_is_cut_off(settings: Settings, tmp_path: Path) -> None:
    token_file = tmp_path / "secrets" / "tokens.json"
    user_token, _ = create_token(token_file, ALICE)
    env = {**token_env(token_file), "MEMORY_OAUTH": "on"}
    with running_server(settings, tmp_path, transport="streamable-http", extra_env=env) as server:
        person, storage = Person(server, user_token), MemoryStorage()
        auth = connector(server, person, storage)
        async with create_mcp_http_client(auth=auth) as http:
            transport = streamable_http_client(server.mcp_url, http_client=http)
            async with Client(transport, cache=None, read_timeout_seconds=CALL_TIMEOUT) as client:  # type: ignore[arg-type]
                call = WireCaller(client)
                await call.ok("memory_update_profile", {"user_id": ALICE, "patch": {"a": 1}, "reason": "sdk"})
                assert (await call.ok("memory_get_profile", {"user_id": ALICE}))["profile"] == {"a": 1}
                assert person.consents == [
                    {"client_name": "SDK connector", "redirect_origin": "http://127.0.0.1:40123",
                     "scopes": ["memory:read", "memory:write", "memory:control"],
                     "users": [{"user_id": ALICE, "held_scopes": []}]}
                ]  # fmt: skip
                first = storage.tokens
                assert first is not None and first.refresh_token

                auth.context.token_expiry_time = time.time() - 1  # as an hour passing would
                await call.ok("memory_get_profile", {"user_id": ALICE})
                assert storage.tokens is not None and storage.tokens.refresh_token != first.refresh_token
                assert len(person.consents) == 1  # refreshed, not authorized again

                async with httpx.AsyncClient() as plain:
                    revoked = await plain.post(
                        f"{server.base_url}/revoke",
                        data={"token": storage.tokens.refresh_token, "client_id": storage.client_info.client_id},  # type: ignore[union-attr]
                    )
                    assert revoked.status_code == 200
                    stale = await plain.post(
                        server.mcp_url, json={}, headers={"Authorization": f"Bearer {storage.tokens.access_token}"}
                    )
                    assert stale.status_code == 401
        # The next connection finds its tokens revoked, cannot refresh, and goes back to consent.
        person.approve = False
        with pytest.raises(BaseException) as failed:
            async with create_mcp_http_client(auth=auth) as http:
                transport = streamable_http_client(server.mcp_url, http_client=http)
                async with Client(transport, cache=None, read_timeout_seconds=CALL_TIMEOUT) as client:  # type: ignore[arg-type]
                    await client.call_tool("memory_get_profile", {"user_id": ALICE})
        assert any(isinstance(e, OAuthFlowError) for e in leaves(failed.value)), failed.value
        assert len(person.consents) == 2


def leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]
