"""memory_explain through the MCP tools: the patches that set a profile field (with their reasons),
the events and memories about its value or about a free subject, the capped history, NOT_FOUND,
and isolation between users."""

from __future__ import annotations

from typing import Any

from service.settings import Settings
from tests.support import Caller, connected
from tests.support.contract import assert_valid_success

ALICE, BOB = 1, 2


async def explain(call: Caller, path: str, user_id: int = ALICE) -> dict[str, Any]:
    envelope = await call("memory_explain", {"user_id": user_id, "path": path})
    return assert_valid_success("memory.explain", envelope)


async def patch(call: Caller, body: dict[str, Any], reason: str, user_id: int = ALICE) -> None:
    await call.ok("memory_update_profile", {"user_id": user_id, "patch": body, "reason": reason, "source": "user"})


async def event(call: Caller, kind: str, payload: dict[str, Any], when: str, user_id: int = ALICE) -> str:
    answer = await call.ok(
        "memory_append_preference_event",
        {"user_id": user_id, "type": kind, "payload": payload, "source": "user", "timestamp": when},
    )
    return answer["event_id"]


async def seed(call: Caller) -> dict[str, str]:
    await patch(call, {"rules": {"max_tracks_per_artist": 3}}, "User: at most three per artist")
    await patch(call, {"likes": {"artists": ["Nightwish", "Epica"]}}, "User loves symphonic metal")
    await patch(call, {"rules": {"max_tracks_per_artist": 2}}, "User: make that two")
    ids = {
        "rule": await event(
            call, "rule", {"max_tracks_per_artist": 2, "raw_text": "two per artist, max"}, "2025-01-02T00:00:00Z"
        ),
        "liked": await event(call, "like", {"artist": "nightwish", "raw_text": "so epic"}, "2025-01-03T00:00:00Z"),
        "said": await event(call, "note", {"raw_text": "Went to a Nightwish concert"}, "2025-01-04T00:00:00Z"),
        "other": await event(call, "like", {"artist": "Sabaton"}, "2025-01-05T00:00:00Z"),
        "relike": await event(call, "like", {"artist": "Nightwish", "raw_text": "still"}, "2025-01-06T00:00:00Z"),
    }
    chose = await call.ok(
        "memory_record_choice",
        {
            "user_id": ALICE,
            "chose": {"kind": "artist", "name": "Nightwish"},
            "over": {"kind": "artist", "name": "Sabaton"},
        },
    )
    ids["choice"] = chose["event_id"]
    memory = await call.ok(
        "memory_add",
        {
            "user_id": ALICE,
            "type": "insight",
            "entities": ["Nightwish"],
            "summary": "Loves Floor Jansen's vocals",
            "importance": 8,
        },
    )
    ids["memory"] = memory["memory_id"]
    return ids


async def test_a_field_set_by_two_patches_lists_both_with_their_reasons(settings: Settings) -> None:
    async with connected(settings) as call:
        ids = await seed(call)
        result = await explain(call, "/rules/max_tracks_per_artist")
        whole = await explain(call, "/rules")
    assert (result["value"], result["history_complete"], result["truncated"]) == (2, True, False)
    assert [(r["version"], r["reason"], r["source"], r["value"], r["path"]) for r in result["set_by"]] == [
        (3, "User: make that two", "user", 2, "/rules/max_tracks_per_artist"),
        (1, "User: at most three per artist", "user", 3, "/rules/max_tracks_per_artist"),
    ]
    assert [e["id"] for e in result["evidence"]] == [ids["rule"]]  # the event naming the field
    assert result["evidence"][0]["raw_text"] == "two per artist, max"
    assert whole["value"] == {"max_tracks_per_artist": 2} and [r["version"] for r in whole["set_by"]] == [3, 1]


async def test_a_list_element_is_explained_by_the_patch_and_the_events_about_its_value(settings: Settings) -> None:
    async with connected(settings) as call:
        ids = await seed(call)
        result = await explain(call, "/likes/artists/0")
    assert result["value"] == "Nightwish"
    assert [(r["version"], r["path"], r["value"], r["reason"]) for r in result["set_by"]] == [
        (2, "/likes/artists", "Nightwish", "User loves symphonic metal")
    ]  # arrays are replaced whole
    events = [e for e in result["evidence"] if e["kind"] == "preference_event"]
    assert [e["id"] for e in events] == [ids["choice"], ids["relike"], ids["said"], ids["liked"]]  # newest first
    assert events[0]["choice"] is True and events[0]["raw_text"] == 'Chose artist "Nightwish" over "Sabaton"'
    assert events[3]["superseded_by"] == ids["relike"] and "superseded_by" not in events[1]
    assert [m["id"] for m in result["evidence"] if m["kind"] == "memory"] == [ids["memory"]]


async def test_a_free_subject_finds_its_events_memories_and_patches(settings: Settings) -> None:
    async with connected(settings) as call:
        ids = await seed(call)
        result = await explain(call, "the NIGHTWISH")
        nothing = await explain(call, "Polka")
    assert result["value"] is None and result["path"] == "the NIGHTWISH"
    assert [(r["version"], r["path"], r["value"]) for r in result["set_by"]] == [(2, "/likes/artists/0", "Nightwish")]
    found = {e["id"] for e in result["evidence"]}
    assert found == {ids["choice"], ids["relike"], ids["said"], ids["liked"], ids["memory"]}
    memory = next(e for e in result["evidence"] if e["kind"] == "memory")
    assert memory["summary"] == "Loves Floor Jansen's vocals" and memory["entities"] == ["Nightwish"]
    assert (nothing["set_by"], nothing["evidence"]) == ([], [])


async def test_an_unknown_path_is_not_found_and_another_user_sees_nothing(settings: Settings) -> None:
    async with connected(settings) as call:
        await seed(call)
        missing = await call.error("memory_explain", {"user_id": ALICE, "path": "/likes/artists/7"}, "NOT_FOUND")
        await call.error("memory_explain", {"user_id": ALICE, "path": "/nope"}, "NOT_FOUND")
        await call.error("memory_explain", {"user_id": BOB, "path": "/likes/artists/0"}, "NOT_FOUND")
        await patch(call, {"likes": {"artists": ["Nightwish"]}}, "Bob too", user_id=BOB)
        bob = await explain(call, "/likes/artists/0", user_id=BOB)
        bob_subject = await explain(call, "Nightwish", user_id=BOB)
        await call.error("memory_explain", {"user_id": ALICE, "path": ""}, "INVALID_ARGUMENT")
    assert missing["details"]["field"] == "path"
    assert [(r["version"], r["reason"]) for r in bob["set_by"]] == [(1, "Bob too")]
    assert bob["evidence"] == [] and bob_subject["evidence"] == []


async def test_older_history_beyond_the_cap_is_said_to_be_gone(settings_factory: Any) -> None:
    async with connected(settings_factory(profile_history_cap=2)) as call:
        for n in range(1, 4):
            await patch(call, {"rules": {"max_tracks_per_artist": n}}, f"reason {n}")
        result = await explain(call, "/rules/max_tracks_per_artist")
    assert result["history_complete"] is False
    assert [(r["version"], r["value"]) for r in result["set_by"]] == [(3, 3), (2, 2)]
