"""Incremental consent: a client that already holds a grant for this person asks for more, and the
consent request says what it holds, per user the session covers, so the page can mark what is new.
Another person's grants are not shown (they are not this session's users)."""

from __future__ import annotations

from pathlib import Path

from service.auth.tokens import TokenStore
from tests.auth.oauth.oauth_http import approve, authorize, exchange, oauth_settings, page_session, register, serving

ALICE, BOB = 1, 2


async def test_a_second_request_shows_the_scopes_already_held(tmp_path: Path) -> None:
    settings = oauth_settings(tmp_path)
    alice, _ = TokenStore(settings.tokens_path).create("user", [ALICE])
    both, _ = TokenStore(settings.tokens_path).create("user", [ALICE, BOB])
    async with serving(settings) as client:
        client_id = await register(client)
        csrf = await page_session(client, alice)
        code = await approve(client, await authorize(client, client_id, scope="memory:read"), csrf)
        assert (await exchange(client, client_id, code)).status_code == 200

        request_id = await authorize(client, client_id, scope="memory:read memory:control")
        shown = (await client.get(f"/ui/api/oauth/requests/{request_id}")).json()
        assert shown["scopes"] == ["memory:read", "memory:control"]
        assert shown["users"] == [{"user_id": ALICE, "held_scopes": ["memory:read"]}]

        client.cookies.clear()
        await page_session(client, both)
        shown = (await client.get(f"/ui/api/oauth/requests/{request_id}")).json()
        assert shown["users"] == [
            {"user_id": ALICE, "held_scopes": ["memory:read"]},
            {"user_id": BOB, "held_scopes": []},
        ]


async def test_a_revoked_grant_is_no_longer_held(tmp_path: Path) -> None:
    settings = oauth_settings(tmp_path)
    alice, _ = TokenStore(settings.tokens_path).create("user", [ALICE])
    async with serving(settings) as client:
        client_id = await register(client)
        csrf = await page_session(client, alice)
        code = await approve(client, await authorize(client, client_id), csrf)
        assert (await exchange(client, client_id, code)).status_code == 200
        revoked = await client.post(f"/ui/api/oauth/clients/{client_id}/revoke", headers={"X-CSRF-Token": csrf})
        assert revoked.status_code == 200
        shown = (await client.get(f"/ui/api/oauth/requests/{await authorize(client, client_id)}")).json()
        assert shown["users"] == [{"user_id": ALICE, "held_scopes": []}]
