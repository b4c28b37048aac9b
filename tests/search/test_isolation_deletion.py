"""Search answers only with the caller's user's items, and never with deleted ones."""

from __future__ import annotations

from service.settings import Settings
from tests.support import connected, playlist, track


async def _seed(call, user_id: int, n: int, word: str) -> str:
    await call.ok("memory_update_profile", {"user_id": user_id, "patch": {"notes": f"loves {word}"}})
    event = await call.ok(
        "memory_append_preference_event",
        {"user_id": user_id, "type": "like", "payload": {"raw_text": f"more {word} please"}},
    )
    await call.ok(
        "memory_log_playlist_create",
        {
            "user_id": user_id,
            "playlist_id": playlist(n),
            "name": f"{word} nights",
            "track_ids": [track(n)],
            "intent_tags": [word],
            "description": f"all {word}",
        },
    )
    return event["event_id"]


async def _ids(call, user_id: int, query: str) -> set[str]:
    found = await call.ok("memory_search", {"user_id": user_id, "query": query, "limit": 200})
    return {hit["id"] for hit in found["results"]}


async def _word_ids(call, user_id: int, query: str) -> set[str]:
    """The hits the query's words found (not those found by meaning alone: a renamed "Kalimba
    evenings" is rightly near "marimba nights" in meaning, but no longer holds those words)."""
    found = await call.ok("memory_search", {"user_id": user_id, "query": query, "limit": 200})
    return {hit["id"] for hit in found["results"] if hit.get("metadata", {}).get("matched_by") != "meaning"}


async def test_another_users_items_never_appear(settings: Settings) -> None:
    async with connected(settings) as call:
        mine = await _seed(call, 1, 1, "nightwish")
        theirs = await _seed(call, 2, 2, "nightwish")
        await _seed(call, 2, 3, "sabaton")
        for query in ("nightwish", "nightwsh", "sabaton", "sabatn", '"nightwish nights"', "nights"):
            ids = await _ids(call, 1, query)
            assert theirs not in ids and playlist(2) not in ids and playlist(3) not in ids, (query, ids)
        assert await _ids(call, 1, "nightwish") == {mine, playlist(1), "profile:notes"}
        assert await _ids(call, 1, "sabaton") == set()
        assert await _ids(call, 3, "nightwish") == set()


async def test_deleted_and_renamed_data_never_appears(settings: Settings) -> None:
    async with connected(settings) as call:
        await _seed(call, 1, 1, "marimba")
        await _seed(call, 2, 2, "marimba")
        await call.ok(
            "memory_log_playlist_mutation",
            {
                "user_id": 2,
                "playlist_id": playlist(2),
                "type": "UPDATE_META",
                "payload": {"name": "Kalimba evenings", "intent_tags": ["kalimba"], "description": "thumb piano"},
            },
        )
        assert await _word_ids(call, 2, "marimba nights") == {"profile:notes"} | (await _word_ids(call, 2, "please"))
        assert playlist(2) in await _ids(call, 2, "kalimba")
        await call.ok("memory_update_profile", {"user_id": 2, "patch": {"notes": None}})
        assert "profile:notes" not in await _word_ids(call, 2, "marimba")
        await call.ok("memory_delete_user_data", {"user_id": 1, "confirm": True})
        for query in ("marimba", "marimbs", "nights", "please"):
            assert await _ids(call, 1, query) == set()
        assert playlist(2) in await _ids(call, 2, "kalimba")  # the other user keeps everything
    async with connected(settings) as call:  # and after a restart (index rebuilt from the store)
        assert await _ids(call, 1, "marimba") == set()
        assert await _word_ids(call, 2, "marimba") == await _word_ids(call, 2, "please")
        assert playlist(2) in await _ids(call, 2, "kalimba")


async def test_an_import_is_searchable_at_once(settings: Settings) -> None:
    async with connected(settings) as call:
        await _seed(call, 1, 1, "theremin")
        exported = await call.ok("memory_export_user_data", {"user_id": 1})
        await call.ok("memory_delete_user_data", {"user_id": 1, "confirm": True})
        assert await _ids(call, 1, "theremin") == set()
        await call.service.transfer.import_counts([exported["data"]], 1)
        assert playlist(1) in await _ids(call, 1, "theremin")
