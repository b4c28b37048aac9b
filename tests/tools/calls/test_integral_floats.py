"""Integral floats (``1.0``) pass the schema (JSON Schema's "integer" accepts them) and are used as floats.

Numeric queries (``{"user_id": 1}``) match it, but the deterministic string ids do not
(``"1.0:<playlist>"`` vs ``"1:<playlist>"``), so the same user ends up with a playlist that
get_playlists lists but get_playlist / mutations / creation cannot reach. ops.list_users also
answers ``user_id: 1.0``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import connected, playlist, track


async def test_integral_float_user_id_is_the_same_user(settings: Any) -> None:
    pid = playlist(1)
    async with connected(settings) as call:
        created = await call(
            "memory_log_playlist_create", {"user_id": 1.0, "playlist_id": pid, "name": "p", "track_ids": [track(1)]}
        )
        if not created["success"]:  # refusing 1.0 outright is an acceptable fix
            assert created["error"]["code"] == "INVALID_ARGUMENT"
            return
        listed = await call.ok("memory_get_playlists", {"user_id": 1})
        assert [i["playlist_id"] for i in listed["items"]] == [pid]
        # Listed for user 1, so it must be readable and mutable as user 1.
        await call.ok("memory_get_playlist", {"user_id": 1, "playlist_id": pid})
        await call.ok(
            "memory_log_playlist_mutation",
            {"user_id": 1, "playlist_id": pid, "type": "ADD_TRACKS", "payload": {"track_ids": [track(2)]}},
        )
        users = await call.ok("ops_list_users", {})
        assert [type(u["user_id"]) for u in users["users"]] == [int]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("memory_get_playlists", {"user_id": 1, "limit": 1.0}),
        ("memory_get_playlist", {"user_id": 1, "playlist_id": playlist(1), "include_events_limit": 5.0}),
        ("ops_list_users", {"limit": 2.0}),
        (
            "memory_log_playlist_mutation",
            {
                "user_id": 1,
                "playlist_id": playlist(1),
                "type": "ADD_TRACKS",
                "payload": {"track_ids": [track(3)], "insert_at": 1.0},
            },
        ),
    ],
    ids=["get_playlists-limit", "get_playlist-include_events_limit", "list_users-limit", "mutation-insert_at"],
)
async def test_integral_float_for_an_integer_field_is_not_internal(
    settings: Any, tool: str, arguments: dict[str, Any]
) -> None:
    # JSON Schema's "integer" accepts 1.0; the value reaches list slicing as a float -> TypeError
    # -> INTERNAL. Either treat it as the integer or answer INVALID_ARGUMENT.
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": playlist(1), "name": "p", "track_ids": [track(1), track(2)]},
        )
        envelope = await call(tool, arguments)
        assert envelope["success"] or envelope["error"]["code"] == "INVALID_ARGUMENT", envelope
