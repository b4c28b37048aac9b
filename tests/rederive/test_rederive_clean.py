"""A healthy store has no difference: a rich user (profile history, opinions, memories, plays, the
catalog, playlists with every event kind, a fork) as written, and again once exported, deleted and
imported as another user, whose derived views the import rebuilt."""

from __future__ import annotations

from service.settings import Settings
from tests.support import connected
from tests.support.rich_user import export_parts, write_rich_user

ALICE, BOB = 1, 2


async def test_a_rich_user_and_its_import_rederive_without_difference(settings: Settings) -> None:
    async with connected(settings) as call:
        await write_rich_user(call, ALICE)
        await call.ok(
            "memory_append_preference_event", {"user_id": ALICE, "type": "dislike", "payload": {"artist": "NIGHTWISH"}}
        )
        await call.ok("memory_search", {"user_id": ALICE, "query": "nightwish"})  # an index held, compared too
        report = await call.service.rederiver.rederive()
        assert report["differences"] == 0, report
        row = report["users"][0]
        assert row["checked"]["playlists"] == 3 and row["checked"]["profile"] == "replayed"

        parts = await export_parts(call, ALICE)
        await call.ok("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
        await call.ok(
            "memory_import_user_data", {"user_id": BOB, "data": parts if len(parts) > 1 else parts[0], "confirm": True}
        )
        report = await call.service.rederiver.rederive()
        assert report["differences"] == 0, report
        assert [r["user_id"] for r in report["users"]] == [BOB]
