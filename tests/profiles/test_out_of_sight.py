"""Preference events with ``payload.sensitive: true`` and profile fields listed in the profile's
``sensitive_fields``, through the MCP tools: out of the context block and of memory_search unless
the asking text names them, still taking part in supersession, shown (marked) by memory_inspect,
kept by export and import, gone with forget, and never another user's."""

from __future__ import annotations

from typing import Any

from service.settings import Settings
from tests.support import connected
from tests.support.contract import assert_valid_success

ALICE, BOB = 1, 2
HYMNS = {
    "type": "like",
    "source": "user",
    "payload": {"subject": "Dad's funeral hymns", "raw_text": "the hymns we sang for Dad", "sensitive": True},
}
DRAKE = {"type": "like", "source": "user", "payload": {"artist": "Nick Drake", "raw_text": "Pink Moon, always"}}
PROFILE = {
    "likes": ["Nick Drake", "the hymns from the funeral"],
    "loved_funeral_songs": ["Abide with Me"],
    "secret_corner": "Abide with Me hums",
    "sensitive_fields": ["/likes/1", "/loved_funeral_songs", "/secret_corner"],
}


async def _block(call: Any, user_id: int = ALICE, focus: str | None = None) -> str:
    args: dict[str, Any] = {"user_id": user_id, "budget_tokens": 2000}
    if focus is not None:
        args["focus"] = focus
    answer = await call("memory_get_context", args)
    assert_valid_success("memory.get_context", answer)
    return str(answer["result"]["block"])


async def _hits(call: Any, query: str, user_id: int = ALICE) -> list[dict[str, Any]]:
    answer = await call("memory_search", {"user_id": user_id, "query": query})
    assert_valid_success("memory.search", answer)
    return list(answer["result"]["results"])


