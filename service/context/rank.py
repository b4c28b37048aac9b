"""Order within a section of the block, a pure function of what was gathered (supersession, which
drops an older opinion of the same subject, is ``service.profiles.opinions``).

Order within a section: what matches ``focus`` first (best match first), then importance, then
pairwise wins (a subject chosen over others ranks above plain likes of the same importance), then
newest, then the order of the source (a profile list's own order), then the line itself (not an
id: ids are random, and the same store must always give the same block).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.context.candidates import Candidate
from service.text.analysis import terms


def focus_score(focus_terms: frozenset[str], candidate: Candidate) -> float:
    """The share of the focus words the item holds (folded and stemmed as search does)."""
    if not focus_terms:
        return 0.0
    return len(focus_terms & candidate.words) / len(focus_terms)


def focus_terms_of(focus: str | None) -> frozenset[str]:
    return frozenset(terms(focus)) if focus else frozenset()


def rank_key(c: Candidate) -> tuple[Any, ...]:
    """A candidate's place in its section when focus does not decide (see the module's docstring)."""
    return (-c.importance, -c.wins, c.fuzzy, -c.moment, c.position, c.line, c.ref)


def ordered(candidates: Sequence[Candidate], focus_terms: frozenset[str]) -> list[tuple[float, Candidate]]:
    scored = [(round(focus_score(focus_terms, c), 3), c) for c in candidates]
    scored.sort(key=lambda s: (-s[0], *rank_key(s[1])))
    return scored
