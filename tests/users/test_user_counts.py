"""``ops_list_users`` reads counters the write path keeps (service/users/stats.py) instead of
aggregating every record: they must stay exact through creates, mutations, preference events,
profile patches, deletes, imports and a crash between a commit point and its counter."""

from __future__ import annotations

import random
from typing import Any

from service.facade import MemoryService
from service.ledger.buckets import first_bucket
from service.settings import Settings
from service.timeutil import utc_now
from tests.support import Caller, connected, playlist, track


async def recount(service: MemoryService) -> list[tuple[int, int, int, int]]:
    """What the records say, counted straight from the collections (not through user_stats)."""
    db = service.database
    users: dict[int, list[int]] = {}
    for head in await db.playlists.find({}, {"user_id": 1}):
        users.setdefault(head["user_id"], [0, 0, 0])[1] += 1
    for event in await db.preference_events.find({}, {"user_id": 1}):
        users.setdefault(event["user_id"], [0, 0, 0])[2] += 1
    for profile in await db.profiles.find({}, {"version": 1}):
        users.setdefault(profile["_id"], [0, 0, 0])[0] = profile["version"]
    return sorted((user, *counts) for user, counts in users.items())


async def listed(call: Caller) -> list[tuple[int, int, int, int]]:
    users = (await call.ok("ops_list_users", {"limit": 200}))["users"]
    return [(u["user_id"], u["profile_version"], u["playlist_count"], u["preference_event_count"]) for u in users]


async def random_writes(call: Caller, rng: random.Random, users: list[int], steps: int, first: int = 0) -> None:
    created: dict[int, list[str]] = {u: [] for u in users}
    for step in range(first, first + steps):
        user = rng.choice(users)
        roll = rng.random()
        if roll < 0.25 or not created[user]:
            pid = playlist(user * 1000 + step)
            await call.ok(
                "memory_log_playlist_create",
                {
                    "user_id": user,
                    "playlist_id": pid,
                    "name": f"mix {step}",
                    "track_ids": [track(step)],
                    "idempotency_key": f"create-{pid}",
                },
            )
            created[user].append(pid)
            if rng.random() < 0.3:  # an idempotent retry counts once
                await call.ok(
                    "memory_log_playlist_create",
                    {
                        "user_id": user,
                        "playlist_id": pid,
                        "name": f"mix {step}",
                        "track_ids": [track(step)],
                        "idempotency_key": f"create-{pid}",
                    },
                )
        elif roll < 0.5:
            await call.ok(
                "memory_log_playlist_mutation",
                {
                    "user_id": user,
                    "playlist_id": rng.choice(created[user]),
                    "type": "ADD_TRACKS",
                    "payload": {"track_ids": [track(10_000 + step)]},
                },
            )
        elif roll < 0.75:
            await call.ok(
                "memory_append_preference_event",
                {"user_id": user, "type": "like", "source": "user", "payload": {"raw_text": f"more like {step}"}},
            )
        else:
            await call.ok("memory_update_profile", {"user_id": user, "patch": {"step": step}, "source": "user"})


async def test_counts_stay_exact_through_writes_deletes_and_imports(settings: Settings) -> None:
    rng = random.Random(9)
    async with connected(settings) as call:
        await random_writes(call, rng, [1, 2, 3], 80)
        assert await listed(call) == await recount(call.service)

        # A patch that changes nothing keeps the version; the counters follow the profile.
        version = (await call.ok("memory_get_profile", {"user_id": 1}))["version"]
        profile = (await call.ok("memory_get_profile", {"user_id": 1}))["profile"]
        await call.ok("memory_update_profile", {"user_id": 1, "patch": profile, "source": "user"})
        assert (await listed(call))[0][1] == version

        exported = await call.service.transfer.export_all(2)
        await call.ok("memory_delete_user_data", {"user_id": 2, "confirm": True})
        assert [row[0] for row in await listed(call)] == [1, 3]
        assert await listed(call) == await recount(call.service)

        await call.service.transfer.import_counts([exported], 2)
        assert [row[0] for row in await listed(call)] == [1, 2, 3]
        assert await listed(call) == await recount(call.service)

        await random_writes(call, rng, [2, 4], 30, first=500)
        assert await listed(call) == await recount(call.service)
        # A user token sees only its users; the counters do not depend on who asks.
        assert [u["user_id"] for u in await call.service.users.listed(200, {2, 4, 99})] == [2, 4]


async def interrupted_writes(service: MemoryService, user: int) -> None:
    """What a crash right after a commit point leaves: the records, not their counter bumps
    (and not the playlist document, which recovery rolls forward)."""
    db = service.database
    bucket = first_bucket(
        user, playlist(777), {"name": "interrupted", "intent_tags": []}, [track(1)], {}, utc_now(), None, "digest"
    )
    await db.history.insert_one(bucket)
    await db.preference_events.insert_one(
        {
            "_id": f"interrupted-event-{user}",
            "user_id": user,
            "type": "note",
            "source": "user",
            "payload": {"raw_text": "half-written"},
            "timestamp": utc_now(),
            "recorded_at": utc_now(),
            "recorded_ns": 1,
        }
    )
    await db.commit_async()


async def test_counts_match_the_records_after_a_crash_recovery(settings: Settings) -> None:
    async with connected(settings) as call:
        await random_writes(call, random.Random(3), [5, 6], 25)
        before = await listed(call)
        await interrupted_writes(call.service, 6)
        await interrupted_writes(call.service, 8)  # a user whose only records are interrupted ones
        # The counters lag the records until the next start-up's recovery …
        assert await listed(call) == before
    async with connected(settings) as call:
        after = await listed(call)
        assert after == await recount(call.service)
        by_user: dict[int, Any] = {row[0]: row for row in after}
        old = {row[0]: row for row in before}
        assert by_user[6][2:] == (old[6][2] + 1, old[6][3] + 1)
        assert by_user[8] == (8, 0, 1, 1)
        rebuilt = await call.ok("memory_reconstruct_playlist", {"user_id": 8, "playlist_id": playlist(777)})
        assert rebuilt["track_ids"] == [track(1)]


async def test_restart_keeps_counts(settings: Settings) -> None:
    async with connected(settings) as call:
        await random_writes(call, random.Random(4), [1, 2], 20)
        before = await listed(call)
    async with connected(settings) as call:
        assert await listed(call) == before == await recount(call.service)


async def test_a_user_who_only_taught_the_catalog_is_listed_until_deleted(settings: Settings) -> None:
    tracks = [{"track_id": track(n), "name": f"Song {n}", "artists": ["Band"]} for n in range(3)]
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": 5, "tracks": tracks})
        await call.ok("memory_upsert_tracks", {"user_id": 5, "tracks": tracks})  # unchanged: counted once
        assert await listed(call) == [(5, 0, 0, 0)]
        assert (await call.service.database.user_stats.find_one({"_id": 5, "user_id": 5}))["track_count"] == 3
    async with connected(settings) as call:  # recounted from the records at start-up
        assert await listed(call) == [(5, 0, 0, 0)]
        await call.ok("memory_delete_user_data", {"user_id": 5, "confirm": True})
        assert await listed(call) == []
