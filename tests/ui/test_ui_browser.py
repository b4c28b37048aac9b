"""The memory page in a real browser: Playwright driving Debian's Chromium against a ``serve
--transport sse`` process whose tokens were made with ``memory-service token create``, with MCP
over SSE as the other side of every check: sign-in, the kill switch, CSRF, hostile names, search
and isolation between users' tokens.

One server and one browser per module (the ``world`` fixture of this folder's conftest); each
token gets its own browser context (cookie jar). Every test seeds its own users' data, so the
tests do not depend on their order or on sharing a worker.
"""

from __future__ import annotations

import json

import pytest

from tests.support import playlist, track
from tests.ui.browser import new_page, screenshot, settled, sign_in
from tests.ui.page_world import HOSTILE, HOSTILE_USER, KEPT, NEVER, OTHER, World, choose_user, same_user_removed, show

# One server and one browser per module and worker: the group keeps the module on one worker when
# the suite runs with --dist loadgroup (under plain "load" it still works, with one world per worker).
pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]


async def test_sign_in_refuses_a_wrong_token_with_a_message_and_admits_a_right_one(world: World) -> None:
    from playwright.async_api import expect

    page, errors = await new_page(world.browser, world.server.base_url)
    try:
        await expect(page.get_by_test_id("token-input")).to_have_attribute("type", "password")
        await expect(page.get_by_test_id("nav-overview")).to_be_hidden()
        await screenshot(page, "sign-in")
        await page.get_by_test_id("token-input").fill(world.tokens["other"][:-3] + "xyz")
        await page.get_by_test_id("sign-in").click()
        await expect(page.get_by_test_id("error")).to_contain_text("not accepted")
        await expect(page.get_by_test_id("nav-overview")).to_be_hidden()
        await sign_in(page, world.tokens["other"])
        await expect(page.get_by_test_id("error")).to_be_hidden()
        await expect(page.get_by_test_id("current-user")).to_have_text(str(OTHER))
        assert page.url.endswith("/ui/#/overview"), page.url
        # The token is in no URL, no cookie and no storage the page keeps.
        token = world.tokens["other"]
        cookies = await page.context.cookies()
        assert [c["name"] for c in cookies] == ["tm_ui"] and token not in cookies[0]["value"]
        assert cookies[0]["httpOnly"] and cookies[0]["sameSite"] == "Strict"
        stored = await page.evaluate("JSON.stringify([sessionStorage, localStorage, document.cookie])")
        assert token not in stored and token not in page.url
        # A reload keeps the session (the page asks GET /ui/api/session).
        await page.reload()
        await expect(page.get_by_test_id("current-user")).to_have_text(str(OTHER))
        assert errors.unexpected("401") == [], errors.messages
    finally:
        await page.context.close()


async def test_kill_switch_off_in_the_page_empties_mcp_reads_and_on_restores_them(world: World) -> None:
    from playwright.async_api import expect

    async with world.mcp() as call:
        await call.ok("memory_update_profile", {"user_id": KEPT, "patch": {"likes": ["late-night jazz"]}})
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": KEPT, "playlist_id": playlist(1), "name": "Morning Jazz", "track_ids": [track(1), track(2)]},
        )
        await call.ok("memory_get_context", {"user_id": KEPT, "budget_tokens": 400})
        block = (await call.ok("memory_inspect", {"user_id": KEPT}))["last_context"]["block"]
        before = await call.ok("memory_get_profile", {"user_id": KEPT})
        empty = await call.ok("memory_get_profile", {"user_id": NEVER})
    assert before["profile"] == {"likes": ["late-night jazz"]} and empty["version"] == 0

    page, errors = await world.page("main")
    await show(page, "overview")
    await choose_user(page, KEPT)
    await expect(page.get_by_test_id("status-enabled")).to_have_text("on")
    await expect(page.get_by_test_id("count-playlists")).to_have_text("1")
    await expect(page.get_by_test_id("count-preference_events")).to_have_text("0")
    assert await page.get_by_test_id("context-block").text_content() == block
    await screenshot(page, "overview")

    await page.get_by_test_id("toggle-enabled").click()
    await expect(page.get_by_test_id("status-enabled")).to_have_text("off")
    # A disabled memory shows nothing but the switch (and the pause control).
    await expect(page.get_by_test_id("count-playlists")).to_have_count(0)
    await expect(page.get_by_test_id("last-context")).to_have_count(0)
    async with world.mcp() as call:
        off = await call.ok("memory_get_profile", {"user_id": KEPT})
        assert same_user_removed(off) == same_user_removed(empty), off
        assert (await call.ok("memory_get_playlists", {"user_id": KEPT}))["items"] == []

    await page.get_by_test_id("toggle-enabled").click()
    await expect(page.get_by_test_id("status-enabled")).to_have_text("on")
    await expect(page.get_by_test_id("count-playlists")).to_have_text("1")
    async with world.mcp() as call:
        assert await call.ok("memory_get_profile", {"user_id": KEPT}) == before
    assert errors.unexpected() == [], errors.messages


