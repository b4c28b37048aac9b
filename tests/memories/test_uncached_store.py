"""The memory store as it runs on real MongoDB (no analysed copy kept between calls; the query's
filters and the deduplication key selected by the server) answers exactly as the embedded
engine's cached path does. Driven here on the embedded engine's storage, told it is MongoDB."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from service.memories.service import MemoryStore
from tests.support.backends import stores_on_both_paths

NOW = datetime.now(UTC)
STATEMENTS = [
    ("recommendation", ["The Zombies", "Odessey and Oracle"], "Recommended the baroque pop album", 8, 3),
    ("recommendation", ["zombies", "ODESSEY AND ORACLE"], "Baroque pop album recommended", 6, 2),
    ("feedback", ["The Zombies"], "Found the harmonies too sweet", 9, 20),
    ("insight", ["Mötley Crüe"], "Guilty pleasure: glam metal anthems", 5, 45),
    ("event", ["Zombies Tribute Band"], "Tribute concert on Friday", 7, 5),
]
QUERIES: list[dict[str, Any]] = [
    {},
    {"entity": "zombies"},
    {"entity": "motley crue", "since_days": 60},
    {"text": "baroque"},
    {"memory_type": "feedback"},
    {"importance_min": 7},
    {"since_days": 10},
    {"entity": "zombie", "importance_min": 8},
]


async def _answers(store: MemoryStore) -> tuple[list[bool], list[list[tuple[Any, ...]]]]:
    deduplicated = []
    for kind, entities, summary, importance, days in STATEMENTS:
        added = await store.add(1, kind, entities, summary, importance, None, NOW - timedelta(days=days), False)
        deduplicated.append(added["deduplicated"])
    rows = []
    for q in QUERIES:
        found = await store.query(
            1, q.get("entity"), q.get("text"), q.get("memory_type"), q.get("since_days"), q.get("importance_min"), 10
        )
        rows.append([(m["type"], m["summary"], m["seen_count"], m["score"]) for m in found["memories"]])
    return deduplicated, rows


async def test_the_uncached_path_answers_as_the_cached_one(tmp_path: Any) -> None:
    answers = [await _answers(store) async for _, _, _, store in stores_on_both_paths(tmp_path)]
    assert answers[0] == answers[1]
    assert answers[0][0] == [False, True, False, False, False]
    assert [len(rows) for rows in answers[0][1]] == [4, 3, 1, 1, 1, 3, 2, 2]
