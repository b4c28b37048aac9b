"""A refused argument says the rule it broke with its limit or format, so one retry is enough:
the bound of a length, an example of a date-time, the arguments an unknown one could have been."""

from __future__ import annotations

from typing import Any

from service.settings import Settings
from tests.support import connected, playlist, track


async def refusal(call: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    envelope = await call(tool, arguments)
    assert not envelope["success"] and envelope["error"]["code"] == "INVALID_ARGUMENT", envelope
    error: dict[str, Any] = envelope["error"]
    return error


async def test_refusals_name_the_limit_the_format_and_the_allowed_names(settings: Settings) -> None:
    async with connected(settings) as call:
        short = await refusal(
            call,
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": "pl1", "name": "p", "track_ids": [track(1)]},
        )
        assert short["message"] == "invalid argument playlist_id: 'pl1' is too short (at least 10 characters)"
        assert (short["details"]["field"], short["details"]["rule"]) == ("playlist_id", "minLength")

        long_id = "x" * 500
        long = await refusal(
            call,
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": long_id, "name": "p", "track_ids": [track(1)]},
        )
        assert "is too long: 500 characters (at most 80)" in long["message"]
        assert len(long["message"]) < 120  # the value is quoted back cut short, not whole

        dated = await refusal(
            call,
            "memory_append_preference_event",
            {"user_id": 1, "type": "note", "source": "user", "payload": {}, "timestamp": "2026-03-01 18:00"},
        )
        assert dated["details"]["field"] == "timestamp"
        assert "expected RFC 3339 with a zone, e.g. 2026-03-01T18:00:00Z" in dated["message"]

        empty = await refusal(
            call, "memory_log_playlist_create", {"user_id": 1, "playlist_id": playlist(1), "name": "p", "track_ids": []}
        )
        assert empty["details"]["reason"] == "has 0 items, at least 1 needed"

        unknown = await refusal(call, "memory_get_profile", {"user_id": 1, "usr": 2})
        assert unknown["details"]["field"] == "usr"
        assert unknown["details"]["reason"] == "unknown argument 'usr'; the arguments here are: user_id"
