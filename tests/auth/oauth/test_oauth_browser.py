"""The whole OAuth flow as a person meets it: the MCP Python SDK's OAuth client against a served
subprocess whose default settings turn OAuth on (tokens exist), and the memory page in Chromium
(Playwright). The client's redirect handler opens the authorization URL in the browser, which
signs in with a user token, sees the app's name and scopes, and approves; the page sends the
browser to the client's loopback redirect URI, intercepted here, which hands the code to the
client's callback handler. Then a tool call, a refresh, a disconnect from the Overview's
Connected apps card (the old token answers 401), and a consent the person denies: the client
gets ``access_denied`` and its write never happens."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

from service.settings import Settings
from tests.auth.oauth.test_oauth_sdk_client import MemoryStorage, leaves
from tests.support.mcp_sessions import WireCaller, streamable_http_session
from tests.support.server_process import CALL_TIMEOUT, ServerProcess, running_server
from tests.support.tokens import create_token, token_env
from tests.ui.browser import ACTION_TIMEOUT_MS, VIEWPORT, PageErrors, launch, settled

pytestmark = pytest.mark.slow

ALICE = 1
APP_ORIGIN = "http://127.0.0.1:40177"  # the client's loopback listener; the browser's visit is intercepted
REDIRECT = APP_ORIGIN + "/callback"
ALL_SCOPES = ["memory:read", "memory:write", "memory:control"]


class Person:
    """A browser context (one cookie jar) with the person in it: answers each consent it is sent to."""

    def __init__(self, context: Any, user_token: str) -> None:
        self.context = context
        self.user_token = user_token
        self.verdict = "approve"
        self.shown: list[dict[str, Any]] = []  # what each consent view showed
        self.returned: list[dict[str, list[str]]] = []  # the query each return to the app carried
        self.errors: list[PageErrors] = []
        self._arrived: asyncio.Future[str] | None = None

    async def start(self) -> None:
        await self.context.route(lambda url: url.startswith(APP_ORIGIN + "/"), self._at_the_app)

    async def _at_the_app(self, route: Any) -> None:
        if self._arrived is not None and not self._arrived.done():
            self._arrived.set_result(route.request.url)
        await route.fulfill(status=200, content_type="text/html", body="<p>Connected: you may close this tab.</p>")

    async def redirected_to(self, authorization_url: str) -> None:
        from playwright.async_api import expect

        self._arrived = asyncio.get_running_loop().create_future()
        page = await self.context.new_page()
        self.errors.append(PageErrors(page))
        await page.goto(authorization_url)  # /authorize answers 302 to the page's consent view
        client, token_input = page.get_by_test_id("consent-client"), page.get_by_test_id("token-input")
        await expect(client.or_(token_input)).to_be_visible()
        if await token_input.is_visible():
            await expect(page.get_by_test_id("consent-sign-in")).to_be_visible()
            await token_input.fill(self.user_token)
            await page.get_by_test_id("sign-in").click()
        await expect(client).to_be_visible()
        scopes = page.get_by_test_id("consent-scope")
        self.shown.append(
            {
                "client": await client.text_content(),
                "origin": await page.get_by_test_id("consent-origin").text_content(),
                "scopes": [await s.get_attribute("data-scope") for s in await scopes.all()],
                "words": await scopes.all_text_contents(),
            }
        )
        await page.get_by_test_id(f"consent-{self.verdict}").click()

    async def callback(self) -> AuthorizationCodeResult:
        assert self._arrived is not None
        url = await asyncio.wait_for(self._arrived, CALL_TIMEOUT)
        assert url.startswith(REDIRECT + "?"), url
        query = parse_qs(urlsplit(url).query)
        self.returned.append(query)
        if "error" in query:  # what a real client does with a refusal on its redirect
            raise OAuthFlowError(f"authorization refused: {query['error'][0]}")
        return AuthorizationCodeResult(code=query["code"][0], state=query["state"][0], iss=query.get("iss", [None])[0])


def connector(server: ServerProcess, person: Person, storage: MemoryStorage) -> OAuthClientProvider:
    metadata = OAuthClientMetadata(
        client_name="Browser connector", redirect_uris=[REDIRECT], grant_types=["authorization_code", "refresh_token"],
        response_types=["code"], token_endpoint_auth_method="none",
    )  # fmt: skip
    return OAuthClientProvider(server.mcp_url, metadata, storage, person.redirected_to, person.callback)


async def disconnect_on_the_page(person: Person, server: ServerProcess) -> None:
    from playwright.async_api import expect

    page = await person.context.new_page()
    person.errors.append(PageErrors(page))
    await page.goto(server.base_url + "/ui/#/overview")
    await settled(page)
    row = page.get_by_test_id("connected-client")
    await expect(row).to_have_count(1)
    await expect(row.get_by_test_id("connected-name")).to_have_text("Browser connector")
    await expect(row.get_by_test_id("connected-scope")).to_have_text(["read", "write", "control"])
    await expect(row.get_by_test_id("connected-last-use")).not_to_have_text("not used yet")
    await row.get_by_test_id("revoke-client").click()
    await page.get_by_test_id("confirm").click()
    await expect(page.get_by_test_id("connected-none")).to_be_visible()
    await page.close()


async def test_a_person_connects_an_sdk_client_in_the_browser_then_disconnects_it(
    settings: Settings, tmp_path: Path
) -> None:
    token_file = tmp_path / "secrets" / "tokens.json"
    user_token, _ = create_token(token_file, ALICE)
    # No MEMORY_OAUTH: the default turns OAuth on, since tokens are required.
    with running_server(settings, tmp_path, transport="streamable-http", extra_env=token_env(token_file)) as server:
        async with launch() as browser:
            context = await browser.new_context(base_url=server.base_url, viewport=VIEWPORT)
            context.set_default_timeout(ACTION_TIMEOUT_MS)
            person, storage = Person(context, user_token), MemoryStorage()
            await person.start()
            auth = connector(server, person, storage)
            async with create_mcp_http_client(auth=auth) as http:
                transport = streamable_http_client(server.mcp_url, http_client=http)
                async with Client(transport, cache=None, read_timeout_seconds=CALL_TIMEOUT) as client:  # type: ignore[arg-type]
                    call = WireCaller(client)
                    await call.ok("memory_update_profile", {"user_id": ALICE, "patch": {"a": 1}, "reason": "app"})
                    [shown] = person.shown
                    assert shown["client"] == "Browser connector" and shown["origin"] == APP_ORIGIN
                    assert shown["scopes"] == ALL_SCOPES and all(
                        w.startswith(("Read", "Add", "Control")) for w in shown["words"]
                    )
                    first = storage.tokens
                    assert first is not None and first.refresh_token

                    auth.context.token_expiry_time = time.time() - 1  # as an hour passing would
                    assert (await call.ok("memory_get_profile", {"user_id": ALICE}))["profile"] == {"a": 1}
                    assert storage.tokens is not None and storage.tokens.refresh_token != first.refresh_token
                    assert len(person.shown) == 1  # refreshed, not asked again

            await disconnect_on_the_page(person, server)
            assert storage.tokens is not None
            async with httpx.AsyncClient() as plain:
                stale = await plain.post(
                    server.mcp_url, json={}, headers={"Authorization": f"Bearer {storage.tokens.access_token}"}
                )
                assert stale.status_code == 401 and "resource_metadata=" in stale.headers["www-authenticate"]

            # The client comes back, is refused, goes to consent again: the person denies.
            person.verdict = "deny"
            with pytest.raises(BaseException) as failed:
                async with create_mcp_http_client(auth=auth) as http:
                    transport = streamable_http_client(server.mcp_url, http_client=http)
                    async with Client(transport, cache=None, read_timeout_seconds=CALL_TIMEOUT) as client:  # type: ignore[arg-type]
                        await client.call_tool(
                            "memory_update_profile", {"user_id": ALICE, "patch": {"b": 2}, "reason": "x"}
                        )
            assert any("access_denied" in str(e) for e in leaves(failed.value)), failed.value
            assert len(person.shown) == 2 and person.returned[-1]["error"] == ["access_denied"]
            assert all(not errors.unexpected() for errors in person.errors), [e.messages for e in person.errors]
            await context.close()

        async with streamable_http_session(server, user_token) as call:
            profile = await call.ok("memory_get_profile", {"user_id": ALICE})
            assert (profile["profile"], profile["version"]) == ({"a": 1}, 1)  # the refused write left no trace
