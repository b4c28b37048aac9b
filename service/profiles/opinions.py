"""Supersession: a newer like or dislike of the same subject supersedes the older one, which stays
in the history but leaves the context block. The subject of an event is the set of its payload's
``artist``, ``track_id``, ``album``, ``genre`` and ``subject`` values, folded as entities fold (a
track ID is an ID: compared as written); an event with none of them supersedes nothing. Readers
apply it at read time; the stored ``superseded_by`` marks (``supersession``) use the same function.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from service.text.entities import folded_entity
from service.text.sensitive import SUBJECT_FIELDS
from service.timeutil import as_utc


def _folded(name: str, value: Any) -> str:
    if not isinstance(value, str):
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return value.strip() if name == "track_id" else folded_entity(value)


def subject_of(payload: dict[str, Any]) -> tuple[tuple[str, str], ...] | None:
    found = tuple(
        (name, _folded(name, payload[name])) for name in SUBJECT_FIELDS if name in payload and payload[name] is not None
    )
    return found or None


def superseded(events: Sequence[dict[str, Any]]) -> dict[str, str]:
    """For each like/dislike event a newer one of the same subject supersedes: its id → the id of the
    next newer one. Order: timestamp, then the order of recording, then the id."""
    ordered = sorted(events, key=lambda e: (as_utc(e["timestamp"]), e.get("recorded_ns") or 0, str(e["_id"])))
    latest: dict[tuple[tuple[str, str], ...], str] = {}
    replaced: dict[str, str] = {}
    for event in reversed(ordered):  # newest first: each older one points at the one just after it
        subject = subject_of(event.get("payload") or {})
        if subject is None:
            continue
        if subject in latest:
            replaced[str(event["_id"])] = latest[subject]
        latest[subject] = str(event["_id"])
    return replaced
