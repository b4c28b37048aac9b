"""The catalog through the tools: idempotent upserts, lookups by id, bounds, isolation between
users, search hits, and resolution that is exact after every write (upsert, delete, import)."""

from __future__ import annotations

from typing import Any

from service.settings import Settings
from service.tracks.catalog import describe_tracks
from tests.support import connected, track
from tests.support.contract import assert_valid_success

ALICE, BOB = 1, 2


def song(n: int, name: str, artist: str, **extra: Any) -> dict[str, Any]:
    return {"track_id": track(n), "name": name, "artists": [artist], **extra}


NEMO = song(
    1, "Nemo", "Nightwish", album="Once", duration_ms=276000, popularity=70, genres=["symphonic metal"], energy=0.55
)
AMARANTH = song(2, "Amaranth", "Nightwish", album="Dark Passion Play", duration_ms=231000)
YELLOW = song(3, "Yellow", "Coldplay")


async def test_upsert_is_idempotent_and_counts_what_it_did(settings: Settings) -> None:
    async with connected(settings) as call:
        first = await call("memory_upsert_tracks", {"user_id": ALICE, "tracks": [NEMO, AMARANTH]})
        assert_valid_success("memory.upsert_tracks", first)
        assert first["result"] == {"user_id": ALICE, "inserted": 2, "updated": 0, "unchanged": 0}
        stored = await call.service.database.tracks.find_one({"_id": f"{ALICE}:{track(1)}", "user_id": ALICE})
        again = await call.ok("memory_upsert_tracks", {"user_id": ALICE, "tracks": [NEMO, AMARANTH]})
        assert again == {"user_id": ALICE, "inserted": 0, "updated": 0, "unchanged": 2}
        assert await call.service.database.tracks.find_one({"_id": f"{ALICE}:{track(1)}", "user_id": ALICE}) == stored
        renamed = {**NEMO, "name": "Nemo - Remastered"}
        changed = await call.ok("memory_upsert_tracks", {"user_id": ALICE, "tracks": [renamed, YELLOW]})
        assert changed == {"user_id": ALICE, "inserted": 1, "updated": 1, "unchanged": 0}
        described = await describe_tracks(call.service.database, ALICE, [track(1), track(9), track(3)])
    assert set(described) == {track(1), track(3)}  # unknown ids are absent
    assert described[track(1)] == {**NEMO, "name": "Nemo - Remastered"}
    assert described[track(3)] == {
        **YELLOW,
        "album": None,
        "duration_ms": None,
        "popularity": None,
        "genres": [],
        "energy": None,
    }


async def test_upsert_is_bounded_and_validated(settings: Settings) -> None:
    async with connected(settings) as call:
        too_many = [song(n, f"Song {n}", "Band") for n in range(501)]
        error = await call.error("memory_upsert_tracks", {"user_id": ALICE, "tracks": too_many}, "INVALID_ARGUMENT")
        assert "tracks" in str(error.get("details"))
        await call.error(
            "memory_upsert_tracks", {"user_id": ALICE, "tracks": [{**NEMO, "energy": 1.5}]}, "INVALID_ARGUMENT"
        )
        await call.error(
            "memory_upsert_tracks", {"user_id": ALICE, "tracks": [{**NEMO, "artists": []}]}, "INVALID_ARGUMENT"
        )
        assert await call.service.database.tracks.count_documents({"user_id": ALICE}) == 0


