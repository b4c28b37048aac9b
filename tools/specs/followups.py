"""Recommendation follow-up: play history, validation of a recommendation against it, and the
recommendations due for a check."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ENVELOPE, ToolSpec


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
        "Whenever you read the user's listening history (scrobbles, recently played, what is playing now), "
        "log it here so recommendations can be checked later: each play's artist and played_at (RFC 3339), "
        "plus track, album and track_id when known; at most 1,000 per call, in any order. Overlapping reads "
        "are safe: the same (artist, track, played_at) is stored once (case, accents and a leading 'the' "
        "aside), so resending a page or retrying a call stores nothing twice. Returns logged (stored now) and "
        "duplicates (already stored or repeated in the call)." + ENVELOPE,
        log_plays,
        read_only=False,
        destructive=False,
        idempotent=True,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.validate_recommendation",
        "Check a recommendation against plays (memory.validate_recommendation)",
        "When following up on a recommendation you made (memory_open_followups lists the due ones) or when "
        "the user mentions it: log their recent plays first (memory_log_plays), then call this with the "
        "recommendation's memory_id. Plays count when artist, album or track equals an entity of the "
        "recommendation (case, accents, 'the' aside); if the recommended album or track itself was ever "
        "played only its plays count (matched_on 'work'), else the artist's (matched_on 'artist'). Returns "
        "the recommendation (entities, summary, recommended_at, days_since, check_after_days), validation "
        "(plays_since_rec, plays_before_rec, user_heard_before, first_play_after, matched_on, plays_logged: "
        "false means there is no play data at all, so zero proves nothing) and follow_up_suggestion, an honest "
        "sentence from the numbers (never played, once, on repeat at 5 or more, already knew it, too early) "
        "to say or adapt. Marks the recommendation validated (the first time), which takes it off "
        "memory_open_followups. A memory that is not a recommendation is INVALID_ARGUMENT; an unknown id is "
        "NOT_FOUND." + ENVELOPE,
        validate_recommendation,
        read_only=False,
        destructive=False,
        idempotent=True,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.open_followups",
        "Recommendations due for a follow-up (memory.open_followups)",
        "At the start of a session, or when there is a natural moment to ask how a suggestion went: the "
        "recommendations whose check_after_days (metadata of memory_add, default 7) have passed and that "
        "were not validated yet, oldest first, at most limit (default 10, max 100), each with memory_id, "
        "entities, summary, recommended_at, days_since, check_after_days and due_at; total counts them all. "
        "Check each with memory_validate_recommendation before bringing it up. Nothing due is an empty list."
        + ENVELOPE,
        open_followups,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
]
