"""The typed-memory part of the user-scoped-queries scenario: typed memories, plays and follow-ups,
along their main paths (a new memory, a restatement, every kind of query, plays across months
with duplicates, a validation, the open follow-ups, another user's memory refused), and aging of
the one user (the CLI's ``age --user-id``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.support import EnvelopeCaller


def _days_ago(days: int) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


async def memories_scenario(call: EnvelopeCaller, user: int, other: int) -> list[str]:
    """Drive the memory tools for ``user``; returns the user's memory ids (for aging and import checks)."""
    rec = {
        "user_id": user,
        "type": "recommendation",
        "entities": ["The Zombies", "Odessey and Oracle"],
        "summary": "Recommended the baroque pop album",
        "importance": 8,
        "metadata": {"check_after_days": 7},
        "timestamp": _days_ago(20),
    }
    first = await call.ok("memory_add", rec)
    await call.ok("memory_add", {**rec, "timestamp": _days_ago(19)})  # a restatement
    faded = await call.ok(
        "memory_add",
        {
            "user_id": user,
            "type": "insight",
            "entities": ["Svenson"],
            "summary": "Likes quiet Nordic jazz. Mostly late at night.",
            "importance": 6,
            "timestamp": _days_ago(45),
        },
    )
    gone = await call.ok(
        "memory_add",
        {
            "user_id": user,
            "type": "discussion",
            "entities": ["small talk"],
            "summary": "Chatted about the weather",
            "importance": 2,
            "timestamp": _days_ago(70),
        },
    )
    theirs = await call.ok("memory_add", {**rec, "user_id": other})
    for query in (
        {"entity": "zombies"},
        {"text": "baroque"},
        {"type": "insight", "since_days": 60},
        {"importance_min": 7, "limit": 3},
        {"entity": "zombeis", "text": "pop", "type": "recommendation"},
    ):
        await call.ok("memory_query", {"user_id": user, **query})
    plays = [
        {
            "artist": "The Zombies",
            "track": "Time of the Season",
            "album": "Odessey and Oracle",
            "played_at": _days_ago(d),
        }
        for d in (40, 10, 9, 3)
    ]
    await call.ok("memory_log_plays", {"user_id": user, "plays": plays})
    await call.ok("memory_log_plays", {"user_id": user, "plays": plays[:2]})  # duplicates
    await call.ok("memory_open_followups", {"user_id": user})
    await call.ok("memory_validate_recommendation", {"user_id": user, "memory_id": first["memory_id"]})
    await call.error("memory_validate_recommendation", {"user_id": user, "memory_id": theirs["memory_id"]}, "NOT_FOUND")
    await call.ok("memory_open_followups", {"user_id": user, "limit": 5})
    return [first["memory_id"], faded["memory_id"], gone["memory_id"]]


async def controls_scenario(call: EnvelopeCaller, user: int) -> None:
    """The switches: off (a write refused, a read answered as empty), on, paused, resumed."""
    await call.ok("memory_set_enabled", {"user_id": user, "enabled": False})
    await call.error(
        "memory_add",
        {"user_id": user, "type": "insight", "entities": ["x"], "summary": "y", "importance": 5},
        "CONFLICT",
    )
    await call.ok("memory_get_profile", {"user_id": user})
    await call.ok("memory_status", {"user_id": user})
    await call.ok("memory_set_enabled", {"user_id": user, "enabled": True})
    await call.ok("memory_pause", {"user_id": user, "until": "2099-01-01T00:00:00Z"})
    await call.error("memory_update_profile", {"user_id": user, "patch": {"x": 1}}, "CONFLICT")
    await call.ok("memory_pause", {"user_id": user, "until": None})