async def test_a_state_change_replayed_without_its_csrf_token_is_refused(world: World) -> None:
    from playwright.async_api import expect

    page, errors = await world.page("main")
    await show(page, "overview")
    await choose_user(page, KEPT)
    await expect(page.get_by_test_id("status-enabled")).to_have_text("on")
    async with page.expect_request(lambda r: r.url.endswith("/ui/api/tools/memory_set_enabled")) as captured:
        await page.get_by_test_id("toggle-enabled").click()
    request = await captured.value
    await expect(page.get_by_test_id("status-enabled")).to_have_text("off")
    sent = json.loads(request.post_data or "{}")
    csrf = (await request.all_headers()).get("x-csrf-token")
    assert sent == {"user_id": KEPT, "enabled": False} and csrf, (sent, csrf)
    assert csrf not in request.url
    await page.get_by_test_id("toggle-enabled").click()  # on again: the replay would turn it off
    await expect(page.get_by_test_id("status-enabled")).to_have_text("on")

    url = request.url
    for headers in ({}, {"X-CSRF-Token": "0" * len(csrf)}):
        refused = await page.request.post(
            url, data=request.post_data, headers={"Content-Type": "application/json", **headers}
        )
        assert refused.status == 403, (headers, refused.status, await refused.text())
        assert (await refused.json())["error"]["code"] == "FORBIDDEN"
    async with world.mcp() as call:
        assert (await call.ok("memory_status", {"user_id": KEPT}))["enabled"] is True, "a refused replay changed state"
    await page.reload()
    await settled(page)
    await expect(page.get_by_test_id("status-enabled")).to_have_text("on")

    # The same request with its token goes through: the refusals above were for the missing token.
    try:
        accepted = await page.request.post(
            url, data=request.post_data, headers={"Content-Type": "application/json", "X-CSRF-Token": csrf}
        )
        assert accepted.status == 200 and (await accepted.json())["success"] is True
        async with world.mcp() as call:
            assert (await call.ok("memory_status", {"user_id": KEPT}))["enabled"] is False
    finally:
        async with world.mcp() as call:  # on again for the other tests, however this one ended
            await call.ok("memory_set_enabled", {"user_id": KEPT, "enabled": True})
    assert errors.unexpected() == [], errors.messages


async def test_a_hostile_playlist_name_shows_as_text_and_runs_nothing(world: World) -> None:
    from playwright.async_api import expect

    async with world.mcp() as call:
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": HOSTILE_USER, "playlist_id": playlist(31), "name": HOSTILE, "track_ids": [track(5)]},
        )
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": HOSTILE_USER,
                "playlist_id": playlist(32),
                "name": "Rainy Sunday Jazz",
                "track_ids": [track(6), track(7), track(8)],
            },
        )
    page, errors = await world.page("main")
    await choose_user(page, HOSTILE_USER)
    await show(page, "playlists")
    row = page.locator(f'[data-testid="playlist-row"][data-playlist-id="{playlist(31)}"]')
    await expect(row.get_by_test_id("playlist-name")).to_have_text(HOSTILE)
    await expect(row.get_by_test_id("playlist-track-count")).to_have_text("1")
    await expect(page.get_by_test_id("playlist-row")).to_have_count(2)
    await expect(page.locator("main img")).to_have_count(0)  # no element was made from the name
    assert await page.evaluate("typeof window.__xss") == "undefined"
    await screenshot(page, "playlists")
    assert errors.unexpected() == [], errors.messages  # no script error, no CSP violation


async def test_the_search_box_finds_a_playlist_by_a_word_of_its_name(world: World) -> None:
    from playwright.async_api import expect

    async with world.mcp() as call:
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": HOSTILE_USER,
                "playlist_id": playlist(33),
                "name": "Thunderstorm Lullabies",
                "track_ids": [track(9)],
            },
        )
    page, errors = await world.page("main")
    await choose_user(page, HOSTILE_USER)
    await show(page, "playlists")
    search = page.get_by_test_id("search-input")
    await search.fill("thunderstorm")
    await search.press("Enter")
    hit = page.locator(f'[data-testid="search-result"][data-id="{playlist(33)}"]')
    await expect(hit).to_have_attribute("data-kind", "playlist")
    await expect(hit).to_contain_text("Thunderstorm Lullabies")
    await expect(page.get_by_test_id("search-result")).to_have_count(1)
    assert errors.unexpected() == [], errors.messages


async def test_a_second_users_token_sees_none_of_the_first_users_data(world: World) -> None:
    from playwright.async_api import expect

    async with world.mcp() as call:
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": KEPT, "playlist_id": playlist(41), "name": "Secret Garden Mix", "track_ids": [track(1)]},
        )
        await call.ok(
            "memory_append_preference_event",
            {"user_id": KEPT, "type": "like", "payload": {"raw_text": "secret garden"}},
        )
        mine = await call.ok("memory_status", {"user_id": KEPT})
    assert mine["counts"]["playlists"] >= 1 and mine["counts"]["preference_events"] >= 1

    page, errors = await world.page("other")
    await show(page, "overview")
    await expect(page.get_by_test_id("current-user")).to_have_text(str(OTHER))
    await expect(page.get_by_test_id("user-picker")).to_have_count(0)
    for kind in ("playlists", "memories", "preference_events", "plays"):
        await expect(page.get_by_test_id(f"count-{kind}")).to_have_text("0")
    await show(page, "playlists")
    await expect(page.get_by_test_id("playlists-empty")).to_be_visible()
    await expect(page.get_by_test_id("playlist-row")).to_have_count(0)
    search = page.get_by_test_id("search-input")
    await search.fill("secret garden")
    await search.press("Enter")
    await expect(page.get_by_test_id("search-empty")).to_be_visible()
    await expect(page.get_by_test_id("search-result")).to_have_count(0)
    assert "Secret Garden" not in await page.locator("body").inner_text()

    # Asking the API directly for the first user, with this session's own CSRF token, is refused.
    session = await (await page.request.get("/ui/api/session")).json()
    asked = await page.request.post(
        "/ui/api/tools/memory_get_playlists",
        data=json.dumps({"user_id": KEPT}),
        headers={"Content-Type": "application/json", "X-CSRF-Token": session["csrf"]},
    )
    envelope = await asked.json()
    assert envelope["success"] is False and envelope["error"]["code"] == "FORBIDDEN", envelope
    assert "Secret Garden" not in json.dumps(envelope)
    assert errors.unexpected() == [], errors.messages