async def test_a_sensitive_event_stays_out_of_the_block_unless_focus_names_it(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_append_preference_event", {"user_id": ALICE, **DRAKE})
        before = await _block(call)  # the user's event lines are now kept between calls
        assert "Nick Drake" in before
        hymns = (await call.ok("memory_append_preference_event", {"user_id": ALICE, **HYMNS}))["event_id"]
        for focus in (None, "sad songs", "hymns", "funeral"):
            block = await _block(call, focus=focus)
            assert "Nick Drake" in block and "hymns" not in block.casefold(), focus
        named = await _block(call, focus="play Dad's funeral hymns")
        assert "Dad's funeral hymns" in named and "Nick Drake" in named
        await call.ok("memory_append_preference_event", {"user_id": BOB, **HYMNS})
        assert "hymns" not in (await _block(call, BOB)).casefold()
        # Built afresh (nothing kept), the block is the one served while the lines were kept.
        kept = await _block(call)
        call.service.context.forget_served(ALICE)
        assert await _block(call) == kept
        await call.ok("memory_forget", {"user_id": ALICE, "kind": "preference_event", "id": hymns, "confirm": True})
        assert await _block(call, focus="play Dad's funeral hymns") == before


async def test_a_sensitive_opinion_still_supersedes_the_one_before_it(settings: Settings) -> None:
    async with connected(settings) as call:
        liked = {
            "type": "like",
            "source": "user",
            "payload": {"artist": "Coldplay"},
            "timestamp": "2025-01-01T00:00:00Z",
        }
        await call.ok("memory_append_preference_event", {"user_id": ALICE, **liked})
        assert "Coldplay" in await _block(call)
        hurt = {
            "type": "dislike",
            "source": "user",
            "payload": {"artist": "Coldplay", "raw_text": "played at the funeral", "sensitive": True},
            "timestamp": "2025-02-01T00:00:00Z",
        }
        await call.ok("memory_append_preference_event", {"user_id": ALICE, **hurt})
        assert "Coldplay" not in await _block(call)  # neither the old like nor the hidden dislike
        assert "played at the funeral" in await _block(call, focus="Coldplay")


async def test_a_sensitive_event_comes_back_from_search_only_by_name(settings: Settings) -> None:
    async with connected(settings) as call:
        hymns = (await call.ok("memory_append_preference_event", {"user_id": ALICE, **HYMNS}))["event_id"]
        drake = (await call.ok("memory_append_preference_event", {"user_id": ALICE, **DRAKE}))["event_id"]
        for query in ("hymns", "the hymns we sang", "funeral", "sang for Dad"):
            assert hymns not in [h["id"] for h in await _hits(call, query)], query
        named = await _hits(call, "Dad's funeral hymns")
        assert named and named[0]["id"] == hymns
        assert drake in [h["id"] for h in await _hits(call, "Pink Moon")]


async def test_a_payload_sensitive_that_is_not_a_boolean_is_refused_and_nothing_is_stored(settings: Settings) -> None:
    async with connected(settings) as call:
        bad = {**HYMNS, "payload": {**HYMNS["payload"], "sensitive": "yes"}}
        refused = await call("memory_append_preference_event", {"user_id": ALICE, **bad})
        assert refused["success"] is False
        assert refused["error"]["code"] == "INVALID_ARGUMENT"
        assert refused["error"]["details"]["field"] == "payload.sensitive"
        assert (await call.ok("memory_status", {"user_id": ALICE}))["counts"]["preference_events"] == 0


async def test_sensitive_fields_keep_profile_fields_out_of_the_block_and_search(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": ALICE, "patch": PROFILE, "reason": "told us"})
        block = await _block(call)
        assert "Nick Drake" in block
        for hidden in ("funeral", "Abide", "sensitive_fields", "secret_corner"):
            assert hidden not in block, hidden
        answer = await call.ok("memory_get_context", {"user_id": ALICE, "detail": "full"})
        assert "secret_corner" not in str(answer["diagnostics"])  # not even as an unclassified key
        assert "Abide with Me" in await _block(call, focus="Abide with Me")
        assert "the hymns from the funeral" in await _block(call, focus="the hymns from the funeral")
        assert "funeral" not in await _block(call, focus="funeral")  # a part of it is no name
        for query in ("funeral", "hymns", "Abide", "sensitive fields", "corner hums"):
            assert not [h for h in await _hits(call, query) if "funeral" in str(h) or "Abide" in str(h)], query
        named = await _hits(call, "Abide with Me")
        assert {h["id"] for h in named} >= {"profile:/loved_funeral_songs"}
        assert all(h["metadata"].get("sensitive") is True for h in named if h["id"].startswith("profile:/"))
        likes = [h for h in await _hits(call, "Nick Drake") if h["kind"] == "profile"]
        assert likes and "funeral" not in str(likes)


async def test_sensitive_fields_must_be_json_pointers_and_a_refusal_writes_nothing(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": ALICE, "patch": {"likes": ["Nick Drake"]}, "reason": "r"})
        for bad in (["likes/0"], "/likes/0", [3], ["/x"] * 201):
            refused = await call(
                "memory_update_profile", {"user_id": ALICE, "patch": {"sensitive_fields": bad}, "reason": "r"}
            )
            assert refused["success"] is False and refused["error"]["code"] == "INVALID_ARGUMENT", bad
            assert refused["error"]["details"]["field"] == "patch.sensitive_fields"
        profile = await call.ok("memory_get_profile", {"user_id": ALICE})
        assert profile["version"] == 1 and "sensitive_fields" not in profile["profile"]
        cleared = {"sensitive_fields": ["/likes/0"]}
        await call.ok("memory_update_profile", {"user_id": ALICE, "patch": cleared, "reason": "r"})
        assert "Nick Drake" not in await _block(call)
        await call.ok("memory_update_profile", {"user_id": ALICE, "patch": {"sensitive_fields": None}, "reason": "r"})
        assert "Nick Drake" in await _block(call)


async def test_inspect_shows_what_is_kept_out_of_sight_marked_and_only_the_users_own(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": ALICE, "patch": PROFILE, "reason": "told us"})
        hymns = (await call.ok("memory_append_preference_event", {"user_id": ALICE, **HYMNS}))["event_id"]
        await call.ok("memory_append_preference_event", {"user_id": ALICE, **DRAKE})
        memory = {"type": "insight", "entities": ["Dad's funeral"], "summary": "only if asked", "sensitive": True}
        memory["importance"] = 9
        memory_id = (await call.ok("memory_add", {"user_id": ALICE, **memory}))["memory_id"]
        answer = await call("memory_inspect", {"user_id": ALICE})
        assert_valid_success("memory.inspect", answer)
        seen = answer["result"]["out_of_sight"]
        assert [m["memory_id"] for m in seen["memories"]] == [memory_id] and seen["memory_count"] == 1
        assert seen["memories"][0]["sensitive"] is True
        assert [e["event_id"] for e in seen["events"]] == [hymns] and seen["event_count"] == 1
        assert seen["events"][0]["subjects"] == ["Dad's funeral hymns"]
        assert seen["fields"] == PROFILE["sensitive_fields"] and seen["field_count"] == 3
        marks = {f["path"]: f.get("sensitive", False) for f in answer["result"]["profile_fields"]}
        assert marks["/likes/1"] and marks["/loved_funeral_songs/0"] and marks["/secret_corner"]
        assert not marks["/likes/0"] and not marks["/sensitive_fields/0"]
        bob = await call("memory_inspect", {"user_id": BOB})
        assert_valid_success("memory.inspect", bob)
        assert bob["result"]["out_of_sight"] == {
            "memories": [],
            "memory_count": 0,
            "events": [],
            "event_count": 0,
            "fields": [],
            "field_count": 0,
        }
        await call.ok("memory_forget", {"user_id": ALICE, "kind": "preference_event", "id": hymns, "confirm": True})
        assert (await call.ok("memory_inspect", {"user_id": ALICE}))["out_of_sight"]["event_count"] == 0


async def test_export_and_import_keep_what_is_out_of_sight_out_of_sight(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": ALICE, "patch": PROFILE, "reason": "told us"})
        await call.ok("memory_append_preference_event", {"user_id": ALICE, **HYMNS})
        await call.ok("memory_append_preference_event", {"user_id": ALICE, **DRAKE})
        exported = (await call.ok("memory_export_user_data", {"user_id": ALICE}))["data"]
        await call.ok("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
        await call.ok("memory_import_user_data", {"user_id": ALICE, "data": exported, "confirm": True})
        block = await _block(call)
        assert "Nick Drake" in block and "funeral" not in block and "Abide" not in block
        assert "Dad's funeral hymns" in await _block(call, focus="Dad's funeral hymns")
        seen = (await call.ok("memory_inspect", {"user_id": ALICE}))["out_of_sight"]
        assert seen["event_count"] == 1 and seen["field_count"] == 3
