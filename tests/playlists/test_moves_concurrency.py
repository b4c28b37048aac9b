"""Undo and resync racing ordinary writers on one playlist: every event lands once, in one order,
and that order, replayed by the plain model, is what the service reconstructs.

A resync seals the open bucket before it commits (so it always opens a snapshot): racing appends on
the sealed bucket must fail and retry, never land beside the resync. An undo plans against the
playlist as it stands at each attempt: the change it names must be the one in force when it
committed. Run as the PRD writers' race is (``test_concurrency``): engine as is, and with every
storage call yielding first (optionally with jitter) so the writers interleave inside calls.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.playlists.moves_model import RefLedger
from tests.support import Caller, connected, playlist, track
from tests.support.ledger_model import RefState, export_all, iso_to_ms, ms_to_iso, yielding_storage

USER = 4
PID = playlist(9)
ROUNDS = 8


async def _adder(call: Caller, writer: int) -> list[str]:
    ids = []
    for i in range(ROUNDS):
        done = await call.ok(
            "memory_log_playlist_mutation",
            {
                "user_id": USER,
                "playlist_id": PID,
                "type": "ADD_TRACKS",
                "payload": {"track_ids": [track(writer * 100 + i)]},
            },
        )
        ids.append(done["event_id"])
    return ids


async def _resyncer(call: Caller, wanted: dict[str, list[str]]) -> None:
    for i in range(ROUNDS):
        tracks = [track(900 + i), track(901 + i), track(1)]
        done = await call.ok("memory_resync_playlist", {"user_id": USER, "playlist_id": PID, "track_ids": tracks})
        assert done["new_snapshot_id"] is not None
        wanted[done["event_id"]] = tracks


async def _undoer(call: Caller) -> int:
    undone = 0
    for _ in range(ROUNDS):
        envelope = await call("memory_undo_last_mutation", {"user_id": USER, "playlist_id": PID})
        if envelope["success"]:
            undone += 1
        else:  # only possible before any change landed
            assert envelope["error"]["details"]["reason"] == "nothing_to_undo", envelope
        await asyncio.sleep(0)
    return undone


@pytest.mark.parametrize(
    ("interleave", "jitter_seed"),
    [(False, None), (True, None), (True, 3)],
    ids=["engine-as-is", "yielding-storage", "jittered-storage"],
)
async def test_undo_and_resync_race_writers_without_losing_or_splitting_an_event(
    settings_factory: Any, interleave: bool, jitter_seed: int | None
) -> None:
    settings = settings_factory(
        snapshot_every=3, recent_events_cap=5, recent_snapshots_cap=2, snapshot_min_event_share=0.0
    )
    wanted: dict[str, list[str]] = {}
    with yielding_storage(interleave, jitter_seed):
        async with connected(settings) as call:
            created = await call.ok(
                "memory_log_playlist_create",
                {"user_id": USER, "playlist_id": PID, "name": "raced", "track_ids": [track(1), track(2)]},
            )
            outcome = await asyncio.gather(_adder(call, 1), _adder(call, 2), _resyncer(call, wanted), _undoer(call))
            undone = outcome[3]
            exported = (await export_all(call, USER))["playlists"][PID]
            events = exported["events"]
            assert [e["seq"] for e in events] == list(range(1, len(events) + 1)), "no sequence number lost or reused"
            assert len(events) == 2 * ROUNDS + ROUNDS + undone

            # The exported order, replayed by the model, explains every event and every state.
            model = RefLedger.created(
                RefState((track(1), track(2)), {"name": "raced", "intent_tags": []}), iso_to_ms(created["created_at"])
            )
            for event in events:
                at = iso_to_ms(event["timestamp"])
                if event["type"] == "RESYNC":
                    seq = model.change("RESYNC", {"track_ids": wanted[event["event_id"]]}, at)
                elif event["type"] == "UNDO":
                    seq, reversed_seq = model.undo(at)
                    assert event["payload"]["undoes"] == model.event_ids[reversed_seq], "undid the change in force"
                else:
                    seq = model.change(event["type"], event["payload"], at)
                model.event_ids[seq] = event["event_id"]
            now = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": PID})
            assert now["track_ids"] == list(model.current.tracks)
            for at_ms in sorted(set(model.times)):
                got = await call.ok(
                    "memory_reconstruct_playlist", {"user_id": USER, "playlist_id": PID, "at_time": ms_to_iso(at_ms)}
                )
                assert got["track_ids"] == list(model.at(at_ms).tracks), at_ms  # type: ignore[union-attr]

            # Each resync opened a snapshot at its own sequence number, holding exactly its list.
            snapshots = {s["seq"]: s for s in exported["snapshots"]}
            for event in events:
                if event["type"] == "RESYNC":
                    snapshot = snapshots[event["seq"]]
                    assert snapshot["source"] == "resync"
                    assert snapshot["track_ids"] == wanted[event["event_id"]]
            for seq, snapshot in snapshots.items():
                assert snapshot["track_ids"] == list(model.states[seq].tracks), seq
