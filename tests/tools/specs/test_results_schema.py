"""Every tool's success result validates against its PRD result schema, loaded from the repo files.

Each test drives realistic calls through the MCP client and validates the whole envelope against
``memory.tool.response.json`` and ``result`` against ``<tool>.result.json`` (common ``$ref``s
resolved from ``memory.common.json``), with ``date-time`` and ``uuid`` really checked; and the same
envelope against the output schema the tool published in ``tools/list``, the way a strict MCP client
checks it (metaschema check, no registry). The published schema leaves out the item schema of every
array (track IDs, tags, users, hits, playlists, events, audit entries; ``models/schema_files.py``),
so only the PRD check sees each item and field: both checks are needed.
"""

from __future__ import annotations

import uuid
from typing import Any

from service.settings import Settings
from tests.support import connected, playlist, track
from tests.support.contract import assert_valid_success, errors_of, result_validator, wire
from tests.tools.specs.published import PublishedSchemas, published_schemas


async def ok(call: Any, prd_name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    envelope = await call(wire(prd_name), arguments)
    published: PublishedSchemas | None = getattr(call, "published", None)
    if published is None:
        published = call.published = await published_schemas(call.client)
    problem = published.problem(wire(prd_name), envelope)
    assert problem is None, f"{prd_name}: envelope does not validate against the published output schema: {problem}"
    return assert_valid_success(prd_name, envelope)


# --- one test per tool ----------------------------------------------------------------------


async def test_ops_list_users_result(settings: Settings) -> None:
    async with connected(settings) as call:
        empty = await ok(call, "ops.list_users", {})
        assert empty == {"users": []}
        await call.ok("memory_update_profile", {"user_id": 1, "patch": {"genres": ["jazz"]}})
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 2, "playlist_id": playlist(1), "name": "Only a playlist", "track_ids": [track(1)]},
        )
        await call.ok("memory_append_preference_event", {"user_id": 3, "type": "note", "payload": {"raw_text": "hi"}})
        listed = await ok(call, "ops.list_users", {"limit": 10})
    by_user = {u["user_id"]: u for u in listed["users"]}
    assert set(by_user) == {1, 2, 3}
    assert by_user[1]["profile_version"] == 1 and by_user[1]["updated_at"] is not None
    assert by_user[2]["playlist_count"] == 1 and by_user[2]["profile_version"] == 0
    assert by_user[3]["preference_event_count"] == 1


async def test_get_profile_result_without_and_with_profile(settings: Settings) -> None:
    async with connected(settings) as call:
        missing = await ok(call, "memory.get_profile", {"user_id": 5})
        assert missing == {"user_id": 5, "profile": {}, "version": 0, "updated_at": None}
        await call.ok(
            "memory_update_profile",
            {"user_id": 5, "patch": {"genres": ["jazz", "soul"], "energy": {"morning": "low"}}, "reason": "first"},
        )
        await call.ok("memory_update_profile", {"user_id": 5, "patch": {"energy": {"evening": "high"}}})
        found = await ok(call, "memory.get_profile", {"user_id": 5})
    assert found["version"] == 2
    assert found["profile"] == {"genres": ["jazz", "soul"], "energy": {"morning": "low", "evening": "high"}}
    assert isinstance(found["updated_at"], str)


async def test_update_profile_result(settings: Settings) -> None:
    async with connected(settings) as call:
        created = await ok(
            call,
            "memory.update_profile",
            {
                "user_id": 1,
                "patch": {"avoid": ["country"], "playlist_rules": {"max_tracks_per_artist": 2}},
                "reason": "User feedback: no country",
                "source": "user",
                "create_if_missing": True,
            },
        )
        assert created["version"] == 1
        patched = await ok(
            call,
            "memory.update_profile",
            {"user_id": 1, "patch": {"avoid": None, "playlist_rules": {"max_tracks_per_artist": 3}}},
        )
        # A patch that changes nothing is still a valid result (version kept).
        same = await ok(
            call, "memory.update_profile", {"user_id": 1, "patch": {"playlist_rules": {"max_tracks_per_artist": 3}}}
        )
    assert patched["version"] == 2 and patched["profile"] == {"playlist_rules": {"max_tracks_per_artist": 3}}
    assert same["version"] == 2 and same["profile"] == patched["profile"]


