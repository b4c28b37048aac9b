"""memory_rotation_report by example: names from the catalog, defaults, the budget, bad arguments."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from service.settings import Settings
from tests.support import connected, playlist, track
from tests.support.contract import assert_valid_success

USER = 5


def days_ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


async def report(call: Any, **arguments: Any) -> dict[str, Any]:
    return assert_valid_success(
        "memory.rotation_report", await call("memory_rotation_report", {"user_id": USER, **arguments})
    )


async def test_names_come_from_the_catalog_and_defaults_apply(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": USER,
                "playlist_id": playlist(1),
                "name": "Old",
                "track_ids": [track(1), track(2)],
                "created_at": days_ago(200),
            },
        )
        await call.ok(
            "memory_log_playlist_mutation",
            {
                "user_id": USER,
                "playlist_id": playlist(1),
                "type": "ADD_TRACKS",
                "payload": {"track_ids": [track(3)]},
                "timestamp": days_ago(3),
            },
        )
        await call.ok(
            "memory_upsert_tracks",
            {
                "user_id": USER,
                "tracks": [
                    {"track_id": track(3), "name": "Nemo", "artists": ["Nightwish"]},
                    {"track_id": track(1), "name": "Ghost Love Score", "artists": ["Nightwish"]},
                ],
            },
        )
        result = await report(call)
    assert result["days"] == 30
    assert [(e["track_id"], e["name"], e["artists"]) for e in result["new"]] == [(track(3), "Nemo", ["Nightwish"])]
    assert [(e["track_id"], e["name"], e["artists"], e["reasons"]) for e in result["staples"]] == [
        (track(1), "Ghost Love Score", ["Nightwish"], ["present_90_days_or_more"]),
        (track(2), None, None, ["present_90_days_or_more"]),
    ]
    assert result["totals"] == {"playlists": 1, "tracks_in_rotation": 3, "new": 1, "staples": 2, "other": 0}


async def test_a_removed_track_is_out_of_rotation_and_a_returning_one_is_not_new(settings: Settings) -> None:
    async with connected(settings) as call:
        base = {"user_id": USER, "playlist_id": playlist(1)}
        await call.ok(
            "memory_log_playlist_create",
            {**base, "name": "Mix", "track_ids": [track(1), track(2)], "created_at": days_ago(100)},
        )
        await call.ok(
            "memory_log_playlist_mutation",
            {
                **base,
                "type": "REMOVE_TRACKS",
                "timestamp": days_ago(50),
                "payload": {"track_ids": [track(1), track(2)]},
            },
        )
        await call.ok(
            "memory_log_playlist_mutation",
            {**base, "type": "ADD_TRACKS", "timestamp": days_ago(2), "payload": {"track_ids": [track(2)]}},
        )
        result = await report(call, days=7)
    # track 1 left; track 2 came back two days ago: first seen 100 days ago (not new), present for
    # two days (not a staple): only counted.
    assert result["new"] == [] and result["staples"] == []
    assert result["totals"]["tracks_in_rotation"] == 1 and result["totals"]["other"] == 1


async def test_the_answer_stays_within_the_result_budget(settings_factory: Any) -> None:
    settings = settings_factory(result_budget_bytes=10_000)
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": USER,
                "playlist_id": playlist(1),
                "name": "Big",
                "track_ids": [track(i) for i in range(300)],
                "created_at": days_ago(1),
            },
        )
        result = await report(call, limit=500)
    assert result["truncated"] is True and result["totals"]["new"] == 300
    assert 0 < len(result["new"]) < 300
    assert len(json.dumps(result["new"], separators=(",", ":"))) <= 10_000
    assert [e["track_id"] for e in result["new"]] == sorted(e["track_id"] for e in result["new"])  # same moment


async def test_bad_arguments_and_an_empty_user(settings: Settings) -> None:
    async with connected(settings) as call:
        for bad in ({"days": 0}, {"days": 3651}, {"limit": 0}, {"limit": 501}, {"days": "30"}, {"since": "x"}):
            error = await call.error("memory_rotation_report", {"user_id": USER, **bad}, "INVALID_ARGUMENT")
            assert error["details"]["field"] in ("days", "limit", "since")
        empty = await report(call, days=3650, limit=500)
    assert empty["new"] == [] and empty["staples"] == [] and empty["truncated"] is False
    assert empty["totals"] == {"playlists": 0, "tracks_in_rotation": 0, "new": 0, "staples": 0, "other": 0}
