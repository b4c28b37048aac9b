"""The memory page in the person's language, tried as a new user would (Playwright driving Debian's
Chromium against a ``serve --transport sse`` process): the context block shows "&" as typed, the
timeline draws steps, no view shows the service's internal names (JSON Pointers, change types, the
token estimator's formula), and moments are picked in local time with a date-time picker whose
choice reaches the tools as the right UTC instant.
"""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from models.schema_files import seed_profile
from tests.support import playlist, track
from tests.ui.browser import new_page, settled, sign_in
from tests.ui.page_world import WORDS, World, choose_user, show

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]

POINTER = re.compile(r"(?:^|[\s(\"'])/[A-Za-z_]+/\S*", re.MULTILINE)  # "/core_genres/0"
CONSTANT = re.compile(r"\b[A-Z]{2,}(?:_[A-Z]+)+\b")  # "ADD_TRACKS", "UPDATE_META"
ZONE = "Asia/Kolkata"  # UTC+05:30 all year: a local time that is not the UTC one, by a half hour too


def internal_terms(text: str) -> list[str]:
    found = [m.group().strip() for m in POINTER.finditer(text)] + CONSTANT.findall(text)
    return found + [term for term in ("\\u0026", "ceil(", "UTF-8 bytes", "ISO 8601") if term in text]


def path_commands(d: str) -> list[tuple[str, list[float]]]:
    """An SVG path's commands with their numbers: [("M", [44.0, 94.6]), ("H", [126.9]), …]."""
    return [
        (c, [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", args)])
        for c, args in re.findall(r"([A-Za-z])([^A-Za-z]*)", d)
    ]


async def open_playlist(page, pid: str) -> None:
    await show(page, "playlists")
    await (
        page.locator(f'[data-testid="playlist-row"][data-playlist-id="{pid}"]').get_by_test_id("playlist-name").click()
    )
    await page.wait_for_url(f"**/ui/#/playlists/{pid}")
    await settled(page)


async def test_every_view_speaks_words_the_block_keeps_the_ampersand_and_the_timeline_draws_steps(world: World) -> None:
    from playwright.async_api import expect

    pid = playlist(80)
    profile = seed_profile()
    profile["core_genres"] = [*profile["core_genres"], "Drum & Bass"]
    async with world.mcp() as call:
        await call.ok(
            "memory_update_profile", {"user_id": WORDS, "patch": profile, "reason": "Seed profile", "source": "user"}
        )
        await call.ok(
            "memory_append_preference_event",
            {"user_id": WORDS, "type": "like", "source": "user", "payload": {"artist": "Simon & Garfunkel"}},
        )
        await call.ok(
            "memory_add",
            {
                "user_id": WORDS,
                "type": "insight",
                "summary": "Likes R&B at night",
                "entities": ["R&B"],
                "importance": 6,
            },
        )
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": WORDS,
                "playlist_id": pid,
                "name": "Friday drive",
                "track_ids": [track(80), track(81), track(82)],
                "created_at": "2025-03-01T12:00:00Z",
            },
        )
        changes = [
            ("ADD_TRACKS", {"track_ids": [track(83), track(84)]}, "2025-03-02T12:00:00Z"),
            ("REMOVE_TRACKS", {"track_ids": [track(80)]}, "2025-03-05T12:00:00Z"),
            ("UPDATE_META", {"name": "Friday drive 2"}, "2025-03-06T12:00:00Z"),
            ("REORDER", {"track_ids": [track(84), track(83), track(82), track(81)]}, "2025-03-07T12:00:00Z"),
            ("ADD_TRACKS", {"track_ids": [track(85), track(86), track(87)]}, "2025-03-10T12:00:00Z"),
        ]
        for kind, payload, at in changes:
            await call.ok(
                "memory_log_playlist_mutation",
                {"user_id": WORDS, "playlist_id": pid, "type": kind, "payload": payload, "timestamp": at},
            )
        block = (await call.ok("memory_get_context", {"user_id": WORDS, "focus": "drum & bass"}))["block"]
        timeline = await call.ok("memory_get_playlist_timeline", {"user_id": WORDS, "playlist_id": pid})
    assert '"Drum & Bass"' in block and "\\u0026" not in block, block  # the tool's own answer

    page, errors = await world.page("main")
    await choose_user(page, WORDS)
    await show(page, "overview")
    shown = page.get_by_test_id("context-block")
    assert await shown.text_content() == block
    await expect(shown).to_contain_text('"Drum & Bass"')
    await expect(page.get_by_test_id("context-size")).to_have_text(re.compile(r"^about \d+ tokens of the 800 allowed$"))
    texts = {"overview": await page.evaluate("document.body.innerText")}
    assert "Open follow-ups" in texts["overview"] and "followups" not in texts["overview"]  # section rows in words
    for where in ("playlists", "profile", "memories", "export"):
        await show(page, where)
        texts[where] = await page.evaluate("document.body.innerText")
    assert "Core genres, item 4" in texts["profile"] and "Drum & Bass" in texts["profile"]
    await open_playlist(page, pid)
    texts["playlist"] = await page.evaluate("document.body.innerText")
    legend = await page.get_by_test_id("timeline-legend").inner_text()
    assert legend.split("\n") == ["Created", "Added tracks", "Removed tracks", "Reordered", "Changed name or details"]
    assert {view: terms for view, text in texts.items() if (terms := internal_terms(text))} == {}

    picture = page.get_by_test_id("timeline")
    assert await picture.locator("polygon, polyline, line.count").count() == 0
    line = path_commands(await picture.locator("path.count").get_attribute("d"))
    marks = await picture.get_by_test_id("timeline-mark").evaluate_all(
        "ms => ms.map(m => [Number(m.getAttribute('cx')), Number(m.getAttribute('cy'))])"
    )
    assert len(marks) == len(timeline["points"]) == 6
    # Only horizontal and vertical moves: the count holds until the next event, then jumps to the mark.
    assert line[0] == ("M", marks[0]) and [c for c, _ in line[1:]] == ["H", "V"] * (len(marks) - 1)
    for i, mark in enumerate(marks[1:]):
        (_, [x]), (_, [y]) = line[1 + 2 * i], line[2 + 2 * i]
        assert (x, y) == tuple(mark), (i, line, marks)
    band = path_commands(await picture.locator("path.band").get_attribute("d"))
    assert {c for c, _ in band} <= {"M", "H", "V", "Z"}, band
    assert errors.unexpected() == [], errors.messages


