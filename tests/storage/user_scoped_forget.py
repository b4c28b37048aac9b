"""memory_forget along its main paths, for the scenario of tests/storage/test_user_scoped_queries.py
(every storage call a one-user tool makes filters by user_id): each kind forgotten, and each
aimed at another user (NOT_FOUND). Items are made for the purpose, so the scenario's later
counts do not change."""

from __future__ import annotations

from tests.support import EnvelopeCaller, playlist, track


async def forget_scenario(call: EnvelopeCaller, user: int, other: int) -> None:
    event = await call.ok(
        "memory_append_preference_event", {"user_id": user, "type": "note", "payload": {"raw_text": "forget me"}}
    )
    memory = await call.ok(
        "memory_add",
        {
            "user_id": user,
            "type": "insight",
            "entities": ["Forgettable"],
            "summary": "forget me",
            "importance": 9,
            "skip_dedup": True,
        },
    )
    await call.ok(
        "memory_log_plays",
        {"user_id": user, "plays": [{"artist": "Forgettable", "track": "Gone", "played_at": "2019-02-03T04:05:06Z"}]},
    )
    await call.ok(
        "memory_log_playlist_create",
        {
            "user_id": user,
            "playlist_id": playlist(77),
            "name": "forget me",
            "track_ids": [track(77)],
            "idempotency_key": "forget-scenario-1",
        },
    )
    await call.ok("memory_update_profile", {"user_id": user, "patch": {"forget_me": {"now": 1}}})
    items = {
        "preference_event": event["event_id"],
        "memory": memory["memory_id"],
        "play": "Forgettable|Gone|2019-02-03T04:05:06Z",
        "playlist": playlist(77),
        "profile_field": "/forget_me/now",
    }
    for kind, item in items.items():
        await call.error("memory_forget", {"user_id": other, "kind": kind, "id": item, "confirm": True}, "NOT_FOUND")
        await call.ok("memory_forget", {"user_id": user, "kind": kind, "id": item, "confirm": True})
    await call.ok("memory_update_profile", {"user_id": user, "patch": {"forget_me": None}})
