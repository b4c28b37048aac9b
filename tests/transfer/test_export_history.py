"""Export holds everything, history included (also where the capped arrays of the playlist document
dropped it), and a user with no data exports as empty.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from service.settings import Settings
from tests.support import connected, playlist, track
from tests.support.contract import assert_valid_error, assert_valid_success
from tests.transfer.export_support import FORMAT, apply, at, cli_export, export_parts, without_moment


async def test_export_has_all_history_even_where_capped_arrays_dropped_it(
    settings_factory: Any, tmp_path: Path
) -> None:
    settings = settings_factory(snapshot_every=3, recent_events_cap=3, recent_snapshots_cap=2)
    pid, other = playlist(1), playlist(2)
    patches = [
        ({"genres": ["jazz"]}, "first", "user"),
        ({"energy": {"morning": "low"}}, "second", "assistant"),
        ({"genres": ["jazz", "soul"], "avoid": ["country"]}, "third", "inferred"),
        ({"avoid": None}, "fourth", "user"),
        ({"energy": {"evening": "high"}}, "fifth", "user"),
    ]
    async with connected(settings) as call:
        for patch, reason, source in patches:
            await call.ok("memory_update_profile", {"user_id": 1, "patch": patch, "reason": reason, "source": source})
        pref_events = {}
        for n in range(7):
            args = {
                "user_id": 1,
                "type": ["like", "dislike", "rule", "feedback", "note"][n % 5],
                "payload": {"raw_text": f"preference number {n}", "n": n},
                "timestamp": at(n),
            }
            pref_events[(await call.ok("memory_append_preference_event", args))["event_id"]] = args
        created = await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": 1,
                "playlist_id": pid,
                "name": "Ledger",
                "description": "long history",
                "track_ids": [track(i) for i in range(5)],
                "intent_tags": ["history"],
                "seed_context": {"why": "test"},
                "created_at": at(0),
                "idempotency_key": "ledger-create-1",
            },
        )
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": other, "name": "Untouched", "track_ids": [track(100)], "created_at": at(0)},
        )
        state = [track(i) for i in range(5)]
        expected_events: list[dict[str, Any]] = []
        snapshot_ids = [created["snapshot_id"]]
        states_after = {0: list(state)}
        next_track = 1000
        for i in range(34):
            kind = ["ADD_TRACKS", "REMOVE_TRACKS", "REORDER", "UPDATE_META", "ADD_TRACKS"][i % 5]
            if kind == "ADD_TRACKS" and i % 2:
                payload: dict[str, Any] = {"track_ids": [track(next_track), track(next_track + 1)], "positions": [0, 2]}
            elif kind == "ADD_TRACKS":
                payload = {"track_ids": [track(next_track), track(next_track + 1)], "insert_at": len(state) // 2}
            elif kind == "REMOVE_TRACKS":
                payload = {"track_ids": [state[-1]]}
            elif kind == "REORDER":
                payload = {"track_ids": state[::-1]}
            else:
                payload = {"name": f"Ledger v{i}", "intent_tags": ["history", f"v{i}"]}
            next_track += 2
            result = await call.ok(
                "memory_log_playlist_mutation",
                {
                    "user_id": 1,
                    "playlist_id": pid,
                    "type": kind,
                    "payload": payload,
                    "timestamp": at(10 + i),
                    **({"client_event_id": f"00000000-0000-4000-8000-{i:012d}"} if i % 3 == 0 else {}),
                },
            )
            state = apply(state, kind, payload)
            states_after[i + 1] = list(state)
            expected_events.append(
                {"event_id": result["event_id"], "type": kind, "payload": payload, "timestamp": at(10 + i)}
            )
            if result.get("new_snapshot_id"):
                snapshot_ids.append(result["new_snapshot_id"])
        now = await call.ok("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": pid})
        detail = await call.ok("memory_get_playlist", {"user_id": 1, "playlist_id": pid, "include_events_limit": 3})
        parts = await export_parts(call, 1)
    assert now["track_ids"] == state
    assert len(detail["recent_events"]) == 3
    # The caps really dropped entries from the playlist document.
    assert len(snapshot_ids) > 2 + 1 and len(expected_events) > 3

    assert len(parts) == 1, "a small export fits in one part"
    export = parts[0][0]
    data = export["data"]
    assert data["format"] == FORMAT and data["continuation"] == {"part": 1, "next_cursor": None}

    profile = data["profile"]
    assert profile["profile"] == {"genres": ["jazz", "soul"], "energy": {"morning": "low", "evening": "high"}}
    assert profile["version"] == 5
    history = profile["history"]
    assert [h["version"] for h in history] == [1, 2, 3, 4, 5]
    assert [(h["patch"], h["reason"], h["source"]) for h in history] == patches and all(
        h["applied_at"] for h in history
    )

    assert {e["event_id"] for e in data["preference_events"]} == set(pref_events)
    for event in data["preference_events"]:
        sent = pref_events[event["event_id"]]
        assert (event["type"], event["payload"], event["timestamp"]) == (
            sent["type"],
            sent["payload"],
            sent["timestamp"],
        )

    by_id = {p["playlist_id"]: p for p in data["playlists"]}
    assert set(by_id) == {pid, other}
    ledger = by_id[pid]
    assert ledger["created_at"] == at(0) and ledger["seed_context"] == {"why": "test"}
    assert [s["snapshot_id"] for s in ledger["snapshots"]] == snapshot_ids
    for snapshot in ledger["snapshots"]:
        assert snapshot["track_ids"] == states_after[snapshot["seq"]], f"snapshot at seq {snapshot['seq']}"
    got = [{k: e[k] for k in ("event_id", "type", "payload", "timestamp")} for e in ledger["events"]]
    assert got == expected_events
    assert [s["track_ids"] for s in by_id[other]["snapshots"]] == [[track(100)]] and by_id[other]["events"] == []

    # The CLI's single document holds the same data.
    document = cli_export(settings, 1, tmp_path / "full.json")
    assert document["user_id"] == 1
    assert without_moment(document["data"]) == without_moment(data)


async def test_export_of_a_user_with_no_data_is_empty(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": 2, "patch": {"genres": ["jazz"]}})
        export = assert_valid_success("memory.export_user_data", await call("memory_export_user_data", {"user_id": 1}))
        bogus = assert_valid_error(await call("memory_export_user_data", {"user_id": 1, "cursor": "not-a-cursor"}))
    data = export["data"]
    assert (data["profile"], data["preference_events"], data["playlists"]) == (None, [], [])
    assert data["continuation"] == {"part": 1, "next_cursor": None}
    assert bogus["code"] == "INVALID_ARGUMENT" and bogus["details"]["field"] == "cursor"
