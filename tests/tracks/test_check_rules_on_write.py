"""Every write checked, on request: memory_log_playlist_create and memory_log_playlist_mutation with
``check_rules: true`` answer a ``rule_report`` of the playlist as it stands after the write, under the
profile's rules (in a situation when one is named, or a creation's intent tags name one); the write is
never refused for it, and without the argument the answers are exactly the PRD's."""

from __future__ import annotations

import json
from typing import Any

from service.settings import Settings
from tests.support import Caller, connected, track
from tests.support.contract import assert_valid_error, assert_valid_success

USER = 7
PID = "checkedplaylist0000001"
CATALOG = [
    {"track_id": track(1), "name": "Photograph", "artists": ["Nickelback"], "genres": ["post-grunge"]},
    {"track_id": track(2), "name": "Scary Monsters", "artists": ["Skrillex"], "genres": ["dubstep"]},
    {"track_id": track(3), "name": "Macarena", "artists": ["Los del Río"], "genres": ["latin pop"]},
    {"track_id": track(4), "name": "Song 2", "artists": ["Blur"], "genres": ["britpop"]},
    {"track_id": track(5), "name": "Master of Puppets", "artists": ["Metallica"], "genres": ["metal"]},
]
PROFILE = {
    "avoid": ["Nickelback", "dubstep", "Macarena", "metal"],
    "situations": {"gym": {"avoid": ["Nickelback", "dubstep", "Macarena"]}},
}


async def prepared(call: Caller) -> None:
    await call.ok("memory_upsert_tracks", {"user_id": USER, "tracks": CATALOG})
    await call.ok("memory_update_profile", {"user_id": USER, "patch": PROFILE})


async def create(call: Caller, track_ids: list[str], **extra: Any) -> dict[str, Any]:
    arguments = {"user_id": USER, "playlist_id": PID, "name": "Run", "track_ids": track_ids, **extra}
    return assert_valid_success("memory.log_playlist_create", await call("memory_log_playlist_create", arguments))


async def mutate(call: Caller, kind: str, track_ids: list[str], **extra: Any) -> dict[str, Any]:
    arguments = {"user_id": USER, "playlist_id": PID, "type": kind, "payload": {"track_ids": track_ids}, **extra}
    return assert_valid_success("memory.log_playlist_mutation", await call("memory_log_playlist_mutation", arguments))


def found(report: dict[str, Any]) -> list[tuple[str, list[str]]]:
    return [(v["rule"], v["track_ids"]) for v in report["violations"]]


async def test_without_check_rules_the_answers_are_the_prds(settings: Settings) -> None:
    async with connected(settings) as call:
        await prepared(call)
        created = await create(call, [track(1), track(4)])
        changed = await mutate(call, "ADD_TRACKS", [track(2)])
        with_situation = await mutate(call, "REMOVE_TRACKS", [track(2)], situation="gym")
    assert set(created) == {"playlist_id", "snapshot_id", "created_at", "stored_track_count"}
    assert set(changed) == {"event_id", "playlist_id", "timestamp", "new_snapshot_id"}
    assert set(with_situation) == set(changed)  # a situation alone asks for no report


async def test_a_create_breaking_the_rules_is_stored_and_reported(settings: Settings) -> None:
    async with connected(settings) as call:
        await prepared(call)
        playlist = [track(1), track(2), track(3), track(4), track(99)]
        created = await create(call, playlist, check_rules=True)
        stored = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": PID})
    report = created["rule_report"]
    assert found(report) == [("avoid_tracks", [track(3)]), ("avoid_artists", [track(1)]), ("avoid_genres", [track(2)])]
    assert all(v["message"] and v["suggestion"] for v in report["violations"])
    assert not report["ok"] and report["violation_count"] == 3 and report["situation"] is None
    assert report["unknown_tracks"] == [track(99)] and report["unknown_count"] == 1
    assert stored["track_ids"] == playlist  # never refused: the ledger records what happened
    assert set(created) - {"rule_report"} == {"playlist_id", "snapshot_id", "created_at", "stored_track_count"}


