"""Concurrent writers through one server lose nothing and duplicate nothing.

The embedded engine suspends inside a call only where it chooses to, so each test also runs with
``yielding_storage``: every storage call first gives up the event loop, as a network driver does,
and racing writers interleave between their reads and their conditional writes. That they did is
observed (``observe_calls``: writes in flight at once, a storage call of one between two of
another's), not inferred from task switches. The "engine-as-is" runs check correctness on every
backend and assert the overlap only where the engine always suspends (real MongoDB); on the
embedded engine they print what they saw (with its shortcuts: up to 8 writes in flight).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from tests.ledger.overlap import CallLog, observe_calls
from tests.support import Caller, connected, playlist, track
from tests.support.ledger_model import RefState, export_all, iso_to_ms, ms_to_iso, ref_apply, yielding_storage

WRITERS = 8
PER_WRITER = 25
USER = 3
PID = playlist(1)


def assert_writes_overlapped(log: CallLog, writes: int, racing: int | None = None) -> None:
    """``writes`` write calls were observed; two or more were in flight at once; at least half of
    the ``racing`` ones (those the test sent concurrently; default all) overlapped another; and
    some had another write's storage call between two of their own: a real race (round-robin
    whole calls give 0). How many varies from run to run (8 to 80 of 80 seen with the embedded
    engine's shortcuts, which make some storage calls without ``TrackedCollection._run``), so only
    its presence is asserted; the tests print the figures."""
    racing = writes if racing is None else racing
    assert log.calls == writes, log.describe()
    assert log.max_in_flight() >= 2, f"no two writes were ever in flight at once: {log.describe()}"
    assert log.overlapping_calls() >= racing // 2, log.describe()
    assert log.interleaved_calls() >= 1, f"no write ran between another's storage calls: {log.describe()}"


def engine_suspends(settings: Any) -> bool:
    """Real MongoDB suspends in every storage call; the embedded engine never does."""
    return bool(settings.mongodb_uri)


def _writer_mutations(writer: int) -> list[tuple[str, dict[str, Any]]]:
    """25 mutations that are valid whatever the other writers did before them."""
    own = [track(writer * 1000 + i) for i in range(PER_WRITER)]
    plan: list[tuple[str, dict[str, Any]]] = []
    for i in range(PER_WRITER):
        step = i % 5
        if step == 0:
            plan.append(("ADD_TRACKS", {"track_ids": [own[i], own[i]]}))  # a duplicate pair, appended
        elif step == 1:
            plan.append(("ADD_TRACKS", {"track_ids": [own[i]], "insert_at": 0}))
        elif step == 2:
            plan.append(("ADD_TRACKS", {"track_ids": [own[i], track(7)], "positions": [1, 0]}))
        elif step == 3:
            plan.append(("REMOVE_TRACKS", {"track_ids": [own[i - 3], own[i - 3]]}))  # both copies of an earlier pair
        else:
            plan.append(("UPDATE_META", {"name": f"writer {writer} step {i}", "intent_tags": [f"w{writer}", str(i)]}))
    return plan


async def _run_writer(call: Caller, writer: int) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    done = []
    for kind, payload in _writer_mutations(writer):
        result = await call.ok(
            "memory_log_playlist_mutation", {"user_id": USER, "playlist_id": PID, "type": kind, "payload": payload}
        )
        done.append((kind, payload, result))
    return done


@pytest.mark.parametrize(
    ("interleave", "jitter_seed"),
    [(False, None), (True, None), (True, 1), (True, 2)],
    ids=["engine-as-is", "yielding-storage", "jittered-storage-1", "jittered-storage-2"],
)
async def test_eight_writers_on_one_playlist_lose_and_duplicate_no_event(
    settings_factory: Any, interleave: bool, jitter_seed: int | None
) -> None:
    # Small buckets so the writers also race on opening new buckets (snapshots).
    settings = settings_factory(
        snapshot_every=4, recent_events_cap=10, recent_snapshots_cap=3, snapshot_min_event_share=0.0
    )
    initial = [track(1), track(2), track(1)]
    with observe_calls() as log, yielding_storage(interleave, jitter_seed):
        async with connected(settings) as call:
            await call.ok(
                "memory_log_playlist_create",
                {"user_id": USER, "playlist_id": PID, "name": "shared", "track_ids": initial},
            )
            results = await asyncio.gather(*(_run_writer(call, w) for w in range(WRITERS)))
            exported = (await export_all(call, USER))["playlists"][PID]
            events = exported["events"]

            # Exactly the 200 events, seqs contiguous, none lost and none twice.
            assert len(events) == WRITERS * PER_WRITER
            assert [e["seq"] for e in events] == list(range(1, WRITERS * PER_WRITER + 1))
            submitted = [(kind, payload) for done in results for kind, payload, _ in done]
            assert Counter(repr(x) for x in submitted) == Counter(repr((e["type"], e["payload"])) for e in events)
            returned_ids = [r["event_id"] for done in results for _, _, r in done]
            assert len(set(returned_ids)) == len(returned_ids)
            assert set(returned_ids) == {e["event_id"] for e in events}
            # Each writer's own events are in the order it sent them.
            position = {e["event_id"]: e["seq"] for e in events}
            for done in results:
                seqs = [position[r["event_id"]] for _, _, r in done]
                assert seqs == sorted(seqs)
            # The ledger is totally ordered in time as well as in sequence.
            times = [iso_to_ms(e["timestamp"]) for e in events]
            assert times == sorted(times)

            # Replaying the exported events in seq order gives what the service reconstructs.
            state = RefState(tuple(initial), {"name": "shared", "intent_tags": []})
            states = [(iso_to_ms(exported["created_at"]), state)]
            for event in events:
                state = ref_apply(state, event["type"], event["payload"])
                states.append((iso_to_ms(event["timestamp"]), state))
            now = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": PID})
            assert now["track_ids"] == list(state.tracks)
            for at_ms in sorted({ts for ts, _ in states}):
                expected = [s for ts, s in states if ts <= at_ms][-1]
                got = await call.ok(
                    "memory_reconstruct_playlist", {"user_id": USER, "playlist_id": PID, "at_time": ms_to_iso(at_ms)}
                )
                assert got["track_ids"] == list(expected.tracks), at_ms

            # Every snapshot holds the replayed state at its sequence number.
            assert [s["seq"] for s in exported["snapshots"]] == list(range(0, WRITERS * PER_WRITER + 1, 4))
            for snap in exported["snapshots"]:
                assert snap["track_ids"] == list(states[snap["seq"]][1].tracks), snap["seq"]

            details = await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": PID})
            assert [e["event_id"] for e in details["recent_events"]] == [e["event_id"] for e in events][-50:]
            assert details["playlist"]["name"] == state.meta["name"]
            assert details["playlist"]["intent_tags"] == state.meta["intent_tags"]
            [item] = (await call.ok("memory_get_playlists", {"user_id": USER}))["items"]
            assert item["track_count"] == len(state.tracks)
            assert item["updated_at"] == events[-1]["timestamp"]
    print(log.describe())
    if interleave or engine_suspends(settings):
        assert_writes_overlapped(log, 1 + WRITERS * PER_WRITER)
        # Every writer had a mutation in flight at once at some moment, not merely two of them.
        assert log.max_in_flight() >= WRITERS, log.describe()


@pytest.mark.parametrize("jitter_seed", [1, 2, 3, 6])
async def test_reads_agree_with_the_ledger_once_concurrent_writers_are_done(
    settings_factory: Any, jitter_seed: int
) -> None:
    """After every round of concurrent, acknowledged writes, the playlist document that
    get_playlists and get_playlist read is level with the ledger that reconstruction reads."""
    settings = settings_factory(snapshot_every=3, recent_events_cap=5, snapshot_min_event_share=0.0)
    rounds = 25
    with observe_calls() as log, yielding_storage(True, jitter_seed):
        async with connected(settings) as call:
            await call.ok(
                "memory_log_playlist_create",
                {"user_id": USER, "playlist_id": PID, "name": "r", "track_ids": [track(1)]},
            )
            expected = [track(1)]
            for round_ in range(rounds):
                added = [track(10_000 + round_ * WRITERS + w) for w in range(WRITERS)]
                results = await asyncio.gather(
                    *(
                        call.ok(
                            "memory_log_playlist_mutation",
                            {"user_id": USER, "playlist_id": PID, "type": "ADD_TRACKS", "payload": {"track_ids": [t]}},
                        )
                        for t in added
                    )
                )
                now = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": PID})
                assert sorted(now["track_ids"]) == sorted(expected + added)
                expected = now["track_ids"]
                last = max(results, key=lambda r: r["timestamp"])["timestamp"]
                [item] = (await call.ok("memory_get_playlists", {"user_id": USER}))["items"]
                details = await call.ok(
                    "memory_get_playlist", {"user_id": USER, "playlist_id": PID, "include_events_limit": WRITERS}
                )
                where = f"round {round_}"
                assert item["track_count"] == len(expected), where
                assert item["updated_at"] == last, where
                assert {e["event_id"] for e in details["recent_events"]} == {r["event_id"] for r in results}, where
    print(log.describe())
    assert_writes_overlapped(log, 1 + rounds * WRITERS)


async def test_eight_writers_on_eight_playlists_and_one_user(settings: Any) -> None:
    """Writers on different playlists of one user do not disturb each other."""
    with observe_calls() as log, yielding_storage(True):
        async with connected(settings) as call:
            for w in range(WRITERS):
                await call.ok(
                    "memory_log_playlist_create",
                    {"user_id": USER, "playlist_id": playlist(100 + w), "name": f"p{w}", "track_ids": [track(w)]},
                )

            async def write(w: int) -> None:
                for i in range(10):
                    await call.ok(
                        "memory_log_playlist_mutation",
                        {
                            "user_id": USER,
                            "playlist_id": playlist(100 + w),
                            "type": "ADD_TRACKS",
                            "payload": {"track_ids": [track(w * 100 + i)]},
                        },
                    )

            await asyncio.gather(*(write(w) for w in range(WRITERS)))
            for w in range(WRITERS):
                got = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": playlist(100 + w)})
                assert got["track_ids"] == [track(w)] + [track(w * 100 + i) for i in range(10)]
            listing = await call.ok("memory_get_playlists", {"user_id": USER})
            assert sorted(i["playlist_id"] for i in listing["items"]) == [playlist(100 + w) for w in range(WRITERS)]
            assert all(i["track_count"] == 11 for i in listing["items"])
    print(log.describe())
    assert_writes_overlapped(log, WRITERS * 11, racing=WRITERS * 10)


@pytest.mark.parametrize("interleave", [False, True], ids=["engine-as-is", "yielding-storage"])
async def test_concurrent_profile_updates_lose_no_patch(settings: Any, interleave: bool) -> None:
    per_writer = 10
    with observe_calls() as log, yielding_storage(interleave):
        async with connected(settings) as call:

            async def write(w: int) -> list[int]:
                versions = []
                for i in range(per_writer):
                    result = await call.ok(
                        "memory_update_profile",
                        {
                            "user_id": USER,
                            "patch": {f"writer_{w}": {f"key_{i}": i}, f"flat_{w}_{i}": True},
                            "reason": "t",
                        },
                    )
                    versions.append(result["version"])
                return versions

            versions = await asyncio.gather(*(write(w) for w in range(WRITERS)))
            profile = await call.ok("memory_get_profile", {"user_id": USER})
            exported = await export_all(call, USER)
    expected: dict[str, Any] = {}
    for w in range(WRITERS):
        expected[f"writer_{w}"] = {f"key_{i}": i for i in range(per_writer)}
        expected.update({f"flat_{w}_{i}": True for i in range(per_writer)})
    assert profile["profile"] == expected
    total = WRITERS * per_writer
    assert profile["version"] == total
    # Every update got its own version: no two patches were applied on the same base.
    assert sorted(v for vs in versions for v in vs) == list(range(1, total + 1))
    history = exported["profile"]["history"]
    assert sorted(h["version"] for h in history) == list(range(1, total + 1))
    print(log.describe())
    if interleave or engine_suspends(settings):
        assert_writes_overlapped(log, total)


async def test_the_observer_tells_round_robin_whole_calls_from_racing_calls(settings: Any) -> None:
    """The weakness the overlap assertions replace: writers served one whole call at a time, in
    round-robin order, switch tasks at every storage call boundary between calls, yet no two
    writes are ever in flight together; the observer sees that."""
    writers, per_writer = 4, 5
    with observe_calls() as log, yielding_storage(True):
        async with connected(settings) as call:
            await call.ok(
                "memory_log_playlist_create",
                {"user_id": USER, "playlist_id": PID, "name": "rr", "track_ids": [track(1)]},
            )
            for i in range(per_writer):
                for w in range(writers):  # round-robin, each call awaited before the next starts
                    await call.ok(
                        "memory_log_playlist_mutation",
                        {
                            "user_id": USER,
                            "playlist_id": PID,
                            "type": "ADD_TRACKS",
                            "payload": {"track_ids": [track(100 + w * per_writer + i)]},
                        },
                    )
    assert log.calls == 1 + writers * per_writer
    assert (log.max_in_flight(), log.overlapping_calls(), log.interleaved_calls()) == (1, 0, 0), log.describe()
