"""What the person asked to keep out of sight, in a real browser (Playwright driving Debian's Chromium
against a ``serve --transport sse`` process): the Memories view lists a sensitive memory and a
sensitive thing said in its "Kept out of sight" card (and not among the ordinary memories), the
Profile view marks the field named in ``sensitive_fields`` and no other, and forgetting the memory
from the card makes it gone for ``memory_inspect`` too.
"""

from __future__ import annotations

import pytest

from tests.ui.browser import screenshot
from tests.ui.page_world import SIGHT, World, choose_user, confirm_in_dialog, show

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]

FUNERAL = {
    "type": "insight",
    "entities": ["Dad's funeral"],
    "summary": "Only plays the hymns from Dad's funeral when asked",
    "importance": 9,
    "sensitive": True,
}
ORDINARY = {
    "type": "insight",
    "entities": ["Nick Drake"],
    "summary": "Puts on Pink Moon on rainy Sundays",
    "importance": 6,
}
HYMNS = {
    "type": "like",
    "source": "user",
    "payload": {"subject": "Dad's funeral hymns", "raw_text": "the hymns we sang for Dad", "sensitive": True},
}
PROFILE = {"likes": ["Nick Drake", "the funeral hymns"], "sensitive_fields": ["/likes/1"]}
# The service's own names, which the card must put in words (or leave out).
INTERNAL = ("sensitive_fields", "payload", "raw_text", "sensitive", "event_id", "memory_id", "out_of_sight", "true")


async def test_what_is_kept_out_of_sight_is_shown_marked_and_forgotten_from_its_card(world: World) -> None:
    from playwright.async_api import expect

    async with world.mcp() as call:
        await call.ok(
            "memory_update_profile", {"user_id": SIGHT, "patch": PROFILE, "reason": "Told us", "source": "user"}
        )
        funeral = (await call.ok("memory_add", {"user_id": SIGHT, **FUNERAL}))["memory_id"]
        ordinary = (await call.ok("memory_add", {"user_id": SIGHT, **ORDINARY}))["memory_id"]
        hymns = (await call.ok("memory_append_preference_event", {"user_id": SIGHT, **HYMNS}))["event_id"]
        hidden = (await call.ok("memory_inspect", {"user_id": SIGHT}))["out_of_sight"]
    assert hidden["memory_count"] == 1 and hidden["event_count"] == 1, hidden  # the tools' own view

    page, errors = await world.page("main")
    await choose_user(page, SIGHT)
    await show(page, "memories")
    ordinary_rows = page.get_by_test_id("memory-rows").get_by_test_id("memory-row")
    await expect(ordinary_rows).to_have_count(1)  # memory_query leaves the sensitive one out
    await expect(ordinary_rows).to_have_attribute("data-memory-id", ordinary)
    await expect(ordinary_rows.get_by_test_id("sensitive-mark")).to_have_count(0)

    card = page.get_by_test_id("out-of-sight")
    await expect(card).to_be_visible()
    await expect(card.get_by_role("heading")).to_have_text("Kept out of sight")
    listed = card.get_by_test_id("hidden-memories").get_by_test_id("memory-row")
    await expect(listed).to_have_count(1)
    await expect(listed).to_have_attribute("data-memory-id", funeral)
    await expect(listed.get_by_test_id("memory-entities")).to_have_text("Dad's funeral")
    await expect(listed.get_by_test_id("memory-summary")).to_contain_text(FUNERAL["summary"])
    await expect(listed.get_by_test_id("sensitive-mark")).to_have_text("kept out of sight")
    event = card.get_by_test_id("hidden-event")
    await expect(event).to_have_count(1)
    await expect(event).to_have_attribute("data-event-id", hymns)
    await expect(event).to_contain_text("Dad's funeral hymns")
    await expect(event.locator("q")).to_have_text("the hymns we sang for Dad")
    text = await card.inner_text()
    assert [term for term in INTERNAL if term in text.casefold()] == [], text
    await screenshot(page, "out-of-sight")

    await show(page, "profile")
    marked = page.locator('[data-testid="profile-field"][data-path="/likes/1"]')
    plain = page.locator('[data-testid="profile-field"][data-path="/likes/0"]')
    await expect(marked.get_by_test_id("field-value")).to_have_text("the funeral hymns")
    await expect(marked.get_by_test_id("sensitive-mark")).to_have_count(1)
    await expect(plain.get_by_test_id("field-value")).to_have_text("Nick Drake")
    await expect(plain.get_by_test_id("sensitive-mark")).to_have_count(0)

    await show(page, "memories")
    listed = page.get_by_test_id("out-of-sight").get_by_test_id("hidden-memories").get_by_test_id("memory-row")
    await confirm_in_dialog(page, listed.get_by_test_id("forget"), accept=False)  # cancel: nothing happens
    await expect(listed).to_have_count(1)
    await confirm_in_dialog(page, listed.get_by_test_id("forget"))
    await expect(page.locator(f'[data-memory-id="{funeral}"]')).to_have_count(0)
    await expect(page.get_by_test_id("hidden-memories")).to_have_count(0)  # no empty table left behind
    await expect(page.get_by_test_id("hidden-event")).to_have_attribute("data-event-id", hymns)  # still kept
    await expect(ordinary_rows).to_have_attribute("data-memory-id", ordinary)
    async with world.mcp() as call:
        hidden = (await call.ok("memory_inspect", {"user_id": SIGHT}))["out_of_sight"]
        left = (await call.ok("memory_query", {"user_id": SIGHT, "entity": "Dad's funeral"}))["memories"]
    assert hidden["memory_count"] == 0 and hidden["memories"] == [] and hidden["event_count"] == 1, hidden
    assert left == []  # named, it is still not found: gone, not only hidden
    assert errors.unexpected() == [], errors.messages
