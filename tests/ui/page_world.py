"""What the memory page's browser tests share: the users they write for (each test its own), the
``World`` of one ``serve --transport sse`` process and one browser (the ``world`` fixture of this
folder's conftest, one per module), and the moves a person makes on the page: choose a user, go to
a page, confirm a dialog, download the export.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.mcp_sessions import sse_session
from tests.support.server_process import ServerProcess
from tests.ui.browser import new_page, settled, sign_in

KEPT, NEVER, OTHER, HOSTILE_USER = 1, 9, 2, 3  # NEVER: a user nobody ever writes for
PAGES, EXPORTED, GONE = 4, 5, 6  # the profile/memories pages, the export, delete everything
TIMELINE = 7  # the playlist page
WORDS = 8  # the page in the person's words: steps, no internal terms, the date-time picker
SIGHT = 10  # what is kept out of sight: the Memories card, the marks, forgetting from the card
HOSTILE = '<img src=x onerror="window.__xss=1">'
UPLOAD_LIMIT = 8 * 1024 * 1024  # MEMORY_MAX_HISTORY_UPLOAD_BYTES of the page tests' server


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


def same_user_removed(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "user_id"}


def without_as_of(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "as_of"}  # the moment the export was made
