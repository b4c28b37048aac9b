"""The playlist page's Portability card in a real browser (Playwright driving Debian's Chromium against a
``serve --transport sse`` process): for the target picked, one row per track in playlist order with
its status, and the counts in words, exactly as memory_playlist_portability answers over MCP."""

from __future__ import annotations

import pytest

from tests.support import playlist, track
from tests.ui.browser import settled
from tests.ui.page_world import TIMELINE, World, choose_user, show

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]


async def test_the_portability_card_lists_each_track_and_says_how_many_have_no_id(world: World) -> None:
    from playwright.async_api import expect

    pid = playlist(80)
    order = [track(81), track(82), track(83)]
    async with world.mcp() as call:
        await call.ok(
            "memory_upsert_tracks",
            {
                "user_id": TIMELINE,
                "tracks": [
                    {
                        "track_id": track(81),
                        "name": "Midnight City",
                        "artists": ["M83"],
                        "external_ids": {"apple_music": "1440761231"},
                    },
                    {
                        "track_id": track(82),
                        "name": "Wait",
                        "artists": ["M83"],
                        "external_ids": {"isrc": "FR6V81141067"},
                    },
                ],
            },
        )
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": TIMELINE, "playlist_id": pid, "name": "Carried", "track_ids": order},
        )
        expected = await call.ok(
            "memory_playlist_portability", {"user_id": TIMELINE, "playlist_id": pid, "target": "apple_music"}
        )
    assert expected["counts"] == {"matched": 1, "unmatched": 2}

    page, errors = await world.page("main")
    await choose_user(page, TIMELINE)
    await show(page, "playlists")
    await (
        page.locator(f'[data-testid="playlist-row"][data-playlist-id="{pid}"]').get_by_test_id("playlist-name").click()
    )
    await page.wait_for_url(f"**/ui/#/playlists/{pid}")
    await settled(page)
    await page.get_by_test_id("portability-target").select_option("apple_music")
    await page.get_by_test_id("portability-show").click()
    rows = page.get_by_test_id("portability-row")
    await expect(rows).to_have_count(3)
    shown = await rows.evaluate_all("rows => rows.map(r => [r.dataset.trackId, r.dataset.status])")
    assert shown == [[r["track_id"], r["status"]] for r in expected["tracks"]]
    await expect(page.get_by_test_id("portability-summary")).to_have_text("2 of 3 tracks have no Apple Music id known.")
    await expect(rows.nth(0)).to_contain_text("1440761231")
    await expect(rows.nth(2)).to_contain_text("unknown track")

    await page.get_by_test_id("portability-target").select_option("spotify")
    await page.get_by_test_id("portability-show").click()
    await expect(page.get_by_test_id("portability-summary")).to_have_text("All 3 tracks have a known Spotify id.")
    await expect(page.locator('[data-testid="portability-row"][data-status="matched"]')).to_have_count(3)
    assert errors.unexpected() == [], errors.messages
