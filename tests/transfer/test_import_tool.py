"""memory_import_user_data: import(export(x)) is exact for a rich user (whole, in continuation
parts, and over a user's data with replace), the answer, CONFLICT for a user with data, the
import's audit stamp, and isolation (the target is the user_id argument, whatever data says).

A round trip compares the export of the copy, joined from its parts, with the export of the
original except for ``as_of``, ``continuation`` and ``chunks`` (when and how it was paged) and
every ``user_id`` (the copy is another user): the records keep the stamps of the calls that
recorded them, while the import's own stamps are store history the export leaves out by design.
The reads an assistant makes (profile, playlists now and earlier, search, recalled memories,
resolved tracks, feedback) answer the same for both users too."""

from __future__ import annotations

from typing import Any

from service.settings import Settings
from service.transfer.export import empty_data
from tests.support import Caller, connected, playlist, track
from tests.support.contract import assert_valid_success
from tests.support.rich_user import MIX, comparable_export, export_parts, reads, write_rich_user

ALICE, BOB = 21, 22
OLD, BIG = playlist(9), playlist(8)
EMPTY = empty_data(1, 1) | {"continuation": {"part": 1, "next_cursor": None}}
KINDS = {
    "profile": 1,
    "preference_events": 5,
    "playlists": 3,
    "tracks": 8,
    "track_choices": 1,
    "memories": 3,
    "play_buckets": 3,
    "memory_aging": 2,
}


async def import_tool(call: Caller, user: int, data: Any, **extra: Any) -> dict[str, Any]:
    envelope = await call("memory_import_user_data", {"user_id": user, "data": data, "confirm": True, **extra})
    assert_valid_success("memory.import_user_data", envelope)
    return envelope["result"]


async def moved(call: Caller, data: Any, write: bool = True) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Alice's export and reads, then Alice deleted (her preference event ids are hers while she
    has them) and the export imported as Bob: (Alice's export and reads, the import's answer)."""
    if write:
        await write_rich_user(call, ALICE)
    original, answers = await comparable_export(call, ALICE), await reads(call, ALICE)
    exported = data if data is not None else await export_parts(call, ALICE)
    await call.ok("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
    result = await import_tool(call, BOB, exported if len(exported) > 1 else exported[0])
    return original, answers, result


async def test_a_rich_user_round_trips_exactly(settings: Settings) -> None:
    async with connected(settings) as call:
        original, answers, result = await moved(call, None)
        assert result["user_id"] == BOB and result["replaced"] is False
        assert {k: result["imported"][k] for k in KINDS} == KINDS, result
        assert result["imported"]["events"] == 19  # 9 + 10 + the fork's own
        assert await comparable_export(call, BOB) == original
        assert await reads(call, BOB) == answers
        # The copy is a live user: its imported keys hold (the retried call of Alice's is refused
        # as another request: it carries another payload), its playlists take changes.
        await call.error(
            "memory_log_playlist_mutation",
            {
                "user_id": BOB,
                "playlist_id": MIX,
                "type": "ADD_TRACKS",
                "payload": {"track_ids": [track(9)]},
                "timestamp": "2026-02-01T00:00:00Z",
                "client_event_id": "0f8fad5b-d9cb-469f-a165-70867728950e",
            },
            "CONFLICT",
        )
        await call.ok(
            "memory_log_playlist_mutation",
            {
                "user_id": BOB,
                "playlist_id": MIX,
                "type": "ADD_TRACKS",
                "payload": {"track_ids": [track(9)]},
                "timestamp": "2026-02-01T00:00:00Z",
            },
        )
        now = await call.ok("memory_reconstruct_playlist", {"user_id": BOB, "playlist_id": MIX})
        assert now["track_ids"] == answers[f"{MIX}@None"]["result"]["track_ids"] + [track(9)]


async def test_in_continuation_parts_with_chunks(settings_factory: Any) -> None:
    async with connected(settings_factory(export_part_bytes=10_000)) as call:
        await write_rich_user(call, ALICE)
        # A snapshot larger than a part (travels as chunks), and enough records for several parts.
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": ALICE, "playlist_id": BIG, "name": "Long", "track_ids": [track(n) for n in range(1, 700)]},
        )
        await call.ok(
            "memory_log_plays",
            {
                "user_id": ALICE,
                "plays": [
                    {"artist": f"Band {n}", "track": f"Song {n}", "played_at": "2026-03-01T08:00:00Z"}
                    for n in range(400)
                ],
            },
        )
        parts = await export_parts(call, ALICE)
        assert len(parts) > 3 and any(p["chunks"] for p in parts), "pieces larger than a part travel as chunks"
        original, answers, result = await moved(call, parts, write=False)
        assert {k: result["imported"][k] for k in KINDS} == KINDS | {"playlists": 4}
        assert await comparable_export(call, BOB) == original
        assert await reads(call, BOB) == answers


async def test_replace_swaps_a_users_data_and_only_with_replace(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create", {"user_id": BOB, "playlist_id": OLD, "name": "Bob's", "track_ids": [track(1)]}
        )
        await call.ok(
            "memory_add",
            {"user_id": BOB, "type": "insight", "entities": ["Bob"], "summary": "Bob's own", "importance": 9},
        )
        bobs = await comparable_export(call, BOB)
        await write_rich_user(call, ALICE)
        original, answers = await comparable_export(call, ALICE), await reads(call, ALICE)
        data = await export_parts(call, ALICE)
        await call.ok("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
        for extra in ({}, {"replace": False}):
            arguments = {"user_id": BOB, "data": data, "confirm": True, **extra}
            error = await call.error("memory_import_user_data", arguments, "CONFLICT")
            assert error["details"]["reason"] == "user_has_data", error
        assert await comparable_export(call, BOB) == bobs
        result = await import_tool(call, BOB, data, replace=True)
        assert result["replaced"] is True and result["imported"]["playlists"] == 3
        assert await comparable_export(call, BOB) == original
        assert await reads(call, BOB) == answers
        await call.error("memory_get_playlist", {"user_id": BOB, "playlist_id": OLD}, "NOT_FOUND")
        # Again over the same data: exact again (nothing of the replaced import stays behind).
        assert (await import_tool(call, BOB, data, replace=True))["replaced"] is True
        assert await comparable_export(call, BOB) == original
        # Bob now holds the export's preference event ids: another user cannot take them.
        error = await call.error(
            "memory_import_user_data", {"user_id": ALICE, "data": data, "confirm": True, "replace": True}, "CONFLICT"
        )
        assert error["details"]["reason"] == "event_id_taken" and len(error["details"]["event_ids"]) == 5
        assert await call.service.transfer.export_all(ALICE) | {"as_of": None} == EMPTY | {"as_of": None}


async def test_replace_with_a_bad_export_deletes_nothing(settings: Settings) -> None:
    async with connected(settings) as call:
        await write_rich_user(call, BOB)
        before, answers = await comparable_export(call, BOB), await reads(call, BOB)
        data = await export_parts(call, BOB)
        data[-1]["memory_aging"][-1]["recorded_at"] = "last tuesday"
        error = await call.error(
            "memory_import_user_data",
            {"user_id": BOB, "data": data, "confirm": True, "replace": True},
            "INVALID_ARGUMENT",
        )
        assert error["details"]["field"] == "data.memory_aging", error
        assert await comparable_export(call, BOB) == before
        assert await reads(call, BOB) == answers
