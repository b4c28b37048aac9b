"""memory_forget: each kind is gone from get/search/export/context/query/explain/inspect, the audit trail and the
store's files; one content-free tombstone remains; another user's item and a second forget are
NOT_FOUND; the rest of the user's data stays."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from service.settings import Settings
from service.users import stats as user_stats
from tests.support import Caller, connected, playlist, track
from tests.support.contract import assert_valid_success

USER, OTHER = 1, 2
PLAYED_AT = "2026-03-04T05:06:07.123Z"
MARKERS = {
    "preference_event": "zebraeventmarker",
    "memory": "zebramemorymarker",
    "play": "Zebraplaymarker",
    "playlist": "zebraplaylistmarker",
    "profile_field": "zebrafieldmarker",
}


def mark(kind: str, user: int) -> str:
    """The user's marker of a kind: no user's is part of another's."""
    return MARKERS[kind] + "qxz"[user]


def on_disk(data_dir: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(data_dir.glob("memory.sqlite3*")) if p.is_file())


async def _seed(call: Caller, user: int) -> dict[str, str]:
    """One item of each kind carrying its marker, plus data that must survive; returns the ids."""
    await call.ok(
        "memory_update_profile",
        {
            "user_id": user,
            "create_if_missing": True,
            "reason": "r1",
            "patch": {"rules": {"max_tracks_per_artist": 2}, "keep": "stays"},
        },
    )
    await call.ok(
        "memory_update_profile",
        {
            "user_id": user,
            "reason": f"said {mark('profile_field', user)}",
            "patch": {"note": mark("profile_field", user), "avoid": ["kazoo", "polka"]},
        },
    )
    event = await call.ok(
        "memory_append_preference_event",
        {
            "user_id": user,
            "type": "dislike",
            "payload": {"artist": "Dull Band", "raw_text": f"I hate {mark('preference_event', user)}"},
        },
    )
    await call.ok(
        "memory_append_preference_event",
        {"user_id": user, "type": "like", "payload": {"artist": "Kept Artist", "raw_text": "keptevent"}},
    )
    memory = await call.ok(
        "memory_add",
        {
            "user_id": user,
            "type": "insight",
            "entities": ["Zebra"],
            "summary": f"Loves {mark('memory', user)}",
            "importance": 9,
        },
    )
    await call.ok(
        "memory_add",
        {"user_id": user, "type": "insight", "entities": ["Kept"], "summary": "Loves keptmemory", "importance": 9},
    )
    await call.ok(
        "memory_log_plays",
        {
            "user_id": user,
            "plays": [
                {"artist": f"The {mark('play', user)}", "track": "Night Song", "played_at": PLAYED_AT},
                {"artist": "Keptplay", "track": "Day Song", "played_at": PLAYED_AT},
            ],
        },
    )
    await call.ok(
        "memory_log_playlist_create",
        {
            "user_id": user,
            "playlist_id": playlist(user * 10),
            "name": f"{mark('playlist', user)} mix",
            "track_ids": [track(1)],
            "idempotency_key": f"forget-key-{user:08d}",
            "intent_tags": ["upbeat"],
        },
    )
    await call.ok(
        "memory_log_playlist_mutation",
        {
            "user_id": user,
            "playlist_id": playlist(user * 10),
            "type": "UPDATE_META",
            "payload": {"description": f"more {mark('playlist', user)}"},
        },
    )
    await call.ok(
        "memory_log_playlist_create",
        {"user_id": user, "playlist_id": playlist(user * 10 + 1), "name": "keptplaylist", "track_ids": [track(2)]},
    )
    return {
        "preference_event": event["event_id"],
        "memory": memory["memory_id"],
        "play": f"{mark('play', user).lower()}|night song|2026-03-04T06:06:07.123+01:00",
        "playlist": playlist(user * 10),
        "profile_field": "/note",
    }


async def _visible(call: Caller, user: int, marker: str) -> str:
    """Everything a read can show of the user, as one text."""
    seen: list[Any] = [
        await call.ok("memory_get_profile", {"user_id": user}),
        await call.ok("memory_search", {"user_id": user, "query": marker, "detail": "full"}),
        await call.ok("memory_search", {"user_id": user, "query": "mix more", "detail": "full"}),
        await call.ok("memory_get_context", {"user_id": user, "budget_tokens": 4000}),
        await call.ok("memory_query", {"user_id": user, "text": marker.lower()}),
        await call.ok("memory_query", {"user_id": user, "entity": "zebra"}),
        await call.ok("memory_get_playlists", {"user_id": user}),
        await call.ok("memory_export_user_data", {"user_id": user}),
        await call.ok("memory_rotation_report", {"user_id": user}),
        {
            k: v for k, v in (await call.ok("memory_explain", {"user_id": user, "path": marker})).items() if k != "path"
        },  # (the answer repeats the subject asked about)
        await call("memory_explain", {"user_id": user, "path": "/note"}),  # NOT_FOUND once it is forgotten
        await call.ok("memory_inspect", {"user_id": user}),
        await call.service.transfer.export_all(user),
    ]
    return json.dumps(seen, default=str).lower()


