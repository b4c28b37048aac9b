"""Isolation: the reports read one user's records only, and every storage call they make says so.

Two users share track IDs; each report must count only its own playlists and feedback, name tracks
only from its own catalog, and every query (at the storage interface and at the driver) must carry
``user_id`` equal to the caller's user, the condition a sharded cluster routes on.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.support import connected, playlist, track
from tests.support.contract import assert_valid_success
from tests.support.query_recorder import Recorder, record_driver, record_interface

MINE, THEIRS = 21, 22


def days_ago(days: int) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


async def _seed(call: Any) -> dict[str, str]:
    for user, offset in ((MINE, 0), (THEIRS, 50)):
        for n in range(3 if user == THEIRS else 1):  # theirs: a shared track in 3 playlists (a staple there)
            await call.ok(
                "memory_log_playlist_create",
                {
                    "user_id": user,
                    "playlist_id": playlist(offset + n),
                    "name": "Mix",
                    "track_ids": [track(1), track(offset + 10 + n)],
                    "created_at": days_ago(5),
                },
            )
    await call.ok(
        "memory_upsert_tracks",
        {"user_id": THEIRS, "tracks": [{"track_id": track(1), "name": "Only theirs", "artists": ["Someone"]}]},
    )
    ids = {}
    for user in (MINE, THEIRS):
        done = await call.ok(
            "memory_append_preference_event",
            {"user_id": user, "type": "rule", "payload": {"raw_text": "no more than 3 songs per artist"}},
        )
        ids[user] = done["event_id"]
    await call.ok("memory_update_profile", {"user_id": THEIRS, "patch": {"avoid": ["christmas"]}})
    return ids


async def test_reports_see_only_their_users_records(settings_factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder()
    record_interface(monkeypatch, recorder)
    async with connected(settings_factory(snapshot_every=2)) as call:
        event_ids = await _seed(call)
        mine_before = await call.ok("memory_rotation_report", {"user_id": MINE})
        driver = record_driver(call.service, recorder)
        with recorder.during("reports"):
            rotation = assert_valid_success(
                "memory.rotation_report",
                await call("memory_rotation_report", {"user_id": MINE, "days": 30, "limit": 50}),
            )
            feedback = assert_valid_success(
                "memory.feedback_summary", await call("memory_feedback_summary", {"user_id": MINE, "limit": 20})
            )
        theirs = await call.ok("memory_rotation_report", {"user_id": THEIRS})
    # The driver route gives the same answer as the embedded engine's shortcuts.
    assert {k: v for k, v in rotation.items() if k not in ("as_of", "window_start")} == {
        k: v for k, v in mine_before.items() if k not in ("as_of", "window_start")
    }
    assert rotation["totals"]["playlists"] == 1 and rotation["staples"] == []
    assert {e["track_id"] for e in rotation["new"]} == {track(1), track(10)}
    assert all(e["name"] is None for e in rotation["new"]), "another user's catalog named a track"
    assert {e["playlists"][0] for e in rotation["new"]} == {playlist(0)}
    assert [(e["track_id"], e["name"], e["playlist_count"]) for e in theirs["staples"]] == [
        (track(1), "Only theirs", 3)
    ]
    assert feedback["totals"] == {"preference_events": 1, "profile_patches": 0, "groups": 1, "recurring_groups": 0}
    assert [e["event_id"] for g in feedback["groups"] for e in g["examples"]] == [event_ids[MINE]]

    queries = [q for q in recorder.queries if q.phase == "reports"]
    assert {q.level for q in queries} == ({"interface", "driver"} if driver else {"interface"})
    assert {q.collection for q in queries} >= {"playlist_history", "tracks", "preference_events", "profiles"}
    strays = [str(q) for q in queries if not (isinstance(q.filter, dict) and q.filter.get("user_id") == MINE)]
    assert not strays, "storage calls of a report not filtered on its user:\n" + "\n".join(strays)
