"""memory_inspect through the MCP tools: switches and counts, the last context block served with its
diagnostics (and when it goes), the profile fields with their provenance, the bounds that keep the
answer small, memory turned off, and isolation between users."""

from __future__ import annotations

from typing import Any

from service.control.inspect import LISTED_PER_FIELD, MAX_FIELDS, REASON_CHARS
from service.settings import Settings
from tests.support import Caller, connected
from tests.support.contract import assert_valid_success

ALICE, BOB = 1, 2


async def inspect(call: Caller, user_id: int = ALICE) -> dict[str, Any]:
    """The whole answer with ``detail: "full"``: every page's fields joined onto the first page."""
    arguments: dict[str, Any] = {"user_id": user_id, "detail": "full"}
    answer = assert_valid_success("memory.inspect", await call("memory_inspect", arguments))
    page = answer
    while page["next_cursor"] is not None:
        page = assert_valid_success(
            "memory.inspect", await call("memory_inspect", arguments | {"cursor": page["next_cursor"]})
        )
        answer["profile_fields"] += page["profile_fields"]
    return answer | {"next_cursor": None}


async def patch(call: Caller, patch: dict[str, Any], reason: str, user_id: int = ALICE) -> int:
    answer = await call.ok(
        "memory_update_profile",
        {"user_id": user_id, "patch": patch, "reason": reason, "source": "user", "create_if_missing": True},
    )
    return answer["version"]


async def like(call: Caller, payload: dict[str, Any], when: str, kind: str = "like", user_id: int = ALICE) -> str:
    answer = await call.ok(
        "memory_append_preference_event",
        {"user_id": user_id, "type": kind, "payload": payload, "source": "user", "timestamp": when},
    )
    return answer["event_id"]


def field(answer: dict[str, Any], path: str) -> dict[str, Any]:
    rows = [row for row in answer["profile_fields"] if row["path"] == path]
    assert len(rows) == 1, (path, [r["path"] for r in answer["profile_fields"]])
    return rows[0]


async def test_a_user_with_nothing_stored(settings: Settings) -> None:
    async with connected(settings) as call:
        answer = await inspect(call)
    assert answer == {
        "user_id": ALICE,
        "enabled": True,
        "paused_until": None,
        "counts": {
            "preference_events": 0,
            "playlists": 0,
            "tracks": 0,
            "memories": 0,
            "play_buckets": 0,
            "plays": 0,
            "skips": 0,
            "aging_records": 0,
            "profile_version": 0,
        },
        "last_context": None,
        "profile_fields": [],
        "field_count": 0,
        "unlisted_fields": 0,
        "next_cursor": None,
        "history_complete": True,
        "hidden": None,
        "out_of_sight": {
            "memories": [],
            "memory_count": 0,
            "events": [],
            "event_count": 0,
            "fields": [],
            "field_count": 0,
        },
    }


async def test_profile_fields_carry_the_patches_and_events_that_set_them(settings: Settings) -> None:
    async with connected(settings) as call:
        v1 = await patch(
            call, {"likes": {"artists": ["Nightwish", "Björk"]}, "rules": {"max_tracks_per_artist": 3}}, "first session"
        )
        v2 = await patch(call, {"rules": {"max_tracks_per_artist": 2}}, "said two is enough")
        about_bjork = await like(call, {"artist": "bjork", "raw_text": "love her"}, "2025-01-02T10:00:00Z")
        in_words = await like(call, {"raw_text": "Nightwish live was great"}, "2025-01-03T10:00:00Z")
        rule = await like(
            call, {"max_tracks_per_artist": 2, "raw_text": "two per artist"}, "2025-01-04T10:00:00Z", kind="rule"
        )
        await like(call, {"artist": "Someone Else"}, "2025-01-05T10:00:00Z")
        answer = await inspect(call)
        explained = await call.ok("memory_explain", {"user_id": ALICE, "path": "/likes/artists/1"})

    assert [r["path"] for r in answer["profile_fields"]] == [
        "/likes/artists/0",
        "/likes/artists/1",
        "/rules/max_tracks_per_artist",
    ]
    bjork = field(answer, "/likes/artists/1")
    assert bjork["value"] == "Björk"
    assert [(r["version"], r["reason"], r["source"]) for r in bjork["set_by"]] == [(v1, "first session", "user")]
    assert [e["id"] for e in bjork["evidence"]] == [about_bjork] and bjork["evidence_count"] == 1
    # The same evidence memory_explain gives for the field.
    assert [r["id"] for r in explained["evidence"] if r["kind"] == "preference_event"] == [about_bjork]
    assert [e["id"] for e in field(answer, "/likes/artists/0")["evidence"]] == [in_words]
    cap = field(answer, "/rules/max_tracks_per_artist")
    assert cap["value"] == 2
    assert [r["version"] for r in cap["set_by"]] == [v2, v1] and cap["set_by_count"] == 2  # newest first
    assert [e["id"] for e in cap["evidence"]] == [rule] and cap["evidence"][0]["type"] == "rule"
    assert answer["counts"]["preference_events"] == 4 and answer["counts"]["profile_version"] == v2
    assert answer["history_complete"] is True


