"""Typed memories: add (deduplicated) and query."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ToolSpec
from tools.specs.prd import time_argument


async def add(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.memories.add(
        a["user_id"],
        a["type"],
        a["entities"],
        a["summary"],
        a["importance"],
        a.get("metadata"),
        time_argument(a, "timestamp"),
        a.get("skip_dedup", False),
        sensitive=a.get("sensitive", False),
    )


async def query(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.memories.query(
        a["user_id"],
        a.get("entity"),
        a.get("text"),
        a.get("type"),
        a.get("since_days"),
        a.get("importance_min"),
        a.get("limit", 10),
    )


MEMORY_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.add",
        "Remember something about the listener (memory.add)",
        "Call when something is worth remembering across sessions: a recommendation you made, strong negative "
        "feedback, a core taste insight, an upcoming event; skip small talk and lookups. A near-duplicate of a "
        "recent memory updates it instead (deduplicated: true). Returns memory_id and the memory as stored.",
        add,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.query",
        "Recall memories (memory.query)",
        "Call before recommending, or when the user brings up an artist, album or topic: the matching memories, "
        "ranked by match, importance and recency. fuzzy: true means aged to a gist, details half-remembered; a "
        "confidence below 0.5 is a guess. Nothing matching is an empty list.",
        query,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
]
