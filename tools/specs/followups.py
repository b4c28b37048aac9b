"""Recommendation follow-up: play history, validation of a recommendation against it, and the
recommendations due for a check."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ToolSpec


async def log_plays(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.followups.log_plays(a["user_id"], a["plays"])


async def validate_recommendation(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.followups.validate_recommendation(a["user_id"], a["memory_id"])


async def open_followups(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.followups.open_followups(a["user_id"], a.get("limit", 10))


FOLLOWUP_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.log_plays",
        "Log what the listener played (memory.log_plays)",
        "Call whenever you read the user's listening history (recently played, scrobbles, now playing): logs the "
        "plays so recommendations can be checked later. Resending overlapping plays is safe: each play is stored "
        "once. Returns counts logged and duplicates.",
        log_plays,
        read_only=False,
        destructive=False,
        idempotent=True,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.validate_recommendation",
        "Check a recommendation against plays (memory.validate_recommendation)",
        "Call when following up on a recommendation (memory_open_followups lists due ones) or when the user mentions "
        "it, after logging recent plays with memory_log_plays: the plays before and after it and an honest "
        "follow_up_suggestion to say; plays_logged false means no play data, so zero proves nothing. Marks it "
        "validated.",
        validate_recommendation,
        read_only=False,
        destructive=False,
        idempotent=True,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.open_followups",
        "Recommendations due for a follow-up (memory.open_followups)",
        "Call when the context block shows open follow-ups, or at a natural moment to ask how a suggestion went: "
        "recommendations past their check_after_days and not yet validated, oldest first, with their ids. Check "
        "each with memory_validate_recommendation before bringing it up.",
        open_followups,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
]