async def test_a_mutation_reports_the_playlist_after_it(settings: Settings) -> None:
    async with connected(settings) as call:
        await prepared(call)
        clean = await create(call, [track(4)], check_rules=True)
        added = await mutate(call, "ADD_TRACKS", [track(5)], check_rules=True)
        removed = await mutate(call, "REMOVE_TRACKS", [track(5)], check_rules=True)
    assert clean["rule_report"]["ok"]
    assert found(added["rule_report"]) == [("avoid_genres", [track(5)])] and not added["rule_report"]["ok"]
    assert removed["rule_report"]["ok"] and removed["rule_report"]["violations"] == []


async def test_a_situation_by_argument_or_by_a_creations_intent_tags(settings: Settings) -> None:
    async with connected(settings) as call:
        await prepared(call)
        tagged = await create(call, [track(4), track(5)], intent_tags=["workout", "gym"], check_rules=True)
        base = await mutate(call, "ADD_TRACKS", [track(5)], check_rules=True)
        gym = await mutate(call, "REMOVE_TRACKS", [track(4)], check_rules=True, situation="gym")
    assert tagged["rule_report"]["situation"] == "gym" and tagged["rule_report"]["ok"]  # metal is fine at the gym
    assert base["rule_report"]["situation"] is None
    assert found(base["rule_report"]) == [("no_duplicates", [track(5)]), ("avoid_genres", [track(5)])]
    assert gym["rule_report"]["situation"] == "gym"
    assert found(gym["rule_report"]) == [("no_duplicates", [track(5)])]


async def test_an_unknown_situation_is_refused_before_anything_is_written(settings: Settings) -> None:
    async with connected(settings) as call:
        await prepared(call)
        arguments = {"user_id": USER, "playlist_id": PID, "name": "Run", "track_ids": [track(4)]}
        refused = await call("memory_log_playlist_create", {**arguments, "check_rules": True, "situation": "moon"})
        listed = await call.ok("memory_get_playlists", {"user_id": USER})
        await create(call, [track(4)])
        change = {"user_id": USER, "playlist_id": PID, "type": "ADD_TRACKS", "payload": {"track_ids": [track(5)]}}
        refused_change = await call("memory_log_playlist_mutation", {**change, "situation": "moon"})
        stored = await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": PID})
    for envelope in (refused, refused_change):
        error = assert_valid_error(envelope)
        assert error["code"] == "INVALID_ARGUMENT" and error["details"]["field"] == "situation"
        assert error["details"]["situations"] == ["gym"]
    assert listed["items"] == []
    assert stored["latest_snapshot"]["track_ids"] == [track(4)] and stored["recent_events"] == []


async def test_a_retry_reports_the_playlist_as_it_stands_now(settings: Settings) -> None:
    async with connected(settings) as call:
        await prepared(call)
        first = await create(call, [track(4)], idempotency_key="retry-key-0001")
        await mutate(call, "ADD_TRACKS", [track(1)])
        retry = await create(call, [track(4)], idempotency_key="retry-key-0001", check_rules=True)
    assert {k: retry[k] for k in first} == first  # the same request: the first answer, no CONFLICT
    assert found(retry["rule_report"]) == [("avoid_artists", [track(1)])]


async def test_the_report_stays_small_for_a_long_playlist(settings: Settings) -> None:
    async with connected(settings) as call:
        await prepared(call)
        playlist = [track(n) for n in range(1000, 3500)] * 2  # 5,000 entries, each twice, none in the catalog
        created = await create(call, playlist, check_rules=True)
    report = created["rule_report"]
    assert report["violation_count"] == 2500 and len(report["violations"]) == 10
    assert report["unknown_count"] == 2500 and len(report["unknown_tracks"]) == 50
    assert len(json.dumps(created).encode()) < 16_000
