"""The memory page's Review list in a real browser (Playwright driving Debian's Chromium against a
``serve --transport sse`` process): a conflict between a dislike and the plays shows as a sentence
for people, and settling it there makes it gone from ``memory_list_conflicts``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.ui.browser import screenshot
from tests.ui.page_world import PAGES, World, choose_user, show

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]


async def test_settling_a_conflict_in_the_review_list_closes_it_for_the_tools(world: World) -> None:
    from playwright.async_api import expect

    now = datetime.now(UTC).replace(microsecond=0)
    plays = [
        {"artist": "Nickelback", "track": f"Song {i}", "played_at": (now - timedelta(hours=i + 1)).isoformat()}
        for i in range(6)
    ]
    async with world.mcp() as call:
        for artist in ("Nickelback", "Creed"):
            await call.ok(
                "memory_append_preference_event",
                {"user_id": PAGES, "type": "dislike", "source": "user", "payload": {"artist": artist}},
            )
        await call.ok("memory_log_plays", {"user_id": PAGES, "plays": plays})
        await call.ok("memory_log_plays", {"user_id": PAGES, "plays": [{**p, "artist": "Creed"} for p in plays[:5]]})
        listed = (await call.ok("memory_list_conflicts", {"user_id": PAGES}))["conflicts"]
    ids = {c["subject"]["artist"]: c["conflict_id"] for c in listed}
    assert set(ids) == {"Nickelback", "Creed"}

    page, errors = await world.page("main")
    await choose_user(page, PAGES)
    await show(page, "review")
    rows = page.get_by_test_id("conflict-row")
    await expect(rows).to_have_count(2)
    nickelback = page.locator(f'[data-testid="conflict-row"][data-conflict-id="{ids["Nickelback"]}"]')
    await expect(nickelback.get_by_test_id("conflict-sentence")).to_have_text(
        "You said you dislike Nickelback, but played it 6 times in the last 30 days."
    )
    await screenshot(page, "review")
    await nickelback.get_by_test_id("resolve-update").click()
    await expect(nickelback).to_have_count(0)
    creed = page.locator(f'[data-testid="conflict-row"][data-conflict-id="{ids["Creed"]}"]')
    await creed.get_by_test_id("resolve-keep").click()
    await expect(rows).to_have_count(0)
    await expect(page.get_by_test_id("conflicts-empty")).to_be_visible()

    async with world.mcp() as call:
        assert (await call.ok("memory_list_conflicts", {"user_id": PAGES}))["conflicts"] == []
        events = (await call.ok("memory_export_user_data", {"user_id": PAGES}))["data"]["preference_events"]
    outcomes = {(e["type"], e["payload"]["artist"]) for e in events if "conflict" in e["payload"]}
    assert outcomes == {("like", "Nickelback"), ("dislike", "Creed")}
    await show(page, "review")  # drawn again from the tools: still nothing to review
    await expect(page.get_by_test_id("conflicts-empty")).to_be_visible()
    assert errors.unexpected() == []