async def test_another_users_tracks_never_resolve_appear_or_confirm(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": ALICE, "tracks": [NEMO, AMARANTH]})
        await call.ok("memory_upsert_tracks", {"user_id": BOB, "tracks": [YELLOW]})
        mine = await call.ok("memory_resolve_track", {"user_id": BOB, "text": "nemo nightwish"})
        assert mine["best"] is None or mine["best"]["track_id"] == track(3)
        assert all(a["track_id"] == track(3) for a in mine["alternatives"])
        assert not mine["resolved"]
        hits = await call.ok("memory_search", {"user_id": BOB, "query": "nightwish nemo"})
        assert hits["results"] == []
        error = await call.error(
            "memory_confirm_track", {"user_id": BOB, "text": "nemo", "track_id": track(1)}, "NOT_FOUND"
        )
        assert error["details"] == {"field": "track_id"}
        checked = await call.ok("memory_check_playlist", {"user_id": BOB, "track_ids": [track(1), track(3)]})
        assert checked["unknown_tracks"] == [track(1)]
        # Alice's answers are hers alone.
        alice = await call.ok("memory_resolve_track", {"user_id": ALICE, "text": "nemo"})
        assert alice["best"]["track_id"] == track(1) and alice["resolved"]
        assert await call.service.database.track_choices.count_documents({}) == 0


async def test_tracks_are_found_by_search_and_dropped_on_delete(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": ALICE, "tracks": [NEMO, AMARANTH, YELLOW]})
        envelope = await call("memory_search", {"user_id": ALICE, "query": "amaranth"})
        assert_valid_success("memory.search", envelope)
        hit = envelope["result"]["results"][0]
        assert hit == {
            "kind": "track",
            "id": track(2),
            "score": hit["score"],
            "snippet": "Amaranth",
            "metadata": {"name": "Amaranth", "artists": ["Nightwish"]},
        }
        full = await call.ok("memory_search", {"user_id": ALICE, "query": "dark passion", "detail": "full"})
        assert full["results"][0]["metadata"]["album"] == "Dark Passion Play"
        # A write after the index was built is searchable at once.
        await call.ok("memory_upsert_tracks", {"user_id": ALICE, "tracks": [{**YELLOW, "name": "Yellow Submarine"}]})
        assert (await call.ok("memory_search", {"user_id": ALICE, "query": "submarine"}))["results"][0]["id"] == track(
            3
        )
        await call.ok("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
        assert (await call.ok("memory_search", {"user_id": ALICE, "query": "amaranth"}))["results"] == []
        gone = await call.ok("memory_resolve_track", {"user_id": ALICE, "text": "amaranth"})
        assert gone == {"user_id": ALICE, "resolved": False, "best": None, "alternatives": []}


async def test_resolution_is_exact_after_every_write(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": ALICE, "tracks": [NEMO]})
        assert (await call.ok("memory_resolve_track", {"user_id": ALICE, "text": "nemo"}))["resolved"]
        await call.ok("memory_upsert_tracks", {"user_id": ALICE, "tracks": [{**NEMO, "name": "Storytime"}]})
        renamed = await call.ok("memory_resolve_track", {"user_id": ALICE, "text": "storytime"})
        assert renamed["best"]["name"] == "Storytime" and renamed["resolved"]
        assert not (await call.ok("memory_resolve_track", {"user_id": ALICE, "text": "nemo"}))["resolved"]
        await call.ok("memory_confirm_track", {"user_id": ALICE, "text": "the long one", "track_id": track(1)})
        exported = await call.service.transfer.export_all(ALICE)
        await call.ok("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
        assert (await call.ok("memory_resolve_track", {"user_id": ALICE, "text": "storytime"}))["best"] is None
        await call.service.transfer.import_counts([exported], ALICE)
        back = await call.ok("memory_resolve_track", {"user_id": ALICE, "text": "the long one"})
        assert back["best"]["track_id"] == track(1) and back["best"]["confidence"] == 0.99


async def test_confirm_needs_words_to_remember(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": ALICE, "tracks": [NEMO]})
        error = await call.error(
            "memory_confirm_track", {"user_id": ALICE, "text": "?!", "track_id": track(1)}, "INVALID_ARGUMENT"
        )
        assert error["details"] == {"field": "text"}
        empty = await call.ok("memory_resolve_track", {"user_id": ALICE, "text": "?!"})
        assert empty == {"user_id": ALICE, "resolved": False, "best": None, "alternatives": []}


async def test_resolution_does_not_use_meaning(settings: Settings) -> None:
    lullaby = song(4, "Cradle Song", "Brahms", album="Lullabies for Babies")
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": ALICE, "tracks": [lullaby, YELLOW]})
        # Search finds the lullaby by what the words mean; resolution, which would name it as the
        # track the user meant, does not: a merely similar track is a wrong track.
        found = await call.ok("memory_search", {"user_id": ALICE, "query": "tune to help an infant doze off"})
        if not settings.mongodb_uri:  # the embedded engine's hybrid ranking reaches it by meaning
            assert [h["id"] for h in found["results"]][:1] == [track(4)], found
        resolved = await call.ok("memory_resolve_track", {"user_id": ALICE, "text": "tune to help an infant doze off"})
        assert resolved == {"user_id": ALICE, "resolved": False, "best": None, "alternatives": []}
        assert (await call.ok("memory_resolve_track", {"user_id": ALICE, "text": "cradle song"}))["resolved"]
