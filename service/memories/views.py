"""The public shapes of a stored memory: whole (``memory_add``) and as a query row."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from service.search.confidence import meaning_confidence
from service.timeutil import as_utc

DAY_SECONDS = 86_400.0


def days_between(earlier: datetime, later: datetime) -> int:
    """Whole days from ``earlier`` to ``later`` (0 on the same day or in the future)."""
    return max(0, math.floor((as_utc(later) - as_utc(earlier)).total_seconds() / DAY_SECONDS))


def _marked(doc: dict[str, Any]) -> dict[str, Any]:
    """Only a sensitive memory says so: every other row keeps the shape it always had."""
    return {"sensitive": True} if doc.get("sensitive") else {}


def memory_view(doc: dict[str, Any]) -> dict[str, Any]:
    return {
        "memory_id": doc["memory_id"],
        "type": doc["type"],
        "entities": list(doc["entities"]),
        "summary": doc["summary"],
        "importance": doc["importance"],
        "metadata": doc.get("metadata") or {},
        "timestamp": as_utc(doc["timestamp"]),
        "last_seen_at": as_utc(doc["last_seen_at"]),
        "seen_count": doc["seen_count"],
        "fuzzy": bool(doc.get("fuzzy")),
        "validated_at": as_utc(doc["validated_at"]) if doc.get("validated_at") else None,
    } | _marked(doc)


def query_row(doc: dict[str, Any], now: datetime, score: float, by_meaning: bool = False) -> dict[str, Any]:
    row = {
        "memory_id": doc["memory_id"],
        "timestamp": as_utc(doc["timestamp"]),
        "type": doc["type"],
        "entities": list(doc["entities"]),
        "summary": doc["summary"],
        "importance": doc["importance"],
        "days_ago": days_between(doc["timestamp"], now),
        "fuzzy": bool(doc.get("fuzzy")),
        "seen_count": doc["seen_count"],
        "metadata": doc.get("metadata") or {},
        "score": round(score, 3),
    } | _marked(doc)
    if by_meaning:  # none of the asked words is in it: found by what the text means
        row["matched_by"] = "meaning"
        row["confidence"] = meaning_confidence(score)
    return row
