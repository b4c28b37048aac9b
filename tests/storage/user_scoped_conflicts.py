"""Stated versus played in the user-scoped scenario: a dislike the plays contradict, listed and
settled, and another user's id for the same conflict answered as a missing one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.support.query_recorder import RecordingCaller


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


async def conflicts_scenario(call: RecordingCaller, user: int, other: int) -> None:
    now = datetime.now(UTC)
    said = {"artist": "Creed", "raw_text": "never Creed"}
    await call.ok(
        "memory_append_preference_event",
        {
            "user_id": user,
            "type": "dislike",
            "source": "user",
            "payload": said,
            "timestamp": _iso(now - timedelta(days=90)),
        },
    )
    plays = [{"artist": "Creed", "track": "Higher", "played_at": _iso(now - timedelta(days=d + 1))} for d in range(5)]
    await call.ok("memory_log_plays", {"user_id": user, "plays": plays})
    found = (await call.ok("memory_list_conflicts", {"user_id": user}))["conflicts"]
    assert [c["kind"] for c in found] == ["played_despite_dislike"], found
    assert (await call.ok("memory_list_conflicts", {"user_id": other}))["conflicts"] == []
    theirs = {"user_id": other, "conflict_id": found[0]["conflict_id"], "resolution": "dismiss"}
    await call.error("memory_resolve_conflict", theirs, "NOT_FOUND")
    settled = {"user_id": user, "conflict_id": found[0]["conflict_id"], "resolution": "keep_statement"}
    await call.ok("memory_resolve_conflict", settled)
    assert (await call.ok("memory_list_conflicts", {"user_id": user}))["conflicts"] == []
