"""The consent view's choices in Chromium, against a served subprocess (OAuth on by default): a
token of two users picks whose memory an app reaches, a second request marks only the scopes
the app does not hold yet for that user as new, and an unknown or answered request says it is no
longer open. The app here is plain HTTP (registration, /authorize, the code exchange)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from service.auth.oauth.checks import s256
from service.settings import Settings
from tests.support.server_process import running_server
from tests.support.tokens import create_token, token_env
from tests.ui.browser import ACTION_TIMEOUT_MS, VIEWPORT, PageErrors, launch

pytestmark = pytest.mark.slow

ALICE, BOB = 1, 2
APP = "http://127.0.0.1:40178"
REDIRECT = APP + "/callback"
VERIFIER = "a-verifier-of-at-least-forty-three-characters-0456"


async def consent_url(http: httpx.AsyncClient, client_id: str, scope: str) -> str:
    params = {
        "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "state": "s1", "scope": scope,
        "code_challenge": s256(VERIFIER), "code_challenge_method": "S256",
    }  # fmt: skip
    answer = await http.get("/authorize", params=params)
    assert answer.status_code == 302, answer.text
    return str(answer.headers["location"])


async def test_whose_memory_and_what_is_new_are_the_persons_choice(settings: Settings, tmp_path: Path) -> None:
    from playwright.async_api import expect

    token_file = tmp_path / "secrets" / "tokens.json"
    both, _ = create_token(token_file, ALICE, BOB)
    with running_server(settings, tmp_path, transport="streamable-http", extra_env=token_env(token_file)) as server:
        async with httpx.AsyncClient(base_url=server.base_url) as http, launch() as browser:
            registered = await http.post(
                "/register",
                json={"redirect_uris": [REDIRECT], "client_name": "Two-user app", "token_endpoint_auth_method": "none"},
            )
            client_id = registered.json()["client_id"]
            context = await browser.new_context(base_url=server.base_url, viewport=VIEWPORT)
            context.set_default_timeout(ACTION_TIMEOUT_MS)
            returned: list[str] = []

            async def at_the_app(route: Any) -> None:
                returned.append(route.request.url)
                await route.fulfill(status=200, content_type="text/html", body="<p>back at the app</p>")

            await context.route(lambda url: url.startswith(APP + "/"), at_the_app)
            page = await context.new_page()
            errors = PageErrors(page)

            await page.goto(await consent_url(http, client_id, "memory:read"))
            await page.get_by_test_id("token-input").fill(both)
            await page.get_by_test_id("sign-in").click()
            await expect(page.get_by_test_id("consent-client")).to_have_text("Two-user app")
            await page.get_by_test_id("consent-user").select_option(str(BOB))
            await expect(page.get_by_test_id("consent-scope")).to_have_count(1)
            await expect(page.locator('[data-testid="consent-scope"][data-new]')).to_have_count(0)
            await page.get_by_test_id("consent-approve").click()
            await page.wait_for_url(lambda url: url.startswith(REDIRECT))
            assert len(returned) == 1
            code = parse_qs(urlsplit(returned[0]).query)["code"][0]
            exchanged = await http.post(
                "/token",
                data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                      "client_id": client_id, "code_verifier": VERIFIER},
            )  # fmt: skip
            assert exchanged.status_code == 200 and exchanged.json()["scope"] == "memory:read", exchanged.text

            # The app asks again, for more: for Bob only "write" is new; Alice holds nothing yet.
            await page.goto(await consent_url(http, client_id, "memory:read memory:write"))
            await page.get_by_test_id("consent-user").select_option(str(BOB))
            new = page.locator('[data-testid="consent-scope"][data-new="true"]')
            await expect(new).to_have_count(1)
            await expect(new).to_have_attribute("data-scope", "memory:write")
            await expect(page.get_by_test_id("consent-held")).to_be_visible()
            await page.get_by_test_id("consent-user").select_option(str(ALICE))
            await expect(new).to_have_count(0)
            await page.get_by_test_id("consent-deny").click()
            await page.wait_for_url(lambda url: url.startswith(REDIRECT))
            assert len(returned) == 2
            assert parse_qs(urlsplit(returned[1]).query)["error"] == ["access_denied"]

            await page.goto("/ui/#/consent/no-such-request")
            await expect(page.get_by_test_id("consent-gone")).to_be_visible()
            assert not errors.unexpected("404"), errors.messages  # only the unknown request's
            await context.close()
