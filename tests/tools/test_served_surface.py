"""The tools, resource templates, prompts and schema files a client is served are exactly the saved
copy: moving code between modules must not change a byte of what the model sees."""

from __future__ import annotations

import difflib

from tests.tools.served_surface import SAVED, served_surface


async def test_the_served_surface_is_the_saved_copy() -> None:
    served = await served_surface()
    saved = SAVED.read_text(encoding="utf-8")
    if served != saved:
        diff = "".join(difflib.unified_diff(saved.splitlines(True), served.splitlines(True), "saved", "served", n=2))
        raise AssertionError("the served surface changed:\n" + diff[:20_000])
