"""The Export page's "Import listening history" card in a real browser (Playwright driving Debian's
Chromium against a ``serve --transport sse`` process): a Spotify ZIP chosen, its upload and import
shown as progress, then the report as a table, and the plays there for the tools over MCP; a running
import cancelled from the card, the files imported before the cancel kept whole."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest

from tests.history.history_fixtures import START, episode, extended, minutes, spotify_zip
from tests.ui.browser import screenshot
from tests.ui.page_world import KEPT, UPLOAD_LIMIT, World, choose_user, show

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]


def history_zip(folder: Path) -> Path:
    rows = [extended(n, START + minutes(5 * n), ms=8_000 if n == 3 else 200_000) for n in range(1, 6)]
    rows += [
        extended(9, START + minutes(90), private=True),
        episode(START + minutes(95)),
        extended(2, START + minutes(10)),
    ]
    return spotify_zip(folder / "my_spotify_data.zip", {"Streaming_History_Audio_2021_0.json": rows}, {})


async def test_a_chosen_history_is_uploaded_imported_and_reported(world: World, tmp_path: Path) -> None:
    from playwright.async_api import expect

    page, errors = await world.page("main")
    await choose_user(page, KEPT)
    await show(page, "export")
    card = page.get_by_test_id("history-card")
    await expect(card.get_by_role("heading")).to_have_text("Import listening history")
    start = page.get_by_test_id("history-start")
    await expect(start).to_be_disabled()
    await page.get_by_test_id("history-file").set_input_files(str(history_zip(tmp_path)))
    await page.get_by_test_id("history-format").select_option("spotify-extended")
    await start.click()

    rows = page.get_by_test_id("history-report-row")
    await expect(rows).to_have_count(9)
    shown = dict(await rows.evaluate_all("rows => rows.map(r => [r.dataset.field, r.dataset.value])"))
    assert {k: v for k, v in shown.items() if not k.endswith("_played")} == {
        "entries": "8",
        "plays": "4",
        "skips": "1",
        "private_skipped": "1",
        "not_music": "1",
        "duplicates": "1",
        "tracks_added": "5",
    }
    assert (shown["first_played"], shown["last_played"]) == ("2021-03-01T08:05:00.000Z", "2021-03-01T08:25:00.000Z")
    # Dates read as dates (the person's locale), not as the ISO string.
    first = page.locator('[data-testid="history-report-row"][data-field="first_played"] time')
    await expect(first).to_have_attribute("datetime", "2021-03-01T08:05:00.000Z")
    assert "T08:05" not in await first.inner_text()
    for bar in ("history-upload-progress", "history-import-progress"):
        progress = page.get_by_test_id(bar)
        await expect(progress).to_be_visible()
        assert await progress.evaluate("p => p.value === p.max")
    await expect(page.get_by_test_id("history-note")).to_have_text("Imported: 4 plays and 1 skip of 8 rows.")
    await expect(page.get_by_test_id("history-note")).to_have_attribute("aria-live", "polite")
    await expect(page.locator("#error")).to_be_hidden()
    await screenshot(page, "history-import")

    async with world.mcp() as call:
        status = await call.ok("memory_status", {"user_id": KEPT})
        counts = status["counts"]
        assert (counts["plays"], counts["skips"], counts["play_buckets"], counts["tracks"]) == (4, 1, 1, 5)

    # Again: nothing new, every stored row a duplicate.
    await start.click()
    await expect(page.get_by_test_id("history-note")).to_have_text("Imported: 0 plays and 0 skips of 8 rows.")
    await expect(page.locator('[data-testid="history-report-row"][data-field="duplicates"]')).to_have_attribute(
        "data-value", "6"
    )
    # The overview counts the imported plays and skips as plays and skips.
    await show(page, "overview")
    await expect(page.get_by_test_id("count-plays")).to_have_text("4")
    await expect(page.get_by_test_id("count-skips")).to_have_text("1")
    assert errors.unexpected() == [], errors.messages


async def test_a_running_import_is_cancelled_from_the_card(world: World, tmp_path: Path) -> None:
    from playwright.async_api import expect

    rows_per_file, files = 10_000, 3
    later = START + timedelta(days=400)  # months of their own: a file is in or out as a whole
    contents = {
        f"Streaming_History_Audio_2022_{k}.json": [
            extended(n, later + timedelta(days=31 * k) + minutes(n)) for n in range(rows_per_file)
        ]
        for k in range(files)
    }
    archive = spotify_zip(tmp_path / "my_spotify_data.zip", contents, {})
    async with world.mcp() as call:
        before = (await call.ok("memory_status", {"user_id": KEPT}))["counts"]["plays"]

    page, errors = await world.page("main")
    await choose_user(page, KEPT)
    await show(page, "export")
    await page.get_by_test_id("history-file").set_input_files(str(archive))
    await page.get_by_test_id("history-start").click()
    cancel = page.get_by_test_id("history-cancel")
    await expect(cancel).to_be_visible()
    await cancel.click()
    note = page.get_by_test_id("history-note")
    await expect(note).to_have_text(re.compile(r"^Cancelled\. Files imported before the cancel stay"))
    await expect(cancel).to_be_hidden()
    await expect(page.get_by_test_id("history-report")).to_have_count(0)
    await expect(page.locator("#error")).to_be_hidden()

    async with world.mcp() as call:
        after = (await call.ok("memory_status", {"user_id": KEPT}))["counts"]["plays"]
    assert (after - before) % rows_per_file == 0 and after - before < files * rows_per_file, (before, after)
    assert errors.unexpected() == [], errors.messages


async def test_a_file_past_the_servers_limit_is_refused_before_it_is_sent(world: World, tmp_path: Path) -> None:
    from playwright.async_api import expect

    big = tmp_path / "my_spotify_data.zip"
    big.write_bytes(b"\0" * (UPLOAD_LIMIT + 1))
    page, errors = await world.page("main")
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url) if "history-imports" in request.url else None)
    await choose_user(page, KEPT)
    await show(page, "export")
    await page.get_by_test_id("history-file").set_input_files(str(big))
    await page.get_by_test_id("history-start").click()
    await expect(page.locator("#error")).to_contain_text("larger than this server takes (8.4 MB)")
    await expect(page.get_by_test_id("history-start")).to_be_enabled()
    assert sent == []  # refused by the page: not one byte went to the server
    assert errors.unexpected() == [], errors.messages
