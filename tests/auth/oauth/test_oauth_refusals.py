"""Each refusal the issue names, through the ASGI app, each with nothing written: a read-only
grant writing, user 1's grant reading user 2, a token for another resource, a reused or
mis-verified code, an unregistered redirect, a denied consent, an operator's page session."""

from __future__ import annotations

from pathlib import Path

import httpx

from service.auth.oauth.checks import s256
from service.auth.oauth.server import Audience, AuthorizationServer
from service.auth.oauth.store import OAuthStore
from service.auth.tokens import TokenStore
from service.settings import Settings
from tests.auth.oauth.oauth_http import (
    REDIRECT,
    RESOURCE,
    VERIFIER,
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


async def granted(settings: Settings, client: httpx.AsyncClient, scope: str | None = None, user: int = ALICE) -> str:
    """An access token for ``user`` (a user token of theirs signs the page in)."""
    user_token, _ = TokenStore(settings.tokens_path).create("user", [user])
    client_id = await register(client)
    request_id = await authorize(client, client_id, scope)
    code = await approve(client, request_id, await page_session(client, user_token))
    client.cookies.clear()
    answer = await exchange(client, client_id, code)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["access_token"])


async def test_a_read_grant_cannot_write_and_nothing_is_written(tmp_path: Path) -> None:
    settings = oauth_settings(tmp_path)
    async with serving(settings) as client:
        session = McpSession(client, await granted(settings, client, "memory:read"))
        await session.open()
        refused = await session.envelope("memory_update_profile", {"user_id": ALICE, "patch": {"a": 1}, "reason": "t"})
        assert not refused["success"] and refused["error"]["code"] == "FORBIDDEN"
        read = await session.envelope("memory_get_profile", {"user_id": ALICE})
        assert read["success"] and read["result"]["profile"] == {}