async def test_append_preference_event_result(settings: Settings) -> None:
    async with connected(settings) as call:
        now = await ok(
            call,
            "memory.append_preference_event",
            {"user_id": 1, "type": "dislike", "payload": {"raw_text": "too much autotune", "artist": "X"}},
        )
        given = await ok(
            call,
            "memory.append_preference_event",
            {
                "user_id": 1,
                "type": "rule",
                "payload": {"raw_text": "max 2 per artist"},
                "source": "user",
                "timestamp": "2025-03-04T12:30:00+02:00",
            },
        )
    assert now["user_id"] == 1 and now["event_id"] != given["event_id"]
    # The checker itself can fail: bad formats and extra fields in this very result are caught.
    validator = result_validator("memory.append_preference_event")
    for bad in (
        {**now, "event_id": "not-a-uuid"},
        {**now, "event_id": now["event_id"].replace("-", "")},
        {**now, "timestamp": "2025-13-02T03:04:05Z"},
        {**now, "timestamp": "2025-01-02 03:04:05"},
        {**now, "timestamp": "2025-01-02T03:04:05+02:00"},  # RFC 3339, but not UTC with Z (SPEC §5)
        {**now, "user_id": 0},
        {**now, "extra": 1},
    ):
        assert errors_of(validator, bad), bad
    # A client-supplied time with an offset comes back as the same instant in UTC with Z.
    assert given["timestamp"] == "2025-03-04T10:30:00.000Z"


async def test_log_playlist_create_result(settings: Settings) -> None:
    async with connected(settings) as call:
        full = await ok(
            call,
            "memory.log_playlist_create",
            {
                "user_id": 1,
                "playlist_id": playlist(1),
                "name": "Sunday Morning",
                "description": "slow start",
                "track_ids": [track(1), track(2), track(1)],
                "intent_tags": ["calm"],
                "seed_context": {"window": "08:00-10:00", "inspiration": ["Bill Evans"]},
                "created_at": "2025-01-05T08:00:00Z",
                "idempotency_key": "create-sunday-1",
            },
        )
        minimal = await ok(
            call,
            "memory.log_playlist_create",
            {"user_id": 1, "playlist_id": playlist(2), "name": "x", "track_ids": [track(3)]},
        )
    assert full["stored_track_count"] == 3 and full["created_at"] == "2025-01-05T08:00:00.000Z"
    assert minimal["stored_track_count"] == 1 and minimal["playlist_id"] == playlist(2)


async def test_log_playlist_mutation_result_with_and_without_new_snapshot(settings_factory: Any) -> None:
    settings = settings_factory(snapshot_every=2)
    pid = playlist(1)
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": pid, "name": "Mixed", "track_ids": [track(i) for i in range(1, 6)]},
        )
        results = [
            await ok(
                call,
                "memory.log_playlist_mutation",
                {
                    "user_id": 1,
                    "playlist_id": pid,
                    "type": "ADD_TRACKS",
                    "payload": {"track_ids": [track(6), track(7)], "insert_at": 0},
                    "client_event_id": str(uuid.uuid4()),
                },
            ),
            await ok(
                call,
                "memory.log_playlist_mutation",
                {"user_id": 1, "playlist_id": pid, "type": "REMOVE_TRACKS", "payload": {"track_ids": [track(1)]}},
            ),
            await ok(
                call,
                "memory.log_playlist_mutation",
                {
                    "user_id": 1,
                    "playlist_id": pid,
                    "type": "ADD_TRACKS",
                    "payload": {"track_ids": [track(8), track(9)], "positions": [0, 3]},
                },
            ),
            await ok(
                call,
                "memory.log_playlist_mutation",
                {
                    "user_id": 1,
                    "playlist_id": pid,
                    "type": "UPDATE_META",
                    "payload": {"name": "Mixed v2", "description": "now with more", "intent_tags": ["mixed"]},
                },
            ),
        ]
        current = await call.ok("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": pid})
        results.append(
            await ok(
                call,
                "memory.log_playlist_mutation",
                {
                    "user_id": 1,
                    "playlist_id": pid,
                    "type": "REORDER",
                    "payload": {"track_ids": current["track_ids"][::-1]},
                },
            )
        )
    with_snapshot = [r for r in results if r.get("new_snapshot_id")]
    without = [r for r in results if not r.get("new_snapshot_id")]
    assert with_snapshot and without, f"expected both kinds of mutation result: {results}"
    assert all(r["playlist_id"] == pid for r in results)
    assert len({r["event_id"] for r in results}) == len(results)


