"""The memory page's profile, memories, export and delete pages in a real browser (Playwright driving
Debian's Chromium against a ``serve --transport sse`` process), with MCP over SSE as the other side
of every check: what the page shows and forgets, downloads and deletes is what the tools see.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import playlist, track
from tests.ui.browser import screenshot, settled
from tests.ui.page_world import (
    EXPORTED,
    GONE,
    PAGES,
    World,
    choose_user,
    confirm_in_dialog,
    download_export,
    show,
    without_as_of,
)

# One server and one browser per module and worker: the group keeps the module on one worker when
# the suite runs with --dist loadgroup (under plain "load" it still works, with one world per worker).
pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]


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
        plays = (await call.ok("memory_status", {"user_id": PAGES}))["counts"]["plays"]
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
    assert without_as_of(document["data"]) == without_as_of(tool["data"])
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
