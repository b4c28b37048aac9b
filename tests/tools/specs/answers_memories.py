"""PRD-valid results of the memory and control tools with a described array, their lists ``rows``
long (the other tools' are in ``answers``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from tests.tools.specs.answers import ISO, MEMORY_ID

# A PRD-valid result of each memory and control tool with a described array, its lists `rows` long.
MEMORY_ANSWERS: dict[str, Callable[[int], dict[str, Any]]] = {
    "memory.add": lambda rows: {
        "user_id": 1,
        "memory_id": MEMORY_ID,
        "deduplicated": False,
        "memory": {
            "memory_id": MEMORY_ID,
            "type": "insight",
            "entities": [f"e{i}" for i in range(rows)],
            "summary": "s",
            "importance": 8,
            "metadata": {},
            "timestamp": ISO,
            "last_seen_at": ISO,
            "seen_count": 1,
            "fuzzy": False,
            "validated_at": None,
        },
    },
    "memory.query": lambda rows: {
        "user_id": 1,
        "memories": [
            {
                "memory_id": MEMORY_ID,
                "timestamp": ISO,
                "type": "event",
                "entities": ["e"],
                "summary": "s",
                "importance": 7,
                "days_ago": i,
                "fuzzy": False,
                "seen_count": 1,
                "metadata": {},
                "score": 1.0,
            }
            for i in range(rows)
        ],
    },
    "memory.validate_recommendation": lambda rows: {
        "user_id": 1,
        "memory_id": MEMORY_ID,
        "recommendation": {
            "entities": [f"e{i}" for i in range(rows)],
            "summary": "s",
            "recommended_at": ISO,
            "days_since": 3,
            "check_after_days": 7,
        },
        "validation": {
            "plays_since_rec": rows,
            "plays_before_rec": 0,
            "user_heard_before": False,
            "first_play_after": ISO,
            "matched_on": "work",
            "plays_logged": True,
        },
        "follow_up_suggestion": "f",
    },
    "memory.open_followups": lambda rows: {
        "user_id": 1,
        "total": rows,
        "followups": [
            {
                "memory_id": MEMORY_ID,
                "entities": ["e"],
                "summary": "s",
                "recommended_at": ISO,
                "days_since": 9,
                "check_after_days": 7,
                "due_at": ISO,
            }
            for _ in range(rows)
        ],
    },
    "memory.get_context": lambda rows: {
        "user_id": 1,
        "block": "b",
        "tokens": 30,
        "diagnostics": {
            "estimator": "e",
            "budget_tokens": 4000,
            "focus_matches": 0,
            "sections": [
                {"section": s, "kept": rows, "dropped": rows, "tokens": rows}
                for s in ("prefer", "avoid", "rules", "playlists", "followups")
            ],
            "kept": [
                {"section": "prefer", "kind": "profile_field", "id": f"/likes/{i}", "reason": "ranked"}
                for i in range(rows)
            ],
            "dropped": [
                {
                    "section": "avoid",
                    "kind": "preference_event",
                    "id": str(uuid.UUID(int=i + 1)),
                    "reason": "superseded",
                    "superseded_by": str(uuid.UUID(int=i + 2)),
                }
                for i in range(rows)
            ],
            "unlisted": {"kept": 0, "dropped": 0},
        },
    },
    "memory.record_choice": lambda rows: {
        "event_id": str(uuid.UUID(int=1)),
        "user_id": 1,
        "timestamp": ISO,
        "type": "feedback",
        "source": "user",
        "payload": {
            "choice": {
                "kind": "artist",
                "chose": {"name": "a"},
                "over": {"id": "b"},
                "dimensions": [f"d{i}" for i in range(rows)],
            },
            "raw_text": "r",
            "context": "c",
        },
    },
    "memory.list_conflicts": lambda rows: {
        "user_id": 1,
        "as_of": ISO,
        "conflicts": [
            {
                "conflict_id": f"cf_{i}",
                "kind": "played_despite_dislike",
                "subject": {"artist": "a"},
                "stated": {"event_ids": [str(uuid.UUID(int=i + 1))], "text": "t", "at": ISO},
                "played": {"count": 5, "days": 30, "examples": [{"artist": "a", "track": None, "played_at": ISO}]},
                "detected_at": ISO,
            }
            for i in range(rows)
        ],
        "total": rows,
        "next_cursor": None,
    },
    "memory.explain": lambda rows: {
        "user_id": 1,
        "path": "/likes/0",
        "value": "a",
        "history_complete": True,
        "truncated": False,
        "set_by_count": min(rows, 50),
        "evidence_count": min(rows, 50),
        "next_cursor": None,
        "set_by": [
            {"version": i + 1, "applied_at": ISO, "source": "user", "reason": "r", "path": "/likes", "value": "a"}
            for i in range(rows)
        ],
        "evidence": [
            {
                "kind": "preference_event",
                "id": str(uuid.UUID(int=i + 1)),
                "timestamp": ISO,
                "type": "like",
                "source": "user",
                "raw_text": "r",
                "superseded_by": str(uuid.UUID(int=i + 2)),
            }
            for i in range(rows)
        ],
    },
    "memory.inspect": lambda rows: {
        "out_of_sight": {
            "memories": [
                {
                    "memory_id": MEMORY_ID,
                    "timestamp": ISO,
                    "type": "insight",
                    "entities": ["e"],
                    "summary": "s",
                    "importance": 9,
                    "days_ago": i,
                    "fuzzy": False,
                    "seen_count": 1,
                    "metadata": {},
                    "score": 1.0,
                    "sensitive": True,
                }
                for i in range(min(rows, 20))
            ],
            "memory_count": rows,
            "events": [
                {
                    "event_id": str(i),
                    "type": "like",
                    "subjects": ["s"],
                    "said": None,
                    "source": "user",
                    "timestamp": ISO,
                }
                for i in range(min(rows, 20))
            ],
            "event_count": rows,
            "fields": [f"/f/{i}" for i in range(min(rows, 20))],
            "field_count": rows,
        },
        "user_id": 1,
        "enabled": True,
        "paused_until": None,
        "unlisted_fields": 0,
        "field_count": rows,
        "next_cursor": None,
        "history_complete": True,
        "hidden": None,
        "counts": {
            "preference_events": rows,
            "playlists": 0,
            "tracks": 0,
            "memories": 0,
            "play_buckets": 0,
            "plays": 0,
            "skips": 0,
            "aging_records": 0,
            "profile_version": rows,
        },
        "last_context": {
            "served_at": ISO,
            "budget_tokens": 500,
            "focus": None,
            "block": "b",
            "tokens": 30,
            "diagnostics": {
                "estimator": "e",
                "budget_tokens": 500,
                "focus_matches": 0,
                "sections": [
                    {"section": s, "kept": rows, "dropped": 0, "tokens": rows}
                    for s in ("prefer", "avoid", "rules", "playlists", "followups")
                ],
                "kept": [
                    {"section": "prefer", "kind": "profile_field", "id": f"/likes/{i}", "reason": "ranked"}
                    for i in range(rows)
                ],
                "dropped": [],
                "unlisted": {"kept": 0, "dropped": 0},
            },
        },
        "profile_fields": [
            {
                "path": f"/likes/{i}",
                "value": "a",
                "set_by_count": 1,
                "evidence_count": 1,
                "set_by": [{"version": 1, "applied_at": ISO, "source": "user", "reason": None}],
                "evidence": [{"id": str(uuid.UUID(int=i + 1)), "type": "like", "timestamp": ISO}],
            }
            for i in range(min(rows, 200))
        ],
    },
    "memory.feedback_summary": lambda rows: {
        "as_of": ISO,
        "truncated": False,
        "totals": {"preference_events": 2 * rows, "profile_patches": 0, "groups": rows, "recurring_groups": rows},
        "groups": [
            {
                "key": f"max: artist{i}",
                "basis": "same_words",
                "count": 2,
                "types": {"rule": 2},
                "first_seen": ISO,
                "last_seen": ISO,
                "label": "max two songs per artist",
                "subjects": [],
                "examples": [
                    {
                        "source": "preference_event",
                        "event_id": str(uuid.UUID(int=i + 1)),
                        "type": "rule",
                        "at": ISO,
                        "text": "no more than 2 per artist",
                    }
                ],
            }
            for i in range(rows)
        ],
    },
    "memory.enable_toolsets": lambda rows: {
        "enabled": [f"toolset{i}" for i in range(rows)],
        "added": [f"memory_tool{i}" for i in range(rows)],
    },
}