async def test_get_playlists_result_with_cursor_and_last_page(settings: Settings) -> None:
    async with connected(settings) as call:
        for n in (1, 2, 3):
            await call.ok(
                "memory_log_playlist_create",
                {
                    "user_id": 1,
                    "playlist_id": playlist(n),
                    "name": f"List {n}",
                    "track_ids": [track(n)],
                    "intent_tags": [f"tag{n}"],
                },
            )
        first = await ok(call, "memory.get_playlists", {"user_id": 1, "limit": 2})
        assert isinstance(first["next_cursor"], str) and len(first["items"]) == 2
        rest = await ok(call, "memory.get_playlists", {"user_id": 1, "limit": 2, "cursor": first["next_cursor"]})
        nobody = await ok(call, "memory.get_playlists", {"user_id": 9})
    assert rest["next_cursor"] is None and len(rest["items"]) == 1
    assert {i["playlist_id"] for i in first["items"] + rest["items"]} == {playlist(1), playlist(2), playlist(3)}
    assert nobody == {"items": [], "next_cursor": None}


async def test_get_playlist_result_with_and_without_description(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": 1,
                "playlist_id": playlist(1),
                "name": "Described",
                "description": "late night",
                "track_ids": [track(1), track(2)],
                "intent_tags": ["night"],
                "seed_context": {"mood": "dark"},
            },
        )
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": playlist(2), "name": "Plain", "track_ids": [track(3)]},
        )
        await call.ok(
            "memory_log_playlist_mutation",
            {"user_id": 1, "playlist_id": playlist(1), "type": "ADD_TRACKS", "payload": {"track_ids": [track(4)]}},
        )
        described = await ok(call, "memory.get_playlist", {"user_id": 1, "playlist_id": playlist(1)})
        plain = await ok(
            call, "memory.get_playlist", {"user_id": 1, "playlist_id": playlist(2), "include_events_limit": 0}
        )
        limited = await ok(
            call, "memory.get_playlist", {"user_id": 1, "playlist_id": playlist(1), "include_events_limit": 500}
        )
    assert described["playlist"]["description"] == "late night"
    assert described["playlist"]["seed_context"] == {"mood": "dark"}
    assert [e["type"] for e in described["recent_events"]] == ["ADD_TRACKS"]
    assert "description" not in plain["playlist"] or isinstance(plain["playlist"]["description"], str)
    assert plain["recent_events"] == []
    assert plain["latest_snapshot"]["track_ids"] == [track(3)]
    assert len(limited["recent_events"]) == 1


