"""Inputs the published schemas accept that end in INTERNAL, or in a non-RFC 3339 answer.

SPEC §5: input is validated server-side; a bad value is INVALID_ARGUMENT naming the field;
INTERNAL is for bugs. Each case below is schema-valid JSON an agent can send.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.support import connected, playlist, track

USER = 11


def _code(envelope: dict[str, Any]) -> str | None:
    return None if envelope["success"] else envelope["error"]["code"]


@pytest.mark.parametrize(
    "moment",
    ["0001-01-01T00:30:00+01:00", "9999-12-31T23:59:59-01:00"],
    ids=["before-year-1-in-utc", "after-year-9999-in-utc"],
)
async def test_timestamp_whose_utc_value_overflows_is_invalid_argument(settings: Any, moment: str) -> None:
    # timeutil.parse_iso: astimezone(utc) raises OverflowError; is_rfc3339 only catches
    # ValueError/TypeError, so the format checker lets OverflowError escape -> INTERNAL.
    async with connected(settings) as call:
        envelope = await call(
            "memory_append_preference_event",
            {"user_id": USER, "type": "note", "payload": {"raw_text": "x"}, "timestamp": moment},
        )
        assert _code(envelope) == "INVALID_ARGUMENT", envelope
        assert envelope["error"]["details"]["field"] == "timestamp"


async def test_year_before_1000_is_answered_as_rfc3339(settings: Any) -> None:
    # format_iso uses strftime("%Y"), which does not zero-pad years < 1000 on glibc:
    # the answer is "99-01-01T00:00:00.000Z", which is not RFC 3339 and which the importer's
    # parse_iso cannot read back.
    async with connected(settings) as call:
        result = await call.ok(
            "memory_append_preference_event",
            {"user_id": USER, "type": "note", "payload": {"raw_text": "x"}, "timestamp": "0099-01-01T00:00:00Z"},
        )
        assert result["timestamp"] == "0099-01-01T00:00:00.000Z"


@pytest.mark.parametrize("user_id", [2**63, 10**30], ids=["2^63", "10^30"])
async def test_user_id_beyond_bson_int64_is_invalid_argument(settings: Any, user_id: int) -> None:
    # The PRD schema has no maximum; BSON has no integer above 2^63-1, so bson raises
    # OverflowError (not a PyMongoError) in every write -> INTERNAL. Reads "succeed" on the
    # embedded engine (the _id fast path never encodes) but would raise on real MongoDB.
    async with connected(settings) as call:
        envelope = await call("memory_update_profile", {"user_id": user_id, "patch": {"a": 1}})
        assert _code(envelope) == "INVALID_ARGUMENT", envelope
        assert envelope["error"]["details"]["field"] == "user_id"
        envelope = await call(
            "memory_log_playlist_create",
            {"user_id": user_id, "playlist_id": playlist(1), "name": "p", "track_ids": [track(1)]},
        )
        assert _code(envelope) == "INVALID_ARGUMENT", envelope


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("memory_update_profile", {"user_id": USER, "patch": {"bad\u0000key": 1}}),
        ("memory_append_preference_event", {"user_id": USER, "type": "note", "payload": {"a\u0000b": "x"}}),
        (
            "memory_log_playlist_create",
            {
                "user_id": USER,
                "playlist_id": playlist(2),
                "name": "p",
                "track_ids": [track(1)],
                "seed_context": {"x\u0000": 1},
            },
        ),
    ],
    ids=["profile-patch", "preference-payload", "seed-context"],
)
async def test_nul_in_an_object_key_is_invalid_argument(settings: Any, tool: str, arguments: dict[str, Any]) -> None:
    # bson refuses NUL in field names (InvalidDocument, not a PyMongoError) -> INTERNAL.
    async with connected(settings) as call:
        envelope = await call(tool, arguments)
        assert _code(envelope) == "INVALID_ARGUMENT", envelope


def _cursor(body: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "body",
    [
        {"t": 4_000_000_000_000_000_000, "k": "zz", "n": 2},  # k not a piece key: list vs str compare
        {"t": 4_000_000_000_000_000_000, "k": [2, 5], "n": 2},  # int vs playlist id compare
        {"t": 10**30, "k": [0], "n": 2},  # as_of beyond datetime range
    ],
    ids=["key-is-a-string", "key-mixes-types", "moment-out-of-range"],
)
async def test_forged_export_cursor_is_invalid_argument(settings: Any, body: dict[str, Any]) -> None:
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": USER, "patch": {"a": 1}})
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": USER, "playlist_id": playlist(3), "name": "p", "track_ids": [track(1)]},
        )
        envelope = await call("memory_export_user_data", {"user_id": USER, "cursor": _cursor(body)})
        assert _code(envelope) == "INVALID_ARGUMENT", envelope


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("memory_update_profile", {"user_id": USER, "patch": {"plays": 2**64}}),
        ("memory_append_preference_event", {"user_id": USER, "type": "note", "payload": {"n": -(2**63) - 1}}),
    ],
    ids=["profile-patch", "preference-payload"],
)
async def test_integer_beyond_int64_in_an_object_is_invalid_argument(
    settings: Any, tool: str, arguments: dict[str, Any]
) -> None:
    # JSON has no integer bound, BSON stops at int64: OverflowError (not a PyMongoError) -> INTERNAL.
    async with connected(settings) as call:
        envelope = await call(tool, arguments)
        assert _code(envelope) == "INVALID_ARGUMENT", envelope