async def _trail(call: Caller, user: int) -> list[dict[str, Any]]:
    return (await call.ok("ops_audit", {"user_id": user, "limit": 500}))["entries"]


@pytest.mark.parametrize("kind", sorted(MARKERS))
async def test_a_forgotten_item_is_gone_everywhere_and_leaves_one_tombstone(tmp_path: Path, kind: str) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    marker = mark(kind, USER).lower()
    async with connected(settings) as call:
        ids = await _seed(call, USER)
        other_ids = await _seed(call, OTHER)
        assert marker in await _visible(call, USER, marker), "the test must see the item first"
        before_trail = await _trail(call, USER)
        # Another user's item is not found, and stays.
        if kind != "profile_field":  # (both users have the field /note)
            await call.error(
                "memory_forget", {"user_id": USER, "kind": kind, "id": other_ids[kind], "confirm": True}, "NOT_FOUND"
            )
        envelope = await call("memory_forget", {"user_id": USER, "kind": kind, "id": ids[kind], "confirm": True})
        result = assert_valid_success("memory.forget", envelope)
        assert result["kind"] == kind and result["id"] == ids[kind] and result["forgotten"] is True
        shown = await _visible(call, USER, marker)
        assert marker not in shown, f"{kind}: still shown"
        for other_kind in MARKERS:  # the rest of the user's data stays
            if other_kind != kind:
                assert mark(other_kind, USER).lower() in shown, f"forgetting {kind} lost {other_kind}"
        for kept in ("keptevent", "keptmemory", "keptplay", "keptplaylist", "stays"):
            assert kept in shown
        other = mark(kind, OTHER)
        assert other.lower() in await _visible(call, OTHER, other), "the other user's item stays"
        # Forgetting twice: NOT_FOUND.
        await call.error(
            "memory_forget", {"user_id": USER, "kind": kind, "id": ids[kind], "confirm": True}, "NOT_FOUND"
        )
        # The trail: one tombstone naming kind and id (never content), no entry naming the item.
        trail = await _trail(call, USER)
        assert marker not in json.dumps(trail).lower()
        tombstones = [e for e in trail if e["operation"] == "forget"]
        assert len(tombstones) == 1 and tombstones[0]["collection"] is None
        assert tombstones[0]["document_key"].startswith(f"{kind}:") and tombstones[0]["tool"] == "memory.forget"
        if kind != "play":
            assert tombstones[0]["document_key"] == f"{kind}:{ids[kind]}"
        assert not any(e["document_key"] == ids[kind] for e in trail if e["operation"] != "forget")
        if kind == "playlist":
            assert not any(e["playlist_id"] == ids[kind] for e in trail)
        assert len(trail) <= len(before_trail) + 2  # the tombstone (and the profile's new version)
        # And the store's files no longer hold it.
        assert marker.encode() not in on_disk(settings.data_dir).lower(), f"{kind}: left on disk"
        assert b"keptmemory" in on_disk(settings.data_dir)
        # The counters the write path keeps agree with the records.
        kept = await call.service.database.user_stats.find_one({"_id": USER})
        assert {k: kept.get(k, 0) for k in user_stats.FIELDS} == await user_stats.recount(call.service.database, USER)


async def test_profile_field_forget_is_a_new_version_and_history_keeps_no_value(settings: Settings) -> None:
    async with connected(settings) as call:
        await _seed(call, USER)
        before = await call.ok("memory_get_profile", {"user_id": USER})
        await call.ok(
            "memory_forget",
            {"user_id": USER, "kind": "profile_field", "id": "/rules/max_tracks_per_artist", "confirm": True},
        )
        await call.ok("memory_forget", {"user_id": USER, "kind": "profile_field", "id": "/avoid/1", "confirm": True})
        after = await call.ok("memory_get_profile", {"user_id": USER})
        assert after["version"] == before["version"] + 2
        assert after["profile"]["rules"] == {} and after["profile"]["avoid"] == ["kazoo"]
        assert after["profile"]["note"] == mark("profile_field", USER)
        history = (await call.service.transfer.export_all(USER))["profile"]["history"]
        text = json.dumps(history, default=str)
        assert 'max_tracks_per_artist": 2' not in text and "polka" not in text
        assert history[-2]["patch"] == {"rules": {"max_tracks_per_artist": None}}
        assert history[-1]["patch"] == {"avoid": ["kazoo"]}
        assert history[0]["patch"] == {"rules": {}, "keep": "stays"} and history[0]["reason"] is None
        for pointer in ("/rules/max_tracks_per_artist", "/nothing", "/avoid/7", "/avoid/01"):
            await call.error(
                "memory_forget", {"user_id": USER, "kind": "profile_field", "id": pointer, "confirm": True}, "NOT_FOUND"
            )
        await call.error(
            "memory_forget", {"user_id": OTHER, "kind": "profile_field", "id": "/note", "confirm": True}, "NOT_FOUND"
        )
        await call.error(
            "memory_forget",
            {"user_id": USER, "kind": "profile_field", "id": "note", "confirm": True},
            "INVALID_ARGUMENT",
        )