async def test_control_tools_need_the_control_scope(tmp_path: Path) -> None:
    settings = oauth_settings(tmp_path)
    async with serving(settings) as client:
        session = McpSession(client, await granted(settings, client))
        await session.open()
        refused = await session.envelope("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
        assert refused["error"]["code"] == "FORBIDDEN"


async def test_a_grant_for_user_1_reading_user_2_is_forbidden_as_a_user_token_is(tmp_path: Path) -> None:
    settings = oauth_settings(tmp_path)
    async with serving(settings) as client:
        session = McpSession(client, await granted(settings, client, user=ALICE))
        await session.open()
        for user_id in (BOB, 999):  # someone with data and no one: the same answer
            answer = await session.envelope("memory_get_profile", {"user_id": user_id})
            assert answer["error"]["code"] == "FORBIDDEN" and answer["error"]["details"] == {"field": "user_id"}


async def test_a_token_for_another_resource_is_answered_401(tmp_path: Path) -> None:
    settings = oauth_settings(tmp_path)
    # A grant of the same grants file, issued for another server's resource.
    other = AuthorizationServer(
        OAuthStore(settings.tokens_path.with_name("oauth.json")), Audience("https://x.test/mcp")
    )
    client_record = other.register([REDIRECT], "Elsewhere", {})
    request = other.begin(client_record.client_id, REDIRECT, s256(VERIFIER), None, None, None)
    _, code = other.approve(request.request_id, ALICE)
    foreign = other.exchange(client_record.client_id, code, VERIFIER, REDIRECT)
    TokenStore(settings.tokens_path).create("user", [ALICE])  # tokens are required
    async with serving(settings) as client:
        answer = await McpSession(client, foreign.access_token).post({})
        assert answer.status_code == 401 and 'error="invalid_token"' in answer.headers["www-authenticate"]


async def test_reused_and_mis_verified_codes_are_invalid_grant(tmp_path: Path) -> None:
    settings = oauth_settings(tmp_path)
    user_token, _ = TokenStore(settings.tokens_path).create("user", [ALICE])
    async with serving(settings) as client:
        csrf = await page_session(client, user_token)
        client_id = await register(client)
        code = await approve(client, await authorize(client, client_id), csrf)
        wrong = await exchange(client, client_id, code, verifier="b" * 43)
        assert (wrong.status_code, wrong.json()["error"]) == (400, "invalid_grant")
        code = await approve(client, await authorize(client, client_id), csrf)
        first = await exchange(client, client_id, code)
        assert first.status_code == 200
        again = await exchange(client, client_id, code)
        assert (again.status_code, again.json()["error"]) == (400, "invalid_grant")
        # The replay ended the grant the code had opened.
        assert (await McpSession(client, first.json()["access_token"]).post({})).status_code == 401


async def test_an_unregistered_redirect_is_refused_without_redirecting(tmp_path: Path) -> None:
    async with serving(oauth_settings(tmp_path)) as client:
        client_id = await register(client)
        answer = await client.get(
            "/authorize",
            params={"response_type": "code", "client_id": client_id, "redirect_uri": "https://evil.test/cb",
                    "code_challenge": "x" * 43, "code_challenge_method": "S256"},
        )  # fmt: skip
        assert answer.status_code == 400 and "location" not in answer.headers


async def test_a_denied_consent_redirects_with_access_denied_and_grants_nothing(tmp_path: Path) -> None:
    settings = oauth_settings(tmp_path)
    user_token, _ = TokenStore(settings.tokens_path).create("user", [ALICE])
    async with serving(settings) as client:
        csrf = await page_session(client, user_token)
        request_id = await authorize(client, await register(client))
        denied = await client.post(f"/ui/api/oauth/requests/{request_id}/deny", headers={"X-CSRF-Token": csrf})
        assert denied.json()["redirect"].startswith(REDIRECT + "?error=access_denied")
        assert "state=xyz" in denied.json()["redirect"]
        again = await client.post(f"/ui/api/oauth/requests/{request_id}/approve", headers={"X-CSRF-Token": csrf})
        assert again.status_code == 404
    grants = OAuthStore(settings.tokens_path.with_name("oauth.json")).state().grants
    assert grants == {}


async def test_only_a_user_session_with_its_csrf_approves(tmp_path: Path) -> None:
    settings = oauth_settings(tmp_path)
    operator, _ = TokenStore(settings.tokens_path).create("operator", [])
    both, _ = TokenStore(settings.tokens_path).create("user", [ALICE, BOB])
    async with serving(settings) as client:
        request_id = await authorize(client, await register(client))
        path = f"/ui/api/oauth/requests/{request_id}/approve"
        assert (await client.post(path)).status_code == 401  # no session
        csrf = await page_session(client, operator)
        assert (await client.post(path, headers={"X-CSRF-Token": csrf})).status_code == 403
        client.cookies.clear()
        csrf = await page_session(client, both)
        assert (await client.post(path)).status_code == 403  # no CSRF token
        assert (await client.post(path, headers={"X-CSRF-Token": csrf})).status_code == 400  # which user?
        assert (await client.post(path, json={"user_id": 3}, headers={"X-CSRF-Token": csrf})).status_code == 403
        code = await approve(client, request_id, csrf, {"user_id": BOB})
        client_id = next(iter(OAuthStore(settings.tokens_path.with_name("oauth.json")).state().clients))
        assert (await exchange(client, client_id, code)).status_code == 200
    [grant] = OAuthStore(settings.tokens_path.with_name("oauth.json")).state().grants.values()
    assert (grant.user_id, grant.resource) == (BOB, RESOURCE)


async def test_the_rate_limit_is_per_client(tmp_path: Path) -> None:
    settings = oauth_settings(tmp_path, rate_limit_per_minute=1, rate_limit_burst=2)
    async with serving(settings) as client:
        first = McpSession(client, await granted(settings, client))
        second = McpSession(client, await granted(settings, client))
        await first.open()
        await second.open()
        answers = [await first.envelope("memory_get_profile", {"user_id": ALICE}) for _ in range(3)]
        assert [a["success"] for a in answers] == [True, True, False]
        assert answers[2]["error"]["code"] == "RATE_LIMITED"
        assert (await second.envelope("memory_get_profile", {"user_id": ALICE}))["success"]
