"""The memory page's playlist page and its timeline in a real browser (Playwright driving Debian's
Chromium against a ``serve --transport sse`` process): a moment typed on the timeline lists exactly
what memory_reconstruct_playlist gives over MCP for that time.
"""

from __future__ import annotations

import pytest

from tests.support import playlist, track
from tests.ui.browser import screenshot, settled
from tests.ui.page_world import TIMELINE, World, choose_user, show

# One server and one browser per module and worker: the group keeps the module on one worker when
# the suite runs with --dist loadgroup (under plain "load" it still works, with one world per worker).
pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]


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
    assert await entry.get_attribute("type") == "datetime-local"
    local = await page.evaluate(  # the picker holds the person's local time
        "iso => { const d = new Date(iso); d.setMinutes(d.getMinutes() - d.getTimezoneOffset());"
        " return d.toISOString().slice(0, 19); }",
        moment,
    )
    await entry.fill(local)
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
