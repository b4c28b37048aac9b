"""Search's side of the stored documents: one weighted text index per collection (MongoDB allows
one), led by user_id so a ``$text`` query is always scoped to one user; the embedded engine ranks
with the same weights."""

from __future__ import annotations

from pymongo import ASCENDING, TEXT, IndexModel

# Search: one weighted text index per collection (MongoDB allows one), led by user_id so a
# ``$text`` query is always scoped to one user. The embedded engine ranks with the same weights.
PLAYLIST_TEXT_WEIGHTS: dict[str, int] = {
    "name": 10,
    "intent_tags": 6,
    "description": 4,
    # seed_context is free-form: its usual keys are indexed (the embedded engine reads all of it).
    **{
        f"seed_context.{key}": 2
        for key in (
            "artists",
            "artists.name",
            "seed_artists",
            "genres",
            "notes",
            "inspiration",
            "mood",
            "prompt",
            "query",
        )
    },
}


EVENT_TEXT_WEIGHTS: dict[str, int] = {"payload.raw_text": 4}  # every other string of the event: 1


TRACK_TEXT_WEIGHTS: dict[str, int] = {"name": 6, "artists": 4, "album": 2}


MEMORY_TEXT_WEIGHTS: dict[str, int] = {"entities": 6, "summary": 3}


TEXT_LANGUAGE = "english"


def text_index(fields: list[str], weights: dict[str, int], name: str) -> IndexModel:
    keys = [("user_id", ASCENDING)] + [(f, TEXT) for f in fields]
    return IndexModel(
        keys, weights=weights, default_language=TEXT_LANGUAGE, language_override="_text_language", name=name
    )
