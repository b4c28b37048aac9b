"""Reports over a user's history: rotation and recurring feedback."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ToolSpec


async def rotation_report(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.insights.rotation_report(a["user_id"], a.get("days", 30), a.get("limit", 50), a.get("cursor"))


async def feedback_summary(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.insights.feedback_summary(a["user_id"], a.get("limit", 20))


INSIGHT_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.rotation_report",
        "Rotation report (memory.rotation_report)",
        "Call for 'what's new in rotation vs my staples?' and before a v2 with 'more new tracks': over every logged "
        "playlist, tracks first seen within the last `days` (new) and staples (in 3 or more playlists now, or "
        "present 90 days or more), each with its playlists and name. totals count all.",
        rotation_report,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.feedback_summary",
        "Recurring feedback (memory.feedback_summary)",
        "Call for 'what do I keep telling you?' and before building a playlist: the user's rules, dislikes, feedback "
        "and profile changes grouped by what they are about (e.g. 'max: artist'), most repeated first, with counts, "
        "dates and examples. Apply the most repeated rules first.",
        feedback_summary,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
]
