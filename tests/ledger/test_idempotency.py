"""Retries are safe: a keyed create or mutation is applied once, whatever the retry pattern."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from tests.support import connected, playlist, track
from tests.support.ledger_model import export_all, interleavings, without_moment, yielding_storage

U1, U2 = 11, 12
PID = playlist(5)


def _create(user_id: int = U1, **extra: Any) -> dict[str, Any]:
    return {
        "user_id": user_id,
        "playlist_id": PID,
        "name": "Focus mix",
        "track_ids": [track(1), track(2), track(1)],
        "intent_tags": ["focus"],
        "seed_context": {"window": "morning"},
        **extra,
    }


def _mutation(user_id: int = U1, **extra: Any) -> dict[str, Any]:
    return {
        "user_id": user_id,
        "playlist_id": PID,
        "type": "ADD_TRACKS",
        "payload": {"track_ids": [track(9)], "insert_at": 1},
        **extra,
    }


async def _events(call: Any, user_id: int) -> list[dict[str, Any]]:
    exported = await export_all(call, user_id)
    return exported["playlists"][PID]["events"] if PID in exported["playlists"] else []


@pytest.mark.parametrize("with_created_at", [False, True])
async def test_create_retried_with_same_key_and_payload_returns_first_result_and_writes_nothing(
    settings: Any, with_created_at: bool
) -> None:
    extra = {"created_at": "2024-05-01T10:00:00.123456Z"} if with_created_at else {}
    arguments = _create(idempotency_key="create-key-0001", **extra)
    async with connected(settings) as call:
        first = await call.ok("memory_log_playlist_create", arguments)
        before = await call.ok("memory_export_user_data", {"user_id": U1})
        listing_before = await call.ok("memory_get_playlists", {"user_id": U1})
        for _ in range(3):
            again = await call.ok("memory_log_playlist_create", arguments)
            assert again == first
        after = await call.ok("memory_export_user_data", {"user_id": U1})
        assert without_moment(after) == without_moment(before)
        assert await call.ok("memory_get_playlists", {"user_id": U1}) == listing_before
        assert len(after["data"]["playlists"]) == 1
        assert len(after["data"]["playlists"][0]["snapshots"]) == 1
    if with_created_at:
        assert first["created_at"] == "2024-05-01T10:00:00.123Z"


async def test_create_retry_after_a_change_still_returns_the_original_result(settings: Any) -> None:
    arguments = _create(idempotency_key="create-key-0002")
    async with connected(settings) as call:
        first = await call.ok("memory_log_playlist_create", arguments)
        await call.ok("memory_log_playlist_mutation", _mutation())
        before = await call.ok("memory_export_user_data", {"user_id": U1})
        assert await call.ok("memory_log_playlist_create", arguments) == first
        assert without_moment(await call.ok("memory_export_user_data", {"user_id": U1})) == without_moment(before)
        now = await call.ok("memory_reconstruct_playlist", {"user_id": U1, "playlist_id": PID})
        assert now["track_ids"] == [track(1), track(9), track(2), track(1)]


@pytest.mark.parametrize(
    "change",
    [
        {"name": "Another name"},
        {"track_ids": [track(1), track(2)]},
        {"intent_tags": ["focus", "calm"]},
        {"description": "now with a description"},
    ],
    ids=["name", "tracks", "tags", "description"],
)
async def test_create_same_key_other_payload_is_conflict_and_writes_nothing(
    settings: Any, change: dict[str, Any]
) -> None:
    async with connected(settings) as call:
        await call.ok("memory_log_playlist_create", _create(idempotency_key="create-key-0003"))
        before = await call.ok("memory_export_user_data", {"user_id": U1})
        changed = {**_create(idempotency_key="create-key-0003"), **change}
        await call.error("memory_log_playlist_create", changed, "CONFLICT")
        assert without_moment(await call.ok("memory_export_user_data", {"user_id": U1})) == without_moment(before)


async def test_same_create_key_on_another_playlist_is_conflict(settings: Any) -> None:
    async with connected(settings) as call:
        await call.ok("memory_log_playlist_create", _create(idempotency_key="create-key-0004"))
        other = {**_create(idempotency_key="create-key-0004"), "playlist_id": playlist(6)}
        await call.error("memory_log_playlist_create", other, "CONFLICT")
        await call.error("memory_get_playlist", {"user_id": U1, "playlist_id": playlist(6)}, "NOT_FOUND")


async def test_create_of_existing_playlist_without_key_or_with_new_key_is_conflict(settings: Any) -> None:
    async with connected(settings) as call:
        await call.ok("memory_log_playlist_create", _create())
        before = await call.ok("memory_export_user_data", {"user_id": U1})
        await call.error("memory_log_playlist_create", _create(), "CONFLICT")  # the very same request, unkeyed
        await call.error("memory_log_playlist_create", _create(name="changed"), "CONFLICT")
        await call.error("memory_log_playlist_create", _create(idempotency_key="create-key-0005"), "CONFLICT")
        assert without_moment(await call.ok("memory_export_user_data", {"user_id": U1})) == without_moment(before)

        # Created with a key, then re-created without one: also CONFLICT.
        keyed = {**_create(idempotency_key="create-key-0006"), "playlist_id": playlist(7)}
        await call.ok("memory_log_playlist_create", keyed)
        unkeyed = {k: v for k, v in keyed.items() if k != "idempotency_key"}
        await call.error("memory_log_playlist_create", unkeyed, "CONFLICT")


async def test_mutation_retried_with_same_client_event_id_is_applied_once(settings: Any) -> None:
    key = str(uuid.uuid4())
    async with connected(settings) as call:
        await call.ok("memory_log_playlist_create", _create())
        first = await call.ok("memory_log_playlist_mutation", _mutation(client_event_id=key))
        before = await call.ok("memory_export_user_data", {"user_id": U1})
        for _ in range(3):
            assert await call.ok("memory_log_playlist_mutation", _mutation(client_event_id=key)) == first
        assert without_moment(await call.ok("memory_export_user_data", {"user_id": U1})) == without_moment(before)
        events = await _events(call, U1)
        assert [e["event_id"] for e in events] == [first["event_id"]]
        now = await call.ok("memory_reconstruct_playlist", {"user_id": U1, "playlist_id": PID})
        assert now["track_ids"] == [track(1), track(9), track(2), track(1)]

        # Still the original answer after later changes, even once the retry would no longer apply.
        await call.ok(
            "memory_log_playlist_mutation",
            {
                "user_id": U1,
                "playlist_id": PID,
                "type": "REMOVE_TRACKS",
                "payload": {"track_ids": [track(2), track(9)]},
            },
        )
        assert await call.ok("memory_log_playlist_mutation", _mutation(client_event_id=key)) == first
        assert len(await _events(call, U1)) == 2


async def test_mutation_retry_keeps_its_snapshot_id(settings_factory: Any) -> None:
    settings = settings_factory(snapshot_every=1, snapshot_min_event_share=0.0)
    key = str(uuid.uuid4())
    async with connected(settings) as call:
        await call.ok("memory_log_playlist_create", _create())
        first = await call.ok("memory_log_playlist_mutation", _mutation(client_event_id=key))
        assert first["new_snapshot_id"] is not None
        assert await call.ok("memory_log_playlist_mutation", _mutation(client_event_id=key)) == first
        exported = await export_all(call, U1)
        assert len(exported["playlists"][PID]["snapshots"]) == 2


@pytest.mark.parametrize(
    "change",
    [
        {"payload": {"track_ids": [track(8)], "insert_at": 1}},
        {"payload": {"track_ids": [track(9)]}},
        {"type": "REMOVE_TRACKS", "payload": {"track_ids": [track(9)]}},
    ],
    ids=["other-track", "other-position", "other-type"],
)
async def test_mutation_same_client_event_id_other_payload_is_conflict(settings: Any, change: dict[str, Any]) -> None:
    key = str(uuid.uuid4())
    async with connected(settings) as call:
        await call.ok("memory_log_playlist_create", _create())
        await call.ok("memory_log_playlist_mutation", _mutation(client_event_id=key))
        before = await call.ok("memory_export_user_data", {"user_id": U1})
        await call.error("memory_log_playlist_mutation", {**_mutation(client_event_id=key), **change}, "CONFLICT")
        assert without_moment(await call.ok("memory_export_user_data", {"user_id": U1})) == without_moment(before)


async def test_same_client_event_id_on_another_playlist_is_conflict(settings: Any) -> None:
    key = str(uuid.uuid4())
    async with connected(settings) as call:
        await call.ok("memory_log_playlist_create", _create())
        await call.ok("memory_log_playlist_create", {**_create(), "playlist_id": playlist(6)})
        await call.ok("memory_log_playlist_mutation", _mutation(client_event_id=key))
        other = {**_mutation(client_event_id=key), "playlist_id": playlist(6)}
        await call.error("memory_log_playlist_mutation", other, "CONFLICT")
        exported = await export_all(call, U1)
        assert exported["playlists"][playlist(6)]["events"] == []


async def test_keys_are_scoped_per_user(settings: Any) -> None:
    create_key = "shared-create-key"
    event_key = str(uuid.uuid4())
    async with connected(settings) as call:
        c1 = await call.ok("memory_log_playlist_create", _create(U1, idempotency_key=create_key))
        m1 = await call.ok("memory_log_playlist_mutation", _mutation(U1, client_event_id=event_key))

        # User 2 uses the same keys (even the same playlist id): a fresh result of its own.
        c2 = await call.ok("memory_log_playlist_create", _create(U2, idempotency_key=create_key))
        assert c2["snapshot_id"] != c1["snapshot_id"]
        m2 = await call.ok("memory_log_playlist_mutation", _mutation(U2, client_event_id=event_key))
        assert m2["event_id"] != m1["event_id"]
        events2 = await _events(call, U2)
        assert [e["event_id"] for e in events2] == [m2["event_id"]]

        # User 2 using user 1's keys with a different payload is not a conflict either.
        other_pid = playlist(6)
        c2b = await call.ok(
            "memory_log_playlist_create", {**_create(U2, idempotency_key="u1-only-key"), "playlist_id": other_pid}
        )
        u1_other = {**_create(U1, idempotency_key="u1-only-key"), "playlist_id": playlist(8)}
        await call.ok("memory_log_playlist_create", u1_other)
        assert c2b["playlist_id"] == other_pid
        other_key = str(uuid.uuid4())
        await call.ok("memory_log_playlist_mutation", _mutation(U1, client_event_id=other_key))
        m2b = await call.ok(
            "memory_log_playlist_mutation",
            {**_mutation(U2, client_event_id=other_key), "payload": {"track_ids": [track(3)]}},
        )
        assert m2b["event_id"] not in {e["event_id"] for e in await _events(call, U1)}

        # Retries still find each user's own result.
        assert await call.ok("memory_log_playlist_create", _create(U1, idempotency_key=create_key)) == c1
        assert await call.ok("memory_log_playlist_create", _create(U2, idempotency_key=create_key)) == c2
        assert await call.ok("memory_log_playlist_mutation", _mutation(U1, client_event_id=event_key)) == m1
        assert await call.ok("memory_log_playlist_mutation", _mutation(U2, client_event_id=event_key)) == m2
        assert [e["event_id"] for e in await _events(call, U2)] == [m2["event_id"], m2b["event_id"]]
        u1 = await call.ok("memory_reconstruct_playlist", {"user_id": U1, "playlist_id": PID})
        u2 = await call.ok("memory_reconstruct_playlist", {"user_id": U2, "playlist_id": PID})
        assert u1["track_ids"] == [track(1), track(9), track(9), track(2), track(1)]
        assert u2["track_ids"] == [track(1), track(9), track(2), track(1), track(3)]


@pytest.mark.parametrize("interleave", [False, True], ids=["whole-calls", "yielding-storage"])
async def test_concurrent_retries_of_one_keyed_mutation_apply_it_once(settings_factory: Any, interleave: bool) -> None:
    settings = settings_factory(snapshot_every=2, snapshot_min_event_share=0.0)
    async with connected(settings) as call:
        await call.ok("memory_log_playlist_create", _create())
        with yielding_storage(interleave) as order:
            for round_ in range(4):  # rounds 2 and 4 open a new bucket (a snapshot)
                key = str(uuid.uuid4())
                arguments = {**_mutation(client_event_id=key), "payload": {"track_ids": [track(100 + round_)]}}
                results = await asyncio.gather(*(call.ok("memory_log_playlist_mutation", arguments) for _ in range(5)))
                assert all(r == results[0] for r in results), results
                events = await _events(call, U1)
                assert len(events) == round_ + 1
                assert events[-1]["event_id"] == results[0]["event_id"]
                assert events[-1]["client_event_id"] == key
        now = await call.ok("memory_reconstruct_playlist", {"user_id": U1, "playlist_id": PID})
        assert now["track_ids"] == [track(1), track(2), track(1)] + [track(100 + r) for r in range(4)]
    if interleave:
        assert interleavings(order) > 4


@pytest.mark.parametrize("interleave", [False, True], ids=["whole-calls", "yielding-storage"])
async def test_concurrent_retries_of_one_keyed_create_create_it_once(settings: Any, interleave: bool) -> None:
    arguments = _create(idempotency_key="create-key-race")
    with yielding_storage(interleave) as order:
        async with connected(settings) as call:
            results = await asyncio.gather(*(call.ok("memory_log_playlist_create", arguments) for _ in range(5)))
            assert all(r == results[0] for r in results), results
            exported = await export_all(call, U1)
            assert list(exported["playlists"]) == [PID]
            assert [s["snapshot_id"] for s in exported["playlists"][PID]["snapshots"]] == [results[0]["snapshot_id"]]
            listing = await call.ok("memory_get_playlists", {"user_id": U1})
            assert [i["playlist_id"] for i in listing["items"]] == [PID]
    if interleave:
        assert interleavings(order) > 4