async def test_unknown_items_bad_ids_and_confirm(settings: Settings) -> None:
    async with connected(settings) as call:
        ids = await _seed(call, USER)
        for kind, item in (
            ("preference_event", "no-such-event"),
            ("memory", "mem_" + "0" * 24),
            ("memory", "not-a-memory-id"),
            ("playlist", playlist(99)),
            ("play", f"nobody|night song|{PLAYED_AT}"),
            ("play", f"{mark('play', USER)}|other|{PLAYED_AT}"),
        ):
            await call.error("memory_forget", {"user_id": USER, "kind": kind, "id": item, "confirm": True}, "NOT_FOUND")
        await call.error(
            "memory_forget",
            {"user_id": USER, "kind": "play", "id": "a|b|yesterday", "confirm": True},
            "INVALID_ARGUMENT",
        )
        for bad in ({"confirm": False}, {"kind": "everything"}, {"id": ""}, {"extra": 1}):
            await call.error(
                "memory_forget",
                {"user_id": USER, "kind": "memory", "id": ids["memory"], "confirm": True, **bad},
                "INVALID_ARGUMENT",
            )
        assert (await call.ok("memory_query", {"user_id": USER, "text": mark("memory", USER)}))["memories"]


async def test_forget_works_while_memory_is_off_or_paused(settings: Settings) -> None:
    async with connected(settings) as call:
        ids = await _seed(call, USER)
        await call.ok("memory_pause", {"user_id": USER, "until": "2099-01-01T00:00:00Z"})
        await call.ok("memory_forget", {"user_id": USER, "kind": "memory", "id": ids["memory"], "confirm": True})
        await call.ok("memory_set_enabled", {"user_id": USER, "enabled": False})
        await call.ok("memory_forget", {"user_id": USER, "kind": "playlist", "id": ids["playlist"], "confirm": True})
        await call.ok("memory_set_enabled", {"user_id": USER, "enabled": True})
        await call.ok("memory_pause", {"user_id": USER, "until": None})
        shown = await _visible(call, USER, "zebra")
        assert mark("memory", USER).lower() not in shown and mark("playlist", USER).lower() not in shown
        assert mark("preference_event", USER).lower() in shown
        counts = (await call.ok("memory_status", {"user_id": USER}))["counts"]
        assert counts["playlists"] == 1 and counts["memories"] == 1 and counts["play_buckets"] == 1


async def test_a_play_alone_in_its_bucket_takes_the_bucket_with_it(settings: Settings) -> None:
    async with connected(settings) as call:
        await _seed(call, USER)
        await call.ok(
            "memory_log_plays",
            {"user_id": USER, "plays": [{"artist": "Lone | Pipe", "played_at": "2025-01-01T00:00:00Z"}]},
        )
        assert (await call.ok("memory_status", {"user_id": USER}))["counts"]["play_buckets"] == 2
        await call.ok(
            "memory_forget",
            {"user_id": USER, "kind": "play", "id": "lone | pipe||2025-01-01T00:00:00.000Z", "confirm": True},
        )
        assert (await call.ok("memory_status", {"user_id": USER}))["counts"]["play_buckets"] == 1
        await call.ok("memory_log_plays", {"user_id": USER, "plays": [{"artist": "Solo", "played_at": PLAYED_AT}]})
        await call.ok("memory_forget", {"user_id": USER, "kind": "play", "id": f"solo|{PLAYED_AT}", "confirm": True})
        await call.error(
            "memory_forget", {"user_id": USER, "kind": "play", "id": f"solo||{PLAYED_AT}", "confirm": True}, "NOT_FOUND"
        )
        kept = await call.service.database.user_stats.find_one({"_id": USER})
        assert kept["play_bucket_count"] == 1
