"""memory_list_conflicts and memory_resolve_conflict through the MCP client: a conflict appears at
its threshold, a resolution is a preference event that supersession and provenance see, the
conflict stays closed until new plays cross the threshold again, another user's id is a missing
one, and export/import, forget and delete carry the resolution like any event."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from service.settings import Settings
from tests.support import Caller, connected, track
from tests.support.contract import assert_valid_success

USER, OTHER = 1, 2


def ago(**delta: float) -> str:
    return (datetime.now(UTC) - timedelta(**delta)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


async def ok(call: Caller, tool: str, arguments: dict[str, Any]) -> Any:
    """A call whose whole answer validates against the tool's result schema (items included)."""
    return assert_valid_success(tool.replace("_", ".", 1), await call(tool, arguments))


async def say(call: Caller, kind: str, payload: dict[str, Any], user_id: int = USER, **extra: Any) -> str:
    arguments = {"user_id": user_id, "type": kind, "source": "user", "payload": payload, **extra}
    return str((await call.ok("memory_append_preference_event", arguments))["event_id"])


async def played(call: Caller, artist: str, times: int, user_id: int = USER, **fields: Any) -> None:
    plays = [{"artist": artist, "track": f"song {i}", "played_at": ago(hours=i + 1), **fields} for i in range(times)]
    await call.ok("memory_log_plays", {"user_id": user_id, "plays": plays})


async def conflicts(call: Caller, user_id: int = USER) -> list[dict[str, Any]]:
    return list((await ok(call, "memory_list_conflicts", {"user_id": user_id}))["conflicts"])


async def test_five_plays_of_a_dislike_is_a_conflict_and_updating_it_records_a_superseding_like(
    settings: Settings,
) -> None:
    async with connected(settings) as call:
        disliked = await say(call, "dislike", {"artist": "Nickelback", "raw_text": "I can't stand Nickelback"})
        await played(call, "nickelback", 4)
        assert await conflicts(call) == []  # four plays: not yet
        await played(call, "Nickelback", 2)  # "Nickelback" folds as "nickelback"; ages 1h and 2h are new plays
        [found] = await conflicts(call)
        assert found["kind"] == "played_despite_dislike" and found["subject"] == {"artist": "Nickelback"}
        assert found["stated"]["event_ids"] == [disliked] and found["stated"]["text"] == "I can't stand Nickelback"
        assert found["played"]["count"] == 6 and found["played"]["days"] == 30
        assert len(found["played"]["examples"]) == 3

        arguments = {"user_id": USER, "conflict_id": found["conflict_id"], "resolution": "update_preference"}
        resolved = await ok(call, "memory_resolve_conflict", {**arguments, "note": "grew on me"})
        event = resolved["event"]
        assert (event["type"], event["source"], event["payload"]["artist"]) == ("like", "user", "Nickelback")
        assert "grew on me" in event["payload"]["raw_text"]
        assert await conflicts(call) == []
        # A retry answers the same and writes nothing; another answer to a settled conflict is refused.
        assert await ok(call, "memory_resolve_conflict", {**arguments, "note": "grew on me"}) == resolved
        refused = await call.error("memory_resolve_conflict", {**arguments, "resolution": "dismiss"}, "CONFLICT")
        assert refused["details"]["reason"] == "already_resolved"
        events = await call.service.database.preference_events.find({"user_id": USER})
        assert len(events) == 2

        # Supersession and provenance see it: the like replaces the dislike.
        explained = await call.ok("memory_explain", {"user_id": USER, "path": "Nickelback"})
        rows = {row["id"]: row for row in explained["evidence"]}
        assert rows[disliked]["superseded_by"] == event["event_id"]
        assert "superseded_by" not in rows[event["event_id"]] or rows[event["event_id"]]["superseded_by"] is None


