"""Real MongoDB: the ``$text`` query of a search, and its ``textScore`` turned into the 0..1 scale
the embedded engine answers with. Pure functions, so they are tested without a server."""

from __future__ import annotations

from typing import Any

from models.documents.text import TEXT_LANGUAGE
from service.search.fields import (
    MAX_WEIGHT,
    MEMORY_FIELDS,
    PLAYLIST_FIELDS,
    TRACK_FIELDS,
    Entry,
    event_entry,
    memory_entry,
    playlist_entry,
    track_entry,
)
from service.text.analysis import ParsedQuery

SCORE = {"$meta": "textScore"}


def search_string(parsed: ParsedQuery) -> str:
    """The ``$search`` string: folded words (MongoDB stems them itself), phrases quoted.

    Folded words carry no '-' or '"', so nothing the user typed becomes a negation."""
    quoted = [f'"{phrase}"' for phrase in parsed.raw_phrases]
    return " ".join(quoted + parsed.words)


def text_query(user_id: int, parsed: ParsedQuery, collection: str, limit: int) -> dict[str, Any]:
    """Arguments of ``find`` for one collection: filter, projection, sort and limit."""
    projection: dict[str, Any] = dict(
        {"playlists": PLAYLIST_FIELDS, "tracks": TRACK_FIELDS, "memories": MEMORY_FIELDS}.get(collection, {})
    )
    projection["score"] = SCORE
    return {
        "filter": {
            "user_id": user_id,
            "$text": {
                "$search": search_string(parsed),
                "$language": TEXT_LANGUAGE,
                "$caseSensitive": False,
                "$diacriticSensitive": False,
            },
        },
        "projection": projection,
        "sort": [("score", SCORE)],
        "limit": limit,
    }


def normalize(text_score: float, parsed: ParsedQuery) -> float:
    """``textScore`` sums, over the query's terms, field weight × a frequency/length factor (≈ 0.5
    to 1.1); dividing by the best one term can score, times the number of terms, gives 0..1."""
    if text_score <= 0 or parsed.empty:
        return 0.0
    return min(1.0, text_score / (MAX_WEIGHT * len(parsed.terms)))


def text_hits(documents: list[dict[str, Any]], collection: str, parsed: ParsedQuery) -> list[tuple[float, Entry]]:
    """Documents as ``find`` returns them with the ``score`` projection → (score, entry)."""
    build = {"playlists": playlist_entry, "tracks": track_entry, "memories": memory_entry}.get(collection, event_entry)
    hits = []
    for document in documents:
        body = {k: v for k, v in document.items() if k != "score"}
        hits.append((normalize(float(document.get("score", 0.0)), parsed), build(body)))
    return hits
