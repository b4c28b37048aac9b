"""memory_delete_user_data erases everything of the user: reads, search, the listing and the CLI's
export find nothing, history and idempotency keys go too, and every other user stays as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support import connected, playlist, track
from tests.support.contract import assert_valid_error, assert_valid_success
from tests.transfer.export_support import at, cli_export, without_moment


async def test_delete_user_data_erases_everything(settings_factory: Any, tmp_path: Path) -> None:
    settings = settings_factory(snapshot_every=3, recent_events_cap=3, recent_snapshots_cap=2)
    pid = playlist(1)
    used_event_ids = [f"00000000-0000-4000-8000-{i:012d}" for i in range(7)]
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": 1, "patch": {"notes": "loves marimba"}})
        await call.ok("memory_update_profile", {"user_id": 1, "patch": {"genres": ["marimba"]}})
        await call.ok(
            "memory_append_preference_event", {"user_id": 1, "type": "like", "payload": {"raw_text": "marimba!"}}
        )
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": 1,
                "playlist_id": pid,
                "name": "Marimba",
                "track_ids": [track(1), track(2)],
                "idempotency_key": "marimba-create-1",
                "created_at": at(0),
            },
        )
        for i, key in enumerate(used_event_ids):
            await call.ok(
                "memory_log_playlist_mutation",
                {
                    "user_id": 1,
                    "playlist_id": pid,
                    "type": "ADD_TRACKS",
                    "payload": {"track_ids": [track(10 + i)]},
                    "client_event_id": key,
                    "timestamp": at(1 + i),
                },
            )
        await call.ok("memory_update_profile", {"user_id": 2, "patch": {"notes": "marimba too"}})
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 2, "playlist_id": playlist(2), "name": "Marimba 2", "track_ids": [track(1)]},
        )
        hits_before = await call.ok("memory_search", {"user_id": 1, "query": "marimba"})
        user2_before = without_moment((await call.ok("memory_export_user_data", {"user_id": 2}))["data"])
        assert {h["kind"] for h in hits_before["results"]} == {"playlist", "preference_event", "profile"}

        deleted = assert_valid_success(
            "memory.delete_user_data", await call("memory_delete_user_data", {"user_id": 1, "confirm": True})
        )
        export = await call.ok("memory_export_user_data", {"user_id": 1})
        hits_after = await call.ok("memory_search", {"user_id": 1, "query": "marimba"})
        profile = await call.ok("memory_get_profile", {"user_id": 1})
        listed = await call.ok("ops_list_users", {})
        playlists = await call.ok("memory_get_playlists", {"user_id": 1})
        gone = [
            assert_valid_error(await call("memory_get_playlist", {"user_id": 1, "playlist_id": pid})),
            assert_valid_error(await call("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": pid})),
            assert_valid_error(
                await call("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": pid, "at_time": at(3)})
            ),
            assert_valid_error(
                await call(
                    "memory_log_playlist_mutation",
                    {"user_id": 1, "playlist_id": pid, "type": "REMOVE_TRACKS", "payload": {"track_ids": [track(1)]}},
                )
            ),
            assert_valid_error(
                await call("memory_update_profile", {"user_id": 1, "patch": {"x": 1}, "create_if_missing": False})
            ),
        ]
        user2_after = without_moment((await call.ok("memory_export_user_data", {"user_id": 2}))["data"])
    assert deleted["user_id"] == 1 and deleted["deleted"] is True
    data = export["data"]
    assert data["profile"] is None and data["preference_events"] == [] and data["playlists"] == []
    assert data["continuation"]["next_cursor"] is None
    assert hits_after == {"results": []}
    assert profile == {"user_id": 1, "profile": {}, "version": 0, "updated_at": None}
    assert [u["user_id"] for u in listed["users"]] == [2]
    assert playlists == {"items": [], "next_cursor": None}
    assert [e["code"] for e in gone] == ["NOT_FOUND"] * 5
    assert user2_after == user2_before

    # The CLI sees the same empty export (the store as persisted, not only in memory).
    document = cli_export(settings, 1, tmp_path / "after-delete.json")
    assert document["data"]["profile"] is None
    assert document["data"]["preference_events"] == [] and document["data"]["playlists"] == []

    # Idempotency records and history went too: the same key with a new payload is a new request,
    # and a re-created playlist starts a fresh history (no leftover snapshots or events).
    async with connected(settings) as call:
        recreated = await call(
            "memory_log_playlist_create",
            {
                "user_id": 1,
                "playlist_id": pid,
                "name": "Marimba again",
                "track_ids": [track(50)],
                "idempotency_key": "marimba-create-1",
                "created_at": at(100),
            },
        )
        mutations = [
            await call(
                "memory_log_playlist_mutation",
                {
                    "user_id": 1,
                    "playlist_id": pid,
                    "type": "ADD_TRACKS",
                    "payload": {"track_ids": [track(60 + i)]},
                    "client_event_id": key,
                    "timestamp": at(101 + i),
                },
            )
            for i, key in enumerate(used_event_ids)
        ]
        now = await call.ok("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": pid})
        before_recreation = await call(
            "memory_reconstruct_playlist", {"user_id": 1, "playlist_id": pid, "at_time": at(5)}
        )
        export_again = await call.ok("memory_export_user_data", {"user_id": 1})
    assert recreated["success"], recreated.get("error")
    assert recreated["result"]["stored_track_count"] == 1
    assert all(m["success"] for m in mutations), [m.get("error") for m in mutations]
    assert now["track_ids"] == [track(50)] + [track(60 + i) for i in range(len(used_event_ids))]
    assert assert_valid_error(before_recreation)["code"] == "NOT_FOUND"
    (entry,) = export_again["data"]["playlists"]
    assert len(entry["events"]) == len(used_event_ids)
    assert export_again["data"]["profile"] is None and export_again["data"]["preference_events"] == []