async def test_keep_and_dismiss_close_a_conflict_until_new_plays_cross_the_threshold_again(settings: Settings) -> None:
    async with connected(settings) as call:
        await say(call, "dislike", {"genre": "Country"})
        await call.ok(
            "memory_upsert_tracks",
            {
                "user_id": USER,
                "tracks": [{"track_id": track(1), "name": "Road", "artists": ["A"], "genres": ["country"]}],
            },
        )
        await played(call, "A", 5, track_id=track(1))  # the genre comes from the catalog
        await played(call, "B", 9)  # plays without a catalogued track have no genre
        [first] = await conflicts(call)
        assert first["subject"] == {"genre": "Country"} and first["played"]["count"] == 5
        kept = await ok(
            call,
            "memory_resolve_conflict",
            {"user_id": USER, "conflict_id": first["conflict_id"], "resolution": "keep_statement"},
        )
        assert kept["event"]["type"] == "dislike" and kept["event"]["payload"]["genre"] == "Country"
        assert await conflicts(call) == []  # the same plays do not bring it back
        await asyncio.sleep(0.01)  # plays after the resolution, none in the future
        now_plays = [{"artist": "A", "track": f"new {i}", "track_id": track(1), "played_at": ago()} for i in range(5)]
        await call.ok("memory_log_plays", {"user_id": USER, "plays": now_plays})
        [again] = await conflicts(call)
        assert again["conflict_id"] != first["conflict_id"] and again["played"]["count"] == 5
        assert again["stated"]["event_ids"][0] == kept["event"]["event_id"]  # the restated dislike is in force
        dismissed = await ok(
            call,
            "memory_resolve_conflict",
            {"user_id": USER, "conflict_id": again["conflict_id"], "resolution": "dismiss"},
        )
        assert dismissed["event"]["type"] == "note"
        assert await conflicts(call) == []


async def test_another_users_conflict_id_answers_like_a_made_up_one(settings: Settings) -> None:
    async with connected(settings) as call:
        await say(call, "dislike", {"artist": "Muse"})
        await played(call, "Muse", 5)
        [mine] = await conflicts(call)
        await say(call, "dislike", {"artist": "Muse"}, OTHER)
        assert await conflicts(call, OTHER) == []  # USER's plays are USER's
        theirs = await call.error(
            "memory_resolve_conflict",
            {"user_id": OTHER, "conflict_id": mine["conflict_id"], "resolution": "dismiss"},
            "NOT_FOUND",
        )
        made_up = await call.error(
            "memory_resolve_conflict",
            {"user_id": OTHER, "conflict_id": "cf_made_up", "resolution": "dismiss"},
            "NOT_FOUND",
        )
        assert theirs == made_up
        assert len(await call.service.database.preference_events.find({"user_id": OTHER})) == 1  # nothing written
        assert [c["conflict_id"] for c in await conflicts(call)] == [mine["conflict_id"]]


async def test_a_like_unplayed_for_180_days_with_100_plays_logged(settings: Settings) -> None:
    async with connected(settings) as call:
        await say(call, "like", {"artist": "Portishead"}, timestamp=ago(days=200))
        await call.ok(
            "memory_log_plays",
            {"user_id": USER, "plays": [{"artist": "Other", "played_at": ago(days=300, minutes=i)} for i in range(99)]},
        )
        assert await conflicts(call) == []  # 99 plays logged
        await played(call, "Other", 1)
        [found] = await conflicts(call)
        assert (found["kind"], found["played"]) == ("liked_but_unplayed", {"count": 0, "days": 180, "examples": []})
        resolved = await ok(
            call,
            "memory_resolve_conflict",
            {"user_id": USER, "conflict_id": found["conflict_id"], "resolution": "update_preference"},
        )
        assert resolved["event"]["type"] == "dislike"
        assert await conflicts(call) == []


async def test_the_resolution_travels_with_export_import_and_goes_with_forget_and_delete(settings: Settings) -> None:
    async with connected(settings) as call:
        await say(call, "dislike", {"artist": "Muse"})
        await played(call, "Muse", 5)
        [found] = await conflicts(call)
        resolved = await call.ok(
            "memory_resolve_conflict", {"user_id": USER, "conflict_id": found["conflict_id"], "resolution": "dismiss"}
        )
        exported = (await call.ok("memory_export_user_data", {"user_id": USER}))["data"]
        await call.ok("memory_delete_user_data", {"user_id": USER, "confirm": True})
        assert await conflicts(call) == []
        await call.ok("memory_import_user_data", {"user_id": USER, "data": exported, "confirm": True})
        assert await conflicts(call) == []  # still closed after the import
        await call.ok(
            "memory_forget",
            {"user_id": USER, "kind": "preference_event", "id": resolved["event"]["event_id"], "confirm": True},
        )
        [back] = await conflicts(call)  # forgetting the resolution reopens the same conflict
        assert back["conflict_id"] == found["conflict_id"]


async def test_a_long_list_pages_with_a_cursor(settings: Settings) -> None:
    async with connected(settings) as call:
        for n in range(3):
            await say(call, "dislike", {"artist": f"Band {n}"})
            await played(call, f"Band {n}", 5 + n)
        seen, cursor = [], None
        while True:
            arguments: dict[str, Any] = {"user_id": USER, "limit": 1, **({"cursor": cursor} if cursor else {})}
            page = await ok(call, "memory_list_conflicts", arguments)
            assert page["total"] == 3
            seen += [c["subject"]["artist"] for c in page["conflicts"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert seen == ["Band 2", "Band 1", "Band 0"]  # most plays first
