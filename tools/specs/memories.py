"""Typed memories: add (deduplicated) and query."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ENVELOPE, ToolSpec
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
        "Store what is worth remembering across sessions, and only that: a recommendation you made (importance "
        "8; put check_after_days in metadata to follow up with memory_validate_recommendation), strong negative "
        "feedback (9-10), core taste insights (8-9), upcoming events (7). Skip small talk, plain lookups and "
        "passing remarks. Importance: 10 critical (absolute rules, strong dislikes), 9 major insights / negative "
        "feedback, 8 recommendations / core preferences, 7 events / discovery gaps, 6 casual insights, 5 context "
        "(may age out), 3 ephemeral, 1 barely worth storing; under 8 fades with age (5-7 become a gist after 30 "
        "days, under 5 are forgotten after 60). Deduplicated: a memory of the same type about the same entities "
        "(case, accents and 'the' aside) from the last 30 days whose summary says much the same is updated "
        "instead (summary and metadata merged, importance the higher, seen_count + 1), and deduplicated is true; "
        "skip_dedup stores a new one anyway. Returns memory_id and the memory as stored." + ENVELOPE,
        add,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.query",
        "Recall memories (memory.query)",
        "Before recommending or when the user brings up an artist, album or topic: recall what you remember. "
        "entity matches names fuzzily ('zombies' finds 'The Zombies', typos tolerated); text matches words of "
        "the summaries; type, since_days and importance_min filter. Targeted, not a dump: at most limit (default "
        "10, max 50) memories ranked by match, then importance, then recency, each with memory_id, timestamp, "
        "days_ago, type, entities, summary, importance, seen_count, metadata, score, and fuzzy (aged to a gist: "
        "treat the details as half-remembered); rows found by meaning carry confidence (0-1; below 0.5 a guess). "
        "Nothing matching is an empty list." + ENVELOPE,
        query,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
]
