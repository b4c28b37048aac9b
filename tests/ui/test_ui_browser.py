"""The memory page in a real browser (issue 16, first slice): Playwright driving Debian's Chromium
against a ``serve --transport sse`` process whose tokens were made with ``memory-service token
create``, with MCP over SSE as the other side of every check.

One server and one browser for the module (see ``world``); each token gets its own browser
context (cookie jar). Every test seeds its own users' data, so the tests do not depend on their
order or on sharing a worker.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.support import playlist, track
from tests.support.backends import make_settings
from tests.support.server_process import ServerProcess, running_server, sse_session
from tests.support.tokens import create_token, token_env
from tests.ui.browser import launch, new_page, screenshot, settled, sign_in

# One server and one browser per module and worker: the group keeps the module on one worker when
# the suite runs with --dist loadgroup (under plain "load" it still works, with one world per worker).
pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]

KEPT, NEVER, OTHER, HOSTILE_USER = 1, 9, 2, 3  # NEVER: a user nobody ever writes for
PAGES, EXPORTED, GONE = 4, 5, 6  # the profile/memories pages, the export, delete everything
TIMELINE = 7  # the playlist page
HOSTILE = '<img src=x onerror="window.__xss=1">'


@dataclass
class World:
    server: ServerProcess
    browser: Any
    tokens: dict[str, str]  # "main" covers every user but OTHER; "other" covers OTHER only
    pages: dict[str, Any] = field(default_factory=dict)

    def mcp(self, token: str = "main"):
        return sse_session(self.server, self.tokens[token])

    async def page(self, token: str):
        """The signed-in page of ``token``, made on first use and reused by later tests."""
        if token not in self.pages:
            page, errors = await new_page(self.browser, self.server.base_url)
            await sign_in(page, self.tokens[token])
            self.pages[token] = (page, errors)
        page, errors = self.pages[token]
        return page, errors


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    workdir = tmp_path_factory.mktemp("ui-browser")
    settings = make_settings("embedded", workdir / "data")
    token_file = workdir / "secrets" / "tokens.json"

    def make_tokens() -> dict[str, str]:
        # One file, so one after the other; the server re-reads it, so it may start meanwhile.
        return {
            "main": create_token(
                token_file, KEPT, HOSTILE_USER, NEVER, PAGES, EXPORTED, GONE, TIMELINE, label="page tests"
            )[0],
            "other": create_token(token_file, OTHER)[0],
        }

    serving = running_server(settings, workdir, transport="sse", extra_env=token_env(token_file))
    async with launch() as browser:
        tokens, server = await asyncio.gather(asyncio.to_thread(make_tokens), asyncio.to_thread(serving.__enter__))
        try:
            yield World(server, browser, tokens)
        finally:
            await asyncio.to_thread(serving.__exit__, None, None, None)


async def choose_user(page, user_id: int) -> None:
    from playwright.async_api import expect

    picker = page.get_by_test_id("user-picker")
    if await picker.input_value() != str(user_id):
        await picker.select_option(str(user_id))
    await expect(picker).to_have_value(str(user_id))
    await settled(page)


async def show(page, where: str) -> None:
    from playwright.async_api import expect

    link = page.get_by_test_id(f"nav-{where}")
    await link.click()
    await page.wait_for_url(f"**/ui/#/{where}")
    await expect(link).to_have_attribute("aria-current", "page")  # the route ran (and marked <main> busy)
    await settled(page)


def _same_user_removed(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "user_id"}


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
        assert _same_user_removed(off) == _same_user_removed(empty), off
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


# --- profile, memories, export/import/delete (issue 16, second slice) ------------------------------


async def confirm_in_dialog(page, button, *, accept: bool = True) -> None:
    """Press a destructive button, then the page's own confirmation dialog's confirm (or cancel)."""
    from playwright.async_api import expect

    await button.click()
    dialog = page.get_by_test_id("confirm-dialog")
    await expect(dialog).to_be_visible()
    await dialog.get_by_test_id("confirm" if accept else "cancel").click()
    await expect(dialog).to_have_count(0)


async def download_export(page) -> tuple[Any, dict[str, Any]]:
    """Press the export page's download button; (the download, the parsed file)."""
    async with page.expect_download() as started:
        await page.get_by_test_id("export-download").click()
    download = await started.value
    assert download.suggested_filename.endswith(".json"), download.suggested_filename
    return download, json.loads(Path(await download.path()).read_text())