async def test_the_last_context_block_served_is_shown_with_its_diagnostics(settings: Settings) -> None:
    async with connected(settings) as call:
        await patch(call, {"likes": {"artists": ["Nightwish"]}}, "start")
        assert (await inspect(call))["last_context"] is None
        first = await call.ok("memory_get_context", {"user_id": ALICE, "budget_tokens": 400})
        served = await call.ok("memory_get_context", {"user_id": ALICE, "budget_tokens": 300, "focus": "metal"})
        answer = await inspect(call)
        other = await inspect(call, BOB)
    last = answer["last_context"]
    assert first["block"] == served["block"]  # same store, same block: the second is the one kept
    assert {k: last[k] for k in ("block", "tokens", "diagnostics")} == {
        k: served[k] for k in ("block", "tokens", "diagnostics")
    }
    assert last["budget_tokens"] == 300 and last["focus"] == "metal" and last["served_at"]
    assert other["last_context"] is None  # Bob was never served a block


async def test_forget_import_and_delete_drop_the_last_block(settings: Settings) -> None:
    async with connected(settings) as call:
        event_id = await like(call, {"artist": "Secret Band"}, "2025-01-02T10:00:00Z")
        await call.ok("memory_get_context", {"user_id": ALICE, "budget_tokens": 400})
        assert "Secret Band" in (await inspect(call))["last_context"]["block"]
        await call.ok("memory_forget", {"user_id": ALICE, "kind": "preference_event", "id": event_id, "confirm": True})
        assert (await inspect(call))["last_context"] is None  # it held what was just forgotten

        await like(call, {"artist": "Another Band"}, "2025-01-03T10:00:00Z")
        await call.ok("memory_get_context", {"user_id": ALICE, "budget_tokens": 400})
        exported = await call.ok("memory_export_user_data", {"user_id": ALICE})
        await call.ok(
            "memory_import_user_data", {"user_id": ALICE, "data": exported["data"], "confirm": True, "replace": True}
        )
        assert (await inspect(call))["last_context"] is None

        await call.ok("memory_get_context", {"user_id": ALICE, "budget_tokens": 400})
        await call.ok("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
        assert (await inspect(call))["last_context"] is None


async def test_memory_off_shows_switches_and_counts_but_no_content(settings: Settings) -> None:
    async with connected(settings) as call:
        await patch(call, {"likes": {"artists": ["Nightwish"]}}, "start")
        await call.ok("memory_get_context", {"user_id": ALICE, "budget_tokens": 400})
        await call.ok("memory_set_enabled", {"user_id": ALICE, "enabled": False})
        off = await inspect(call)
        await call.ok("memory_set_enabled", {"user_id": ALICE, "enabled": True})
        on = await inspect(call)
    assert off["enabled"] is False and off["hidden"] == "memory_disabled"
    assert off["profile_fields"] == [] and off["last_context"] is None
    assert off["counts"]["profile_version"] == 1  # nothing is deleted: the counts say so
    assert on["hidden"] is None and [r["path"] for r in on["profile_fields"]] == ["/likes/artists/0"]
    assert on["last_context"] is not None  # turning memory back on brings it all back


async def test_pause_is_shown_and_reads_still_work(settings: Settings) -> None:
    async with connected(settings) as call:
        await patch(call, {"vibe": "dark"}, "start")
        await call.ok("memory_pause", {"user_id": ALICE, "until": "2999-01-01T00:00:00Z"})
        answer = await inspect(call)
    assert answer["paused_until"].startswith("2999-01-01") and answer["hidden"] is None
    assert [(r["path"], r["value"]) for r in answer["profile_fields"]] == [("/vibe", "dark")]


async def test_the_answer_stays_bounded_however_big_the_profile(settings: Settings) -> None:
    long_reason = "because " * 100
    async with connected(settings) as call:
        for round_ in range(LISTED_PER_FIELD + 2):
            await patch(call, {"tags": [f"t{i}-{round_}" for i in range(MAX_FIELDS + 10)], "keep": round_}, long_reason)
        answer = await inspect(call)
    assert len(answer["profile_fields"]) == MAX_FIELDS and answer["unlisted_fields"] == 11  # 210 tags + keep
    first = answer["profile_fields"][0]
    assert first["set_by_count"] == LISTED_PER_FIELD + 2 and len(first["set_by"]) == LISTED_PER_FIELD
    assert all(len(r["reason"]) == REASON_CHARS and r["reason"].endswith("…") for r in first["set_by"])


async def test_history_cap_is_reported(settings: Settings) -> None:
    capped = settings.model_copy(update={"profile_history_cap": 2})
    async with connected(capped) as call:
        for n in range(3):
            await patch(call, {"n": n}, f"round {n}")
        answer = await inspect(call)
    assert answer["history_complete"] is False
    assert [r["version"] for r in field(answer, "/n")["set_by"]] == [3, 2]


async def test_one_user_never_sees_another(settings: Settings) -> None:
    async with connected(settings) as call:
        await patch(call, {"likes": {"artists": ["Nightwish"]}}, "alice's")
        await like(call, {"artist": "Nightwish"}, "2025-01-02T10:00:00Z", user_id=BOB)
        await call.ok("memory_get_context", {"user_id": BOB, "budget_tokens": 400})
        alice = await inspect(call, ALICE)
        bob = await inspect(call, BOB)
    assert field(alice, "/likes/artists/0")["evidence"] == []  # Bob's like is not Alice's evidence
    assert alice["last_context"] is None and alice["counts"]["preference_events"] == 0
    assert bob["profile_fields"] == [] and bob["counts"]["preference_events"] == 1
