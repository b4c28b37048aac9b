"""The PRD §10 playbook, played by the official MCP clients against a real ``serve`` process over SSE,
streamable HTTP and stdio.

Every envelope is checked by ``WireCaller`` (structured content, identical text content,
``is_error``, PRD result schema, UTC times). Contents are never read back from "Spotify": each
edit is followed by a reconstruction compared to the list this test computes itself.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from service.settings import Settings
from tests.support import playlist, track
from tests.support.mcp_sessions import serving, sse_session, stdio_session, streamable_http_session
from tests.support.merge_model import reference_merge
from tests.support.server_process import assert_rederive_clean, http_get, running_server

pytestmark = pytest.mark.slow

USER = 1
DRIVE = playlist(101)  # the upbeat one the user will later look for by vibe
NIGHT = playlist(102)  # an unrelated one that must not match the vibe search


def add_tracks(tracks: list[str], payload: dict[str, Any]) -> list[str]:
    new = payload["track_ids"]
    if "positions" in payload:
        # positions[i] is the index track_ids[i] has in the resulting list.
        size = len(tracks) + len(new)
        placed = dict(zip(payload["positions"], new))
        rest = iter(tracks)
        return [placed[i] if i in placed else next(rest) for i in range(size)]
    at = payload.get("insert_at", len(tracks))
    return tracks[:at] + new + tracks[at:]


@pytest.mark.parametrize("transport", ["sse", "streamable-http", "stdio"])
async def test_playbook_flows_over_every_transport(settings: Settings, tmp_path: Path, transport: str) -> None:
    async with serving(transport, settings, tmp_path) as session:
        async with session() as call:
            # §10.1 session bootstrap on a fresh store: nobody yet, an empty profile, no playlists.
            assert await call.ok("ops_list_users", {}) == {"users": []}
            assert await call.ok("memory_get_profile", {"user_id": USER}) == {
                "user_id": USER,
                "profile": {},
                "version": 0,
                "updated_at": None,
            }
            assert await call.ok("memory_get_playlists", {"user_id": USER, "limit": 10}) == {
                "items": [],
                "next_cursor": None,
            }

            # §10.2 a preference: the words as an event, the normalized rule in the profile.
            said = "Don't put more than two songs by the same artist in a playlist"
            event = await call.ok(
                "memory_append_preference_event",
                {
                    "user_id": USER,
                    "type": "rule",
                    "source": "user",
                    "payload": {"raw_text": said, "rule": "max_tracks_per_artist", "value": 2},
                },
            )
            assert event["user_id"] == USER
            assert str(uuid.UUID(event["event_id"])) == event["event_id"]
            expected_profile: dict[str, Any] = {}
            patches = [
                {
                    "playlist_rules": {"max_tracks_per_artist": 2, "arc": "drive → breather → drive"},
                    "core_genres": ["symphonic metal", "power metal"],
                    "secondary_vibes": ["hooky pop"],
                },
                # merge: nested objects merge, arrays replace, null deletes
                {
                    "playlist_rules": {"arc": None, "target_duration_minutes": {"min": 90, "max": 180}},
                    "energy_preferences": {"default": "upbeat/anthemic"},
                    "secondary_vibes": None,
                    "core_genres": ["symphonic metal", "power metal", "melodic metal"],
                },
            ]
            for version, patch in enumerate(patches, start=1):
                updated = await call.ok(
                    "memory_update_profile",
                    {"user_id": USER, "patch": patch, "reason": f"User feedback: {said}", "source": "user"},
                )
                expected_profile = reference_merge(expected_profile, patch)
                assert updated["profile"] == expected_profile
                assert updated["version"] == version
            second_event = await call.ok(
                "memory_append_preference_event",
                {
                    "user_id": USER,
                    "type": "feedback",
                    "source": "user",
                    "payload": {"raw_text": "Keep it upbeat, but a breather mid-playlist is nice"},
                },
            )
            assert second_event["event_id"] != event["event_id"]
            profile = await call.ok("memory_get_profile", {"user_id": USER})
            assert profile["profile"] == expected_profile and profile["version"] == 2

            # §10.3 log the playlist right after creating it on the music service.
            original = [track(n) for n in range(1, 7)]
            seed_context = {
                "days": 60,
                "top_artists": ["Nightwish", "Sabaton", "Beast In Black"],
                "constraints": {"max_tracks_per_artist": 2, "target_duration_minutes": {"min": 90, "max": 180}},
            }
            created = await call.ok(
                "memory_log_playlist_create",
                {
                    "user_id": USER,
                    "playlist_id": DRIVE,
                    "name": "Drive / Breather / Drive",
                    "description": "Anthemic symphonic metal with a breather in the middle",
                    "track_ids": original,
                    "intent_tags": ["upbeat", "breathers", "symphonic metal"],
                    "seed_context": seed_context,
                    "created_at": "2025-03-01T10:00:00Z",
                    "idempotency_key": f"create-{DRIVE}",
                },
            )
            assert created["playlist_id"] == DRIVE
            assert created["stored_track_count"] == len(original)
            assert created["created_at"].startswith("2025-03-01T10:00:00")
            create_snapshot = created["snapshot_id"]

            # §10.4 each kind of edit, each followed by a reconstruction (no read-back).
            edits: list[tuple[str, dict[str, Any]]] = [
                ("ADD_TRACKS", {"track_ids": [track(11), track(12)], "insert_at": 2}),
                ("ADD_TRACKS", {"track_ids": [track(13), track(14)], "positions": [0, 5]}),
                ("ADD_TRACKS", {"track_ids": [track(15), track(3)]}),  # appended; track 3 is now a duplicate
                ("REMOVE_TRACKS", {"track_ids": [track(3), track(12)]}),  # every occurrence goes
                ("REORDER", None),  # the full current order, reversed: filled in below
                ("UPDATE_META", {"name": "Drive / Breather / Drive v1", "intent_tags": ["upbeat", "breathers"]}),
            ]
            tracks = list(original)
            meta = {
                "name": "Drive / Breather / Drive",
                "intent_tags": ["upbeat", "breathers", "symphonic metal"],
                "description": "Anthemic symphonic metal with a breather in the middle",
            }
            states: list[list[str]] = [list(tracks)]
            logged: list[dict[str, Any]] = []
            for minute, (kind, payload) in enumerate(edits, start=1):
                if kind == "REORDER":
                    payload = {"track_ids": list(reversed(tracks))}
                assert payload is not None
                if kind == "ADD_TRACKS":
                    tracks = add_tracks(tracks, payload)
                elif kind == "REMOVE_TRACKS":
                    tracks = [t for t in tracks if t not in payload["track_ids"]]
                elif kind == "REORDER":
                    tracks = list(payload["track_ids"])
                else:
                    meta.update(payload)
                states.append(list(tracks))
                stamp = f"2025-03-01T10:{minute:02d}:00Z"
                result = await call.ok(
                    "memory_log_playlist_mutation",
                    {
                        "user_id": USER,
                        "playlist_id": DRIVE,
                        "type": kind,
                        "payload": payload,
                        "timestamp": stamp,
                        "client_event_id": str(uuid.uuid4()),
                    },
                )
                assert result["playlist_id"] == DRIVE
                assert result["timestamp"].startswith(stamp[:-1])
                assert result.get("new_snapshot_id") is None  # fewer than N=10 mutations
                logged.append({"event_id": result["event_id"], "type": kind, "payload": payload})
                rebuilt = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": DRIVE})
                assert rebuilt["track_ids"] == tracks, f"after {kind} {payload}"
                assert rebuilt["playlist_id"] == DRIVE
            assert tracks.count(track(3)) == 0 and track(15) in tracks  # the edits did what we meant

            # The ledger answers for any moment, not just now.
            for minute, state in enumerate(states):
                rebuilt = await call.ok(
                    "memory_reconstruct_playlist",
                    {"user_id": USER, "playlist_id": DRIVE, "at_time": f"2025-03-01T10:{minute:02d}:30Z"},
                )
                assert rebuilt["track_ids"] == state, f"at minute {minute}"
            await call.error(
                "memory_reconstruct_playlist",
                {"user_id": USER, "playlist_id": DRIVE, "at_time": "2025-03-01T09:59:59Z"},
                "NOT_FOUND",
            )

            details = await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": DRIVE})
            assert details["playlist"] == {
                "playlist_id": DRIVE,
                "user_id": USER,
                "name": meta["name"],
                "description": meta["description"],
                "intent_tags": meta["intent_tags"],
                "seed_context": seed_context,
                "created_at": created["created_at"],
                "updated_at": details["playlist"]["updated_at"],
            }
            assert details["playlist"]["updated_at"].startswith("2025-03-01T10:06:00")
            assert details["latest_snapshot"]["snapshot_id"] == create_snapshot
            assert details["latest_snapshot"]["track_ids"] == original
            assert [{k: e[k] for k in ("event_id", "type", "payload")} for e in details["recent_events"]] == logged

            # A second, unrelated playlist; the listing is newest-updated first.
            night = [track(n) for n in range(40, 44)]
            await call.ok(
                "memory_log_playlist_create",
                {
                    "user_id": USER,
                    "playlist_id": NIGHT,
                    "name": "Late-night ambient",
                    "track_ids": night,
                    "intent_tags": ["calm", "ambient", "piano"],
                    "seed_context": {"days": 7},
                    "created_at": "2025-03-02T22:00:00Z",
                },
            )
            listing = await call.ok("memory_get_playlists", {"user_id": USER, "limit": 10})
            assert [(i["playlist_id"], i.get("track_count")) for i in listing["items"]] == [
                (NIGHT, len(night)),
                (DRIVE, len(tracks)),
            ]
            assert listing["next_cursor"] is None
            meta_edit = {"description": "Anthemic symphonic metal, one breather"}
            await call.ok(
                "memory_log_playlist_mutation",
                {
                    "user_id": USER,
                    "playlist_id": DRIVE,
                    "type": "UPDATE_META",
                    "payload": meta_edit,
                    "timestamp": "2025-03-03T09:00:00Z",
                },
            )
            meta.update(meta_edit)
            listing = await call.ok("memory_get_playlists", {"user_id": USER, "limit": 10})
            assert [i["playlist_id"] for i in listing["items"]] == [DRIVE, NIGHT]  # a mutation moves it up
            assert listing["items"][0]["name"] == meta["name"]
            assert listing["items"][0]["intent_tags"] == meta["intent_tags"]

            # §10.8 "find that playlist from before" by vibe, then confirm it, then use its tracks.
            found = await call.ok("memory_search", {"user_id": USER, "query": "breathers upbeat metal"})
            hits = found["results"]
            playlist_hits = [h for h in hits if h["kind"] == "playlist"]
            assert playlist_hits and playlist_hits[0]["id"] == DRIVE, hits
            assert NIGHT not in [h["id"] for h in playlist_hits]
            assert playlist_hits[0]["snippet"].strip()
            assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
            confirmed = await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": playlist_hits[0]["id"]})
            assert confirmed["playlist"]["name"] == meta["name"]
            assert confirmed["playlist"]["description"] == meta["description"]
            seed_set = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": DRIVE})
            assert seed_set["track_ids"] == tracks

        # A new session on the same server: bootstrap finds exactly this user and its memory.
        async with session() as call:
            users = (await call.ok("ops_list_users", {}))["users"]
            assert [
                (u["user_id"], u["profile_version"], u["playlist_count"], u["preference_event_count"]) for u in users
            ] == [(USER, 2, 2, 2)]
            again = await call.ok("memory_get_profile", {"user_id": USER})
            assert (again["profile"], again["version"]) == (expected_profile, 2)

    # Every derived view is what the records say (checked before a restart, whose start-up
    # recovery would repair heads and counters unseen).
    assert_rederive_clean(settings, tmp_path)

    # And after a restart of the process on the same store.
    async with serving(transport, settings, tmp_path) as session, session() as call:
        again = await call.ok("memory_get_profile", {"user_id": USER})
        assert (again["profile"], again["version"]) == (expected_profile, 2)
        rebuilt = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": DRIVE})
        assert rebuilt["track_ids"] == tracks
        details = await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": DRIVE})
        assert details["playlist"]["name"] == meta["name"]
        assert details["playlist"]["description"] == meta["description"]
        assert len(details["recent_events"]) == len(edits) + 1


async def test_errors_reach_the_sse_client_as_envelopes(settings: Settings, tmp_path: Path) -> None:
    with running_server(settings, tmp_path) as server:
        async with sse_session(server) as call:
            error = await call.error("memory_get_profile", {"user_id": USER, "surprise": 1}, "INVALID_ARGUMENT")
            assert "surprise" in str(error.get("details"))
            await call.error(
                "memory_log_playlist_mutation",
                {"user_id": USER, "playlist_id": DRIVE, "type": "REMOVE_TRACKS", "payload": {"track_ids": [track(1)]}},
                "NOT_FOUND",
            )
            await call.ok(
                "memory_log_playlist_create",
                {"user_id": USER, "playlist_id": DRIVE, "name": "x", "track_ids": [track(1)]},
            )
            await call.error(
                "memory_log_playlist_create",
                {"user_id": USER, "playlist_id": DRIVE, "name": "x", "track_ids": [track(1)]},
                "CONFLICT",
            )
            await call.error(
                "memory_log_playlist_mutation",
                {"user_id": USER, "playlist_id": DRIVE, "type": "REORDER", "payload": {"track_ids": [track(2)]}},
                "CONFLICT",
            )


async def test_health_and_readiness_answer_json(settings: Settings, tmp_path: Path, backend: str) -> None:
    with running_server(settings, tmp_path) as server:
        status, body = http_get(f"{server.base_url}/healthz")
        assert status == 200 and isinstance(body, dict), body
        assert body.get("status") == "ok"
        status, body = http_get(f"{server.base_url}/readyz")
        assert status == 200 and isinstance(body, dict), body
        assert body.get("status") == "ready"
        assert body.get("engine") == backend


async def test_streamable_http_transport_serves_mcp(settings: Settings, tmp_path: Path) -> None:
    with running_server(settings, tmp_path, transport="streamable-http") as server:
        status, body = http_get(f"{server.base_url}/readyz")
        assert status == 200 and body.get("status") == "ready"
        async with streamable_http_session(server) as call:
            names = {t.name for t in (await call.client.list_tools()).tools}
            assert {"memory_get_profile", "memory_log_playlist_create", "ops_list_users"} <= names
            updated = await call.ok(
                "memory_update_profile",
                {"user_id": USER, "patch": {"avoid": ["autotune"]}, "reason": "User feedback: no autotune"},
            )
            assert updated["version"] == 1
        async with streamable_http_session(server) as call:
            profile = await call.ok("memory_get_profile", {"user_id": USER})
            assert (profile["profile"], profile["version"]) == ({"avoid": ["autotune"]}, 1)


async def test_stdio_transport_serves_mcp(settings: Settings, tmp_path: Path) -> None:
    async with stdio_session(settings, tmp_path) as call:
        names = {t.name for t in (await call.client.list_tools()).tools}
        assert {"memory_get_profile", "memory_search", "ops_list_users"} <= names
        created = await call.ok(
            "memory_log_playlist_create",
            {"user_id": USER, "playlist_id": DRIVE, "name": "stdio", "track_ids": [track(1), track(2)]},
        )
        assert created["stored_track_count"] == 2
    # A second stdio process on the same store sees what the first one wrote.
    async with stdio_session(settings, tmp_path) as call:
        rebuilt = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": DRIVE})
        assert rebuilt["track_ids"] == [track(1), track(2)]


async def test_a_stdio_server_acts_for_the_users_its_environment_names(settings: Settings, tmp_path: Path) -> None:
    other = USER + 1
    async with stdio_session(settings, tmp_path) as call:  # unset: the machine's own user, any user
        for user in (USER, other):
            await call.ok("memory_update_profile", {"user_id": user, "patch": {"n": user}, "create_if_missing": True})
    async with stdio_session(settings, tmp_path, env={"MEMORY_STDIO_USER_IDS": str(USER)}) as call:
        assert (await call.ok("memory_get_profile", {"user_id": USER}))["profile"] == {"n": USER}
        await call.ok("memory_update_profile", {"user_id": USER, "patch": {"m": 1}})
        for tool, arguments in (
            ("memory_get_profile", {"user_id": other}),
            ("memory_update_profile", {"user_id": other, "patch": {"m": 1}}),
            ("memory_delete_user_data", {"user_id": other, "confirm": True}),
            ("ops_audit", {}),
        ):
            await call.error(tool, arguments, "FORBIDDEN")
        assert [u["user_id"] for u in (await call.ok("ops_list_users", {}))["users"]] == [USER]
