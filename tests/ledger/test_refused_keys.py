"""A request the ledger refuses does not use up its idempotency key."""

from __future__ import annotations

import uuid

from service.settings import Settings
from tests.support import connected, playlist, track


async def test_refused_mutation_leaves_its_client_event_id_free(settings: Settings) -> None:
    key = str(uuid.uuid4())
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": playlist(1), "name": "n", "track_ids": [track(1), track(2)]},
        )
        wrong = {
            "user_id": 1,
            "playlist_id": playlist(1),
            "type": "REORDER",
            "payload": {"track_ids": [track(1)]},
            "client_event_id": key,
        }
        await call.error("memory_log_playlist_mutation", wrong, "CONFLICT")
        missing = {**wrong, "playlist_id": playlist(9), "payload": {"track_ids": [track(2), track(1)]}}
        await call.error("memory_log_playlist_mutation", missing, "NOT_FOUND")
        fixed = {**wrong, "payload": {"track_ids": [track(2), track(1)]}}
        first = await call.ok("memory_log_playlist_mutation", fixed)
        assert await call.ok("memory_log_playlist_mutation", fixed) == first
        other = {**fixed, "payload": {"track_ids": [track(1), track(2)]}}
        error = await call.error("memory_log_playlist_mutation", other, "CONFLICT")
        assert error["details"]["field"] == "client_event_id"
        now = await call.ok("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": playlist(1)})
    assert now["track_ids"] == [track(2), track(1)]


async def test_refused_create_leaves_its_idempotency_key_free(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": playlist(1), "name": "a", "track_ids": [track(1)]},
        )
        taken = {
            "user_id": 1,
            "playlist_id": playlist(1),
            "name": "b",
            "track_ids": [track(2)],
            "idempotency_key": "key-0000001",
        }
        await call.error("memory_log_playlist_create", taken, "CONFLICT")
        fresh = {**taken, "playlist_id": playlist(2)}
        created = await call.ok("memory_log_playlist_create", fresh)
        assert await call.ok("memory_log_playlist_create", fresh) == created
    assert created["playlist_id"] == playlist(2)