def _without_as_of(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "as_of"}  # the moment the export was made


async def test_the_profile_page_shows_a_fields_reason_and_evidence_and_forgetting_it_empties_it(world: World) -> None:
    from playwright.async_api import expect

    reason = "User said: rainy days call for bossa nova"
    async with world.mcp() as call:
        await call.ok(
            "memory_append_preference_event",
            {
                "user_id": PAGES,
                "type": "like",
                "source": "user",
                "payload": {"raw_text": "I love rainy day bossa nova"},
            },
        )
        await call.ok(
            "memory_update_profile",
            {
                "user_id": PAGES,
                "reason": reason,
                "source": "user",
                "patch": {"likes": ["bossa nova"], "rules": {"max_tracks_per_artist": 2}},
            },
        )
    page, errors = await world.page("main")
    await choose_user(page, PAGES)
    await show(page, "profile")
    field = page.locator('[data-testid="profile-field"][data-path="/likes/0"]')
    await expect(field.get_by_test_id("field-value")).to_have_text("bossa nova")
    await expect(field.get_by_test_id("set-by-reason")).to_have_text(reason)
    await expect(field.get_by_test_id("set-by-item")).to_contain_text("user")
    await expect(field.get_by_test_id("evidence-item")).to_contain_text("like")
    await field.get_by_test_id("explain").click()  # memory_explain: the events' raw text
    await expect(field.get_by_test_id("evidence-text")).to_have_text("I love rainy day bossa nova")
    await screenshot(page, "profile")

    await confirm_in_dialog(page, field.get_by_test_id("forget"), accept=False)  # cancel: nothing happens
    await expect(field).to_have_count(1)
    await confirm_in_dialog(page, field.get_by_test_id("forget"))
    await expect(field).to_have_count(0)
    await expect(page.locator('[data-testid="profile-field"][data-path="/rules/max_tracks_per_artist"]')).to_have_count(
        1
    )
    async with world.mcp() as call:
        profile = (await call.ok("memory_get_profile", {"user_id": PAGES}))["profile"]
    assert "bossa nova" not in json.dumps(profile) and profile["rules"] == {"max_tracks_per_artist": 2}, profile
    assert errors.unexpected() == [], errors.messages


async def test_the_memories_page_filters_and_forgets_a_memory_for_mcp_too(world: World) -> None:
    from playwright.async_api import expect

    async with world.mcp() as call:
        kept = await call.ok(
            "memory_add",
            {
                "user_id": PAGES,
                "type": "event",
                "entities": ["Caetano Veloso"],
                "summary": "Going to see Caetano Veloso live in June",
                "importance": 7,
            },
        )
        gone = await call.ok(
            "memory_add",
            {
                "user_id": PAGES,
                "type": "insight",
                "entities": ["Astrud Gilberto"],
                "summary": "Loves breathy 1960s bossa nova vocals",
                "importance": 8,
            },
        )
        plays = (await call.ok("memory_status", {"user_id": PAGES}))["counts"]["play_buckets"]
    page, errors = await world.page("main")
    await choose_user(page, PAGES)
    await show(page, "memories")
    rows = page.get_by_test_id("memory-row")
    await expect(rows).to_have_count(2)
    row = page.locator(f'[data-testid="memory-row"][data-memory-id="{gone["memory_id"]}"]')
    await expect(row.get_by_test_id("memory-entities")).to_have_text("Astrud Gilberto")
    await expect(row.get_by_test_id("memory-importance")).to_have_text("8")
    await expect(row.get_by_test_id("memory-days-ago")).to_have_text("0")
    await expect(page.get_by_test_id("plays-count")).to_have_text(str(plays))
    await screenshot(page, "memories")

    await page.get_by_test_id("filter-type").select_option("event")  # memory_query's type filter
    await page.get_by_test_id("filter-apply").click()
    await expect(rows).to_have_count(1)
    await expect(rows).to_have_attribute("data-memory-id", kept["memory_id"])
    await page.get_by_test_id("filter-type").select_option("")
    await page.get_by_test_id("filter-importance").fill("8")
    await page.get_by_test_id("filter-apply").click()
    await expect(rows).to_have_count(1)
    await expect(rows).to_have_attribute("data-memory-id", gone["memory_id"])

    await confirm_in_dialog(page, row.get_by_test_id("forget"))
    await expect(row).to_have_count(0)
    async with world.mcp() as call:
        left = (await call.ok("memory_query", {"user_id": PAGES, "limit": 50}))["memories"]
    assert [m["memory_id"] for m in left] == [kept["memory_id"]], left
    assert errors.unexpected() == [], errors.messages


