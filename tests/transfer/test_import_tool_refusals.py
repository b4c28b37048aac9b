"""memory_import_user_data refuses without writing: an export malformed anywhere (in its last part
too) is INVALID_ARGUMENT naming data or data.<section> and stores nothing; the import is audited
as the tool call that made it; the target is the user_id argument, whatever the data names."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from service.settings import Settings
from tests.support import Caller, connected, track
from tests.support.contract import assert_valid_error
from tests.support.rich_user import export_parts, write_rich_user

ALICE, BOB, CAROL = 31, 32, 99


def last(section: str, change: Callable[[dict[str, Any]], Any]) -> Callable[[list[dict[str, Any]]], Any]:
    """Break the last piece of ``section`` (the export's last part holding one)."""

    def mutate(parts: list[dict[str, Any]]) -> None:
        change([p for p in parts if p.get(section)][-1][section][-1])

    return mutate


def playlist_event(change: Callable[[dict[str, Any]], Any]) -> Callable[[list[dict[str, Any]]], Any]:
    def mutate(parts: list[dict[str, Any]]) -> None:
        change([e for p in parts for entry in p["playlists"] for e in entry["events"]][-1])

    return mutate


def drop(name: str) -> Callable[[dict[str, Any]], Any]:
    return lambda body: body.pop(name)


def setter(name: str, value: Any) -> Callable[[dict[str, Any]], Any]:
    return lambda body: body.__setitem__(name, value)


BREAKS: dict[str, tuple[Callable[[list[dict[str, Any]]], Any], str]] = {
    "a memory's importance": (last("memories", setter("importance", "high")), "data.memories"),
    "a memory without entities": (last("memories", drop("entities")), "data.memories"),
    "an aging record's date": (last("memory_aging", setter("aged_at", "2026-13-45")), "data.memory_aging"),
    "an aging record without its id": (last("memory_aging", drop("aging_id")), "data.memory_aging"),
    "a play's time": (last("plays", lambda b: b["plays"][-1].__setitem__("played_at", 5)), "data.plays"),
    "an event's timestamp": (last("preference_events", setter("timestamp", "yesterday")), "data.preference_events"),
    "an event without its id": (last("preference_events", drop("event_id")), "data.preference_events"),
    "a playlist event's payload": (playlist_event(setter("payload", None)), "data.playlists"),
    "a playlist event without seq": (playlist_event(drop("seq")), "data.playlists"),
    "a playlist without snapshots": (
        lambda parts: parts[0]["playlists"][0].__setitem__("snapshots", []),
        "data.playlists",
    ),
    "a track without its id": (last("tracks", drop("track_id")), "data.tracks"),
    "a choice without its text": (last("track_choices", drop("folded")), "data.track_choices"),
    "a profile history date": (
        lambda parts: parts[0]["profile"]["history"][-1].__setitem__("applied_at", "x"),
        "data.profile",
    ),
    "a memory twice": (
        lambda parts: parts[-1]["memories"].append(copy.deepcopy(parts[-1]["memories"][0])),
        "data.memories",
    ),
    "a section that is not a list": (lambda parts: parts[-1].__setitem__("plays", {"a": 1}), "data.plays"),
    "another format": (lambda parts: parts[-1].__setitem__("format", "other/1"), "data.format"),
    "a part that is not an object": (lambda parts: parts.append("part"), "data.format"),
    "no part": (lambda parts: parts.clear(), "data"),
}


async def rich_export(call: Caller) -> list[dict[str, Any]]:
    """Alice's export in several parts (then Alice deleted: her event ids are free again)."""
    await write_rich_user(call, ALICE)
    parts = await export_parts(call, ALICE)
    await call.ok("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
    return parts


async def nothing_stored(call: Caller, user: int) -> bool:
    db = call.service.database
    return not any([await c.count_documents({"user_id": user}) for c in db.user_collections()]) and user not in [
        u["user_id"] for u in (await call.ok("ops_list_users", {}))["users"]
    ]


async def test_a_malformed_export_anywhere_stores_nothing(settings: Settings) -> None:
    async with connected(settings) as call:
        parts = await rich_export(call)
        wrong = []
        for label, (mutate, field) in BREAKS.items():
            data = copy.deepcopy(parts)
            mutate(data)
            envelope = await call("memory_import_user_data", {"user_id": BOB, "data": data, "confirm": True})
            error = assert_valid_error(envelope)
            if error["code"] != "INVALID_ARGUMENT" or error["details"].get("field") != field:
                wrong.append(f"{label}: {error}")
            assert await nothing_stored(call, BOB), f"{label}: a rejected import wrote something"
        assert not wrong, "\n".join(wrong)
        # The untouched export is accepted.
        assert (await call.ok("memory_import_user_data", {"user_id": BOB, "data": parts, "confirm": True}))["imported"][
            "playlists"
        ] == 3


async def test_a_chunked_piece_without_its_last_part_is_refused(settings_factory: Any) -> None:
    async with connected(settings_factory(export_part_bytes=10_000)) as call:
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": ALICE,
                "playlist_id": "playlist00000000000001",
                "name": "Long",
                "track_ids": [track(n) for n in range(1, 900)],
            },
        )
        parts = await export_parts(call, ALICE)
        await call.ok("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
        chunked = [i for i, p in enumerate(parts) if p["chunks"]]
        assert len(chunked) > 1
        error = await call.error(
            "memory_import_user_data",
            {"user_id": BOB, "data": parts[: chunked[-1]], "confirm": True},
            "INVALID_ARGUMENT",
        )
        assert error["details"]["field"] == "data.chunks"
        parts[chunked[0]]["chunks"][0]["text"] = "{" + parts[chunked[0]]["chunks"][0]["text"]  # not JSON once joined
        error = await call.error(
            "memory_import_user_data", {"user_id": BOB, "data": parts, "confirm": True}, "INVALID_ARGUMENT"
        )
        assert error["details"]["field"] == "data.chunks"
        assert await nothing_stored(call, BOB)


@pytest.mark.parametrize(
    "arguments", [{"confirm": False}, {"confirm": "true"}, {}, {"replace": "yes"}, {"data": "{}"}, {"data": None}]
)
async def test_the_schema_asks_for_confirm_and_an_export(settings: Settings, arguments: dict[str, Any]) -> None:
    async with connected(settings) as call:
        base = {"user_id": BOB, "data": {"format": "taste-memory-export/1"}, "confirm": True}
        error = await call.error(
            "memory_import_user_data",
            {k: v for k, v in (base | arguments).items() if k != "confirm" or arguments != {}},
            "INVALID_ARGUMENT",
        )
        assert error["details"]["field"] == next(iter(arguments), "confirm")
        assert await nothing_stored(call, BOB)


async def test_the_import_is_audited_as_the_tool_call_and_records_keep_their_author(settings: Settings) -> None:
    async with connected(settings) as call:
        parts = await rich_export(call)
        await call.ok("memory_import_user_data", {"user_id": BOB, "data": parts, "confirm": True})
        entries = (await call.ok("ops_audit", {"user_id": BOB, "limit": 500}))["entries"]
        data = await call.service.transfer.export_all(BOB)
    assert entries and {e["tool"] for e in entries} == {"memory.import_user_data"}, entries[:3]
    assert len({e["request_id"] for e in entries}) == 1, "one call, one request id"
    assert {e["written_by"]["tool"] for e in data["preference_events"]} == {"memory.append_preference_event"}
    assert data["profile"]["history"][0]["written_by"]["tool"] == "memory.update_profile"


async def test_ids_inside_the_data_select_no_user(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_add",
            {"user_id": CAROL, "type": "insight", "entities": ["Carol"], "summary": "hers", "importance": 9},
        )
        carol = await call.service.transfer.export_all(CAROL)
        parts = await rich_export(call)
        text = json.dumps(parts).replace(f'"user_id": {ALICE}', f'"user_id": {CAROL}')
        assert f'"user_id": {CAROL}' in text  # events and the profile name a user
        for part in (data := json.loads(text)):
            part["user_id"] = CAROL
        result = await call.ok("memory_import_user_data", {"user_id": BOB, "data": data, "confirm": True})
        assert result["user_id"] == BOB and result["imported"]["preference_events"] == 5
        assert (await call.service.transfer.export_all(CAROL)) | {"as_of": None} == carol | {"as_of": None}
        mine = await call.service.transfer.export_all(BOB)
        assert {e["user_id"] for e in mine["preference_events"]} == {BOB} and mine["profile"]["user_id"] == BOB
