"""Keyword search over one user's playlists, preference events and profile.

A deliberately plain ranking: case- and accent-folded tokens, field weights (name > tags >
description > the rest), a prefix match counting half. It reads only the caller's documents.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from service.storage import Database

_TOKEN = re.compile(r"[a-z0-9]+")
_STOP = frozenset("a an and the of in on for to with my me i is it that this from by or at".split())


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(fold(text)) if t not in _STOP]


def flatten_text(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key).replace("_", " ")
            yield from flatten_text(item)
    elif isinstance(value, list):
        for item in value:
            yield from flatten_text(item)
    elif value is not None and not isinstance(value, bool):
        yield str(value)


@dataclass
class Candidate:
    kind: str
    id: str
    fields: list[tuple[float, str]]  # (weight, text)
    metadata: dict[str, Any]


def score(query_terms: list[str], candidate: Candidate) -> tuple[float, str]:
    total = 0.0
    best_field, best_weight = "", 0.0
    for term in query_terms:
        term_best = 0.0
        for weight, text in candidate.fields:
            field_tokens = tokens(text)
            if term in field_tokens:
                gain = weight
            elif len(term) >= 3 and any(t.startswith(term) for t in field_tokens):
                gain = weight / 2
            else:
                continue
            if gain > term_best:
                term_best = gain
            if gain > best_weight:
                best_field, best_weight = text, gain
        total += term_best
    return total / max(1, len(query_terms)), best_field


def snippet(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


async def _candidates(db: Database, user_id: int) -> list[Candidate]:
    found: list[Candidate] = []
    fields = {"playlist_id": 1, "name": 1, "description": 1, "intent_tags": 1, "seed_context": 1, "updated_at": 1}
    for head in await db.playlists.find({"user_id": user_id}, fields):
        found.append(
            Candidate(
                "playlist",
                head["playlist_id"],
                [(5.0, head["name"]), (3.0, " ".join(head.get("intent_tags") or [])),
                 (2.0, head.get("description") or ""), (1.0, " ".join(flatten_text(head.get("seed_context"))))],
                {"name": head["name"], "updated_at": head["updated_at"], "intent_tags": head.get("intent_tags") or []},
            )
        )
    for event in await db.preference_events.find({"user_id": user_id}):
        payload = event["payload"]
        raw = payload.get("raw_text") if isinstance(payload.get("raw_text"), str) else ""
        found.append(
            Candidate(
                "preference_event",
                event["_id"],
                [(3.0, raw), (1.5, " ".join(flatten_text(payload))), (1.0, event["type"])],
                {"type": event["type"], "source": event["source"], "timestamp": event["timestamp"]},
            )
        )
    profile = await db.profiles.find_one({"_id": user_id})
    if profile is not None:
        for key, value in profile["profile"].items():
            text = f"{key.replace('_', ' ')}: {' '.join(flatten_text(value))}"
            found.append(
                Candidate("profile", f"profile:{key}", [(2.0, text)], {"key": key, "version": profile["version"]})
            )
    return found


async def search(db: Database, user_id: int, query: str, limit: int) -> list[dict[str, Any]]:
    terms = tokens(query) or _TOKEN.findall(fold(query))
    if not terms:
        return []
    hits = []
    for candidate in await _candidates(db, user_id):
        value, best = score(terms, candidate)
        if value > 0:
            hits.append((value, candidate, best))
    hits.sort(key=lambda hit: -hit[0])
    return [
        {"kind": c.kind, "id": c.id, "score": round(value, 4), "snippet": snippet(best), "metadata": c.metadata}
        for value, c, best in hits[:limit]
    ]
