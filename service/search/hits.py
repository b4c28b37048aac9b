"""A search hit as ``memory_search`` answers it (memory.search.result.json: ``results`` items):
a typed dict, so it stays a plain dict on the wire."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

# What is searchable: one entry per playlist, preference event, profile key, track and memory.
HitKind = Literal["playlist", "preference_event", "profile", "track", "memory"]


class SearchHit(TypedDict):
    kind: HitKind
    id: str
    score: float  # 0..1
    snippet: str
    # What tells hits apart (lean) or every stored field and the matched words (full); a hit found
    # by meaning alone carries matched_by: "meaning". Always given; optional in the published schema.
    metadata: NotRequired[dict[str, Any]]
