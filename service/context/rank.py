"""Supersession and order, both pure functions of what was gathered.

Supersession (issue 12, provenance): a newer like or dislike of the same subject supersedes the
older one, which stays in the history but leaves the block. The subject of an event is the set of
its payload's ``artist``, ``track_id``, ``album``, ``genre`` and ``subject`` values, folded as the
memories fold entities (case, accents, "the"; a track ID is an ID: compared as written); an event
with none of them has no subject and supersedes nothing. It is computed here at read time; the
stored ``superseded_by`` marks arrive with ``rederive``, which should use this same function.

Order within a section: what matches ``focus`` first (best match first), then importance, then
pairwise wins (a subject chosen over others ranks above plain likes of the same importance), then
newest, then the order of the source (a profile list's own order), then the line itself (not an
id: ids are random, and the same store must always give the same block).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from service.context.candidates import SUBJECT_FIELDS, Candidate
from service.memories.keys import folded_entity
from service.search.analysis import terms
from service.timeutil import as_utc


def _folded(name: str, value: Any) -> str:
    if not isinstance(value, str):
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return value.strip() if name == "track_id" else folded_entity(value)


def subject_of(payload: dict[str, Any]) -> tuple[tuple[str, str], ...] | None:
    found = tuple((name, _folded(name, payload[name])) for name in SUBJECT_FIELDS
                  if name in payload and payload[name] is not None)
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


def focus_score(focus_terms: frozenset[str], candidate: Candidate) -> float:
    """The share of the focus words the item holds (folded and stemmed as search does)."""
    if not focus_terms:
        return 0.0
    return len(focus_terms & candidate.words) / len(focus_terms)


def focus_terms_of(focus: str | None) -> frozenset[str]:
    return frozenset(terms(focus)) if focus else frozenset()


def ordered(candidates: Sequence[Candidate], focus_terms: frozenset[str]) -> list[tuple[float, Candidate]]:
    scored = [(round(focus_score(focus_terms, c), 3), c) for c in candidates]
    scored.sort(key=lambda s: (-s[0], -s[1].importance, -s[1].wins, s[1].fuzzy, -s[1].moment, s[1].position,
                               s[1].line, s[1].ref))
    return scored