async def test_the_downloaded_export_is_what_the_export_tool_gives_over_mcp(world: World) -> None:
    async with world.mcp() as call:
        await call.ok(
            "memory_update_profile", {"user_id": EXPORTED, "patch": {"likes": ["tropicália"]}, "reason": "said so"}
        )
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": EXPORTED, "playlist_id": playlist(51), "name": "Export Me", "track_ids": [track(1), track(2)]},
        )
        await call.ok(
            "memory_add",
            {
                "user_id": EXPORTED,
                "type": "insight",
                "entities": ["Os Mutantes"],
                "summary": "Likes psychedelic Brazilian rock",
                "importance": 6,
            },
        )
    page, errors = await world.page("main")
    await choose_user(page, EXPORTED)
    await show(page, "export")
    await screenshot(page, "export")
    _, document = await download_export(page)
    async with world.mcp() as call:
        tool = await call.ok("memory_export_user_data", {"user_id": EXPORTED})
    assert tool["data"]["continuation"]["next_cursor"] is None  # one part: the file is the CLI's one document
    assert document["user_id"] == EXPORTED and set(document) == {"user_id", "exported_at", "data"}, list(document)
    assert _without_as_of(document["data"]) == _without_as_of(tool["data"])
    assert "Export Me" in json.dumps(document["data"]["playlists"]) and len(document["data"]["memories"]) == 1
    assert errors.unexpected() == [], errors.messages


async def test_delete_everything_needs_the_typed_id_then_empties_the_user_and_the_file_imports_back(
    world: World, tmp_path: Path
) -> None:
    from playwright.async_api import expect

    async with world.mcp() as call:
        await call.ok("memory_update_profile", {"user_id": GONE, "patch": {"likes": ["samba"]}, "reason": "said so"})
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": GONE, "playlist_id": playlist(61), "name": "Delete Me", "track_ids": [track(3)]},
        )
        before = await call.ok("memory_status", {"user_id": GONE})
        profile = await call.ok("memory_get_profile", {"user_id": GONE})
    page, errors = await world.page("main")
    await choose_user(page, GONE)
    await show(page, "export")
    download, _ = await download_export(page)
    saved = tmp_path / "export.json"
    await download.save_as(saved)

    typed, delete = page.get_by_test_id("delete-confirm-input"), page.get_by_test_id("delete-everything")
    await expect(delete).to_be_disabled()
    await typed.fill(str(PAGES))  # another user's id does not unlock it
    await expect(delete).to_be_disabled()
    await typed.fill(str(GONE))
    await expect(delete).to_be_enabled()
    await delete.click()
    await page.wait_for_url("**/ui/#/overview")
    await settled(page)
    for kind in ("playlists", "memories", "preference_events", "plays"):
        await expect(page.get_by_test_id(f"count-{kind}")).to_have_text("0")
    async with world.mcp() as call:
        emptied = await call.ok("memory_status", {"user_id": GONE})
    assert all(n == 0 for n in emptied["counts"].values()), emptied

    await show(page, "export")  # the file just downloaded goes back in
    await page.get_by_test_id("import-file").set_input_files(saved)
    await confirm_in_dialog(page, page.get_by_test_id("import-start"))
    await expect(page.get_by_test_id("import-note")).to_contain_text("Imported")
    async with world.mcp() as call:
        assert (await call.ok("memory_status", {"user_id": GONE}))["counts"] == before["counts"]
        assert (await call.ok("memory_get_profile", {"user_id": GONE}))["profile"] == profile["profile"]
    assert errors.unexpected() == [], errors.messages