async def test_a_moment_picked_in_local_time_reaches_the_tools_as_its_utc_instant(world: World) -> None:
    from playwright.async_api import expect

    pid = playlist(90)
    async with world.mcp() as call:
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": WORDS,
                "playlist_id": pid,
                "name": "Picked moments",
                "track_ids": [track(90), track(91), track(92)],
                "created_at": "2025-03-01T12:00:00Z",
            },
        )
        await call.ok(
            "memory_log_playlist_mutation",
            {
                "user_id": WORDS,
                "playlist_id": pid,
                "type": "ADD_TRACKS",
                "payload": {"track_ids": [track(93), track(94)]},
                "timestamp": "2025-03-02T12:00:00Z",
            },
        )
    page, errors = await new_page(world.browser, world.server.base_url, timezone_id=ZONE)
    try:
        await sign_in(page, world.tokens["main"])
        await choose_user(page, WORDS)
        await open_playlist(page, pid)
        picker = page.get_by_test_id("moment-input")
        assert await picker.get_attribute("type") == "datetime-local"
        rows, title = page.get_by_test_id("track-row"), page.locator("h2 time")
        # 17:29 in Kolkata is 11:59 UTC, a minute before the add; read as UTC it would be after it.
        for local, utc, count in (
            ("2025-03-02T17:29", "2025-03-02T11:59:00.000Z", 3),
            ("2025-03-02T17:31", "2025-03-02T12:01:00.000Z", 5),
        ):
            await picker.fill(local)
            await page.get_by_test_id("moment-show").click()
            await expect(title).to_have_attribute("datetime", utc)
            await expect(rows).to_have_count(count)
        await page.get_by_test_id("diff-from").fill("2025-03-02T17:29")
        await page.get_by_test_id("diff-to").fill("2025-03-02T17:31")
        await page.get_by_test_id("diff-run").click()
        await expect(page.get_by_test_id("diff-added").locator("li")).to_have_count(2)

        await show(page, "overview")
        pause = page.get_by_test_id("pause-input")
        assert await pause.get_attribute("type") == "datetime-local"
        await pause.fill("2030-01-31T23:30")
        await page.get_by_test_id("pause-apply").click()
        until = page.get_by_test_id("paused-until").locator("time")
        await expect(until).to_have_count(1)
        async with world.mcp() as call:
            status = await call.ok("memory_status", {"user_id": WORDS})
        wanted = datetime.fromisoformat("2030-01-31T18:00:00+00:00")
        assert datetime.fromisoformat(status["paused_until"]) == wanted, status
        assert datetime.fromisoformat(await until.get_attribute("datetime")) == wanted
        await page.get_by_test_id("pause-clear").click()
        await expect(page.get_by_test_id("paused-until")).to_have_text("Not paused.")
        assert errors.unexpected() == [], errors.messages
    finally:
        await page.context.close()
