"""Export drops every ``_id`` key at any depth, including keys inside the user's own objects.

``service/transfer/export.py::to_json`` removes ``"_id"`` from *every* dict it walks, to strip the
document ids; but it also walks into the profile object, profile patches, preference-event
payloads and seed_context, which are free-form user JSON. Those keys are silently lost by the
export and so by an export -> delete -> import round trip (SPEC §5: "everything stored").
"""

from __future__ import annotations

from typing import Any

from tests.support import connected, playlist, track

USER = 21
PID = playlist(1)
SPOTIFY = {"_id": "spotify:artist:0OdUWJ0sBjDrqHygGUXeCF", "name": "Band of Horses"}


async def _write(call: Any) -> None:
    await call.ok("memory_update_profile", {"user_id": USER, "patch": {"favourite_artist": SPOTIFY}})
    await call.ok(
        "memory_append_preference_event",
        {"user_id": USER, "type": "like", "payload": {"raw_text": "love them", "artist": SPOTIFY}},
    )
    await call.ok(
        "memory_log_playlist_create",
        {
            "user_id": USER,
            "playlist_id": PID,
            "name": "p",
            "track_ids": [track(1)],
            "seed_context": {"inspiration": SPOTIFY},
        },
    )


async def test_export_keeps_id_keys_of_user_objects(settings: Any) -> None:
    async with connected(settings) as call:
        await _write(call)
        data = (await call.ok("memory_export_user_data", {"user_id": USER}))["data"]
    assert data["profile"]["profile"]["favourite_artist"] == SPOTIFY
    assert data["profile"]["history"][0]["patch"]["favourite_artist"] == SPOTIFY
    assert data["preference_events"][0]["payload"]["artist"] == SPOTIFY
    assert data["playlists"][0]["seed_context"]["inspiration"] == SPOTIFY


async def test_export_delete_import_round_trip_keeps_id_keys(settings: Any) -> None:
    async with connected(settings) as call:
        await _write(call)
        before_profile = await call.ok("memory_get_profile", {"user_id": USER})
        before_playlist = await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": PID})
        exported = await call.service.transfer.export_all(USER)
        await call.ok("memory_delete_user_data", {"user_id": USER, "confirm": True})
        await call.service.transfer.import_counts([exported], USER)
        after_profile = await call.ok("memory_get_profile", {"user_id": USER})
        after_playlist = await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": PID})
    assert after_profile["profile"] == before_profile["profile"]
    assert after_playlist["playlist"]["seed_context"] == before_playlist["playlist"]["seed_context"]