# --- the playlist page and its timeline (issue 16, third slice) ------------------------------------


async def test_a_moment_typed_on_the_timeline_lists_exactly_the_reconstruction_at_that_time(world: World) -> None:
    from playwright.async_api import expect

    pid = playlist(70)
    day = lambda d, h=12: f"2025-03-{d:02d}T{h:02d}:00:00.000Z"  # noqa: E731
    async with world.mcp() as call:
        await call.ok(
            "memory_upsert_tracks",
            {
                "user_id": TIMELINE,
                "tracks": [
                    {"track_id": track(71), "name": "Night Drive", "artists": ["Kavinsky"]},
                    {"track_id": track(73), "name": "Nightcall", "artists": ["Kavinsky", "Lovefoxxx"]},
                ],
            },
        )
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": TIMELINE,
                "playlist_id": pid,
                "name": "Road trip",
                "track_ids": [track(70), track(71), track(72)],
                "created_at": day(1),
            },
        )
        changes = [
            ("ADD_TRACKS", {"track_ids": [track(73), track(74)]}, day(2)),
            ("REMOVE_TRACKS", {"track_ids": [track(70)]}, day(3)),
            ("REORDER", {"track_ids": [track(74), track(73), track(72), track(71)]}, day(4)),
            ("ADD_TRACKS", {"track_ids": [track(75)], "insert_at": 0}, day(5)),
        ]
        for kind, payload, at in changes:
            await call.ok(
                "memory_log_playlist_mutation",
                {"user_id": TIMELINE, "playlist_id": pid, "type": kind, "payload": payload, "timestamp": at},
            )
        moment = day(4, 18)  # after the reorder, before the last add
        expected = await call.ok(
            "memory_reconstruct_playlist", {"user_id": TIMELINE, "playlist_id": pid, "at_time": moment}
        )
        timeline = await call.ok("memory_get_playlist_timeline", {"user_id": TIMELINE, "playlist_id": pid})
    assert expected["track_ids"] == [track(74), track(73), track(72), track(71)]

    page, errors = await world.page("main")
    await choose_user(page, TIMELINE)
    await show(page, "playlists")
    await (
        page.locator(f'[data-testid="playlist-row"][data-playlist-id="{pid}"]').get_by_test_id("playlist-name").click()
    )
    await page.wait_for_url(f"**/ui/#/playlists/{pid}")
    await settled(page)
    picture = page.get_by_test_id("timeline")
    await expect(picture).to_be_visible()
    assert await picture.evaluate("el => el.namespaceURI") == "http://www.w3.org/2000/svg"
    marks = await picture.get_by_test_id("timeline-mark").count()
    assert marks == len(timeline["points"]) == timeline["events_total"] == 5 <= 500  # one per bin, ≤ max_points
    await expect(page.get_by_test_id("playlist-count")).to_have_text("5")
    await expect(page.get_by_test_id("track-row")).to_have_count(5)  # now, before any moment is picked

    entry = page.get_by_test_id("moment-input")
    await entry.fill(moment)
    await entry.press("Enter")
    rows = page.get_by_test_id("track-row")
    await expect(rows).to_have_count(len(expected["track_ids"]))
    shown = await rows.evaluate_all("rows => rows.map(r => r.getAttribute('data-track-id'))")
    assert shown == expected["track_ids"]  # same tracks, same order as over MCP
    await expect(page.locator(f'[data-testid="track-row"][data-track-id="{track(73)}"]')).to_contain_text("Nightcall")
    await expect(page.locator(f'[data-testid="track-row"][data-track-id="{track(72)}"]')).to_contain_text(
        "unknown track"
    )
    await screenshot(page, "playlist")
    assert errors.unexpected() == [], errors.messages