async def test_reconstruct_playlist_result_now_and_at_time(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": 1,
                "playlist_id": playlist(1),
                "name": "R",
                "track_ids": [track(1)],
                "created_at": "2025-01-01T00:00:00Z",
            },
        )
        await call.ok(
            "memory_log_playlist_mutation",
            {
                "user_id": 1,
                "playlist_id": playlist(1),
                "type": "ADD_TRACKS",
                "payload": {"track_ids": [track(2)]},
                "timestamp": "2025-01-02T00:00:00Z",
            },
        )
        now = await ok(call, "memory.reconstruct_playlist", {"user_id": 1, "playlist_id": playlist(1)})
        then = await ok(
            call,
            "memory.reconstruct_playlist",
            {"user_id": 1, "playlist_id": playlist(1), "at_time": "2025-01-01T12:00:00Z"},
        )
    assert now["track_ids"] == [track(1), track(2)]
    assert then["track_ids"] == [track(1)] and then["as_of"] == "2025-01-01T12:00:00.000Z"


async def test_search_result_has_hits_of_all_three_kinds(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": 1, "patch": {"notes": "loves saxophone solos"}})
        await call.ok(
            "memory_append_preference_event",
            {"user_id": 1, "type": "like", "payload": {"raw_text": "that saxophone break was great"}},
        )
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": playlist(1), "name": "Saxophone Nights", "track_ids": [track(1)]},
        )
        found = await ok(call, "memory.search", {"user_id": 1, "query": "saxophone", "limit": 10})
        nothing = await ok(call, "memory.search", {"user_id": 1, "query": "bagpipes"})
    assert {hit["kind"] for hit in found["results"]} == {"playlist", "preference_event", "profile"}
    scores = [hit["score"] for hit in found["results"]]
    assert scores == sorted(scores, reverse=True)
    assert nothing == {"results": []}


async def test_export_user_data_result(settings: Settings) -> None:
    async with connected(settings) as call:
        empty = await ok(call, "memory.export_user_data", {"user_id": 1})
        await call.ok("memory_update_profile", {"user_id": 1, "patch": {"genres": ["jazz"]}})
        await call.ok("memory_append_preference_event", {"user_id": 1, "type": "note", "payload": {"raw_text": "x"}})
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": playlist(1), "name": "E", "track_ids": [track(1)]},
        )
        full = await ok(call, "memory.export_user_data", {"user_id": 1})
    assert empty["user_id"] == 1
    assert empty["data"]["profile"] is None and empty["data"]["playlists"] == []
    data = full["data"]
    assert {"format", "as_of", "profile", "preference_events", "playlists", "continuation"} <= set(data)
    assert data["continuation"]["next_cursor"] is None
    assert len(data["preference_events"]) == 1 and len(data["playlists"]) == 1


async def test_delete_user_data_result(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": 4, "patch": {"genres": ["jazz"]}})
        deleted = await ok(call, "memory.delete_user_data", {"user_id": 4, "confirm": True})
        again = await ok(call, "memory.delete_user_data", {"user_id": 4, "confirm": True})
    assert deleted["user_id"] == 4 and deleted["deleted"] is True
    assert again["deleted"] is True


async def test_ops_audit_result(settings: Settings) -> None:
    async with connected(settings) as call:
        empty = await ok(call, "ops.audit", {"user_id": 1})
        await call.ok("memory_update_profile", {"user_id": 1, "patch": {"genres": ["jazz"]}})
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": playlist(1), "name": "A", "track_ids": [track(1)]},
        )
        await call.ok(
            "memory_log_playlist_mutation",
            {"user_id": 1, "playlist_id": playlist(1), "type": "ADD_TRACKS", "payload": {"track_ids": [track(2)]}},
        )
        everyone = await ok(call, "ops.audit", {"limit": 500})
        one_playlist = await ok(call, "ops.audit", {"user_id": 1, "playlist_id": playlist(1), "limit": 1})
        if one_playlist.get("next_cursor"):
            await ok(
                call, "ops.audit", {"user_id": 1, "playlist_id": playlist(1), "cursor": one_playlist["next_cursor"]}
            )
    assert empty["entries"] == []
    if not settings.mongodb_uri:  # on MongoDB the change-stream watcher writes the entries a moment later
        assert len(everyone["entries"]) >= 3
