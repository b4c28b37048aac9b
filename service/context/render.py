"""The block within its budget, and the diagnostics that say what was kept and dropped and why.

Choosing: the sections take turns, one item each per round, so a long Prefer list cannot crowd
out Avoid; first every section's focus matches, then the rest. An item that does not fit is
dropped ("budget") and the turns go on, so one long item does not starve the shorter ones after
it. A section's header is paid with its first item; a section with nothing kept is not shown.
Writing: open marker, the sections in their fixed order, each item where its section's order puts
it, close marker. Nothing kept: one fixed line says so. The estimator is ``quoting``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.context.candidates import HEADERS, SECTIONS, Candidate
from service.context.quoting import CLOSE, ESTIMATOR, NOTHING, NOTHING_FITS, OPEN, estimate_tokens, line_tokens

LISTED = 100  # rows listed in diagnostics.kept and .dropped (counts per section cover all)
FRAME_TOKENS = line_tokens(OPEN) + line_tokens(CLOSE)
assert FRAME_TOKENS + max(line_tokens(NOTHING), line_tokens(NOTHING_FITS)) <= 50  # the smallest budget


def _turns(ranked: dict[str, list[tuple[float, Candidate]]]) -> list[tuple[str, int]]:
    """(section, index in its order), in the order items are offered to the budget."""
    turns: list[tuple[str, int]] = []
    for matching in (True, False):
        queues = {s: [i for i, (score, _) in enumerate(ranked[s]) if (score > 0) == matching] for s in SECTIONS}
        for round_ in range(max((len(q) for q in queues.values()), default=0)):
            turns += [(s, queues[s][round_]) for s in SECTIONS if round_ < len(queues[s])]
    return turns


def _row(c: Candidate, reason: str, **extra: Any) -> dict[str, Any]:
    return {"section": c.section, "kind": c.kind, "id": c.ref, "reason": reason, **extra}


def render(
    ranked: dict[str, list[tuple[float, Candidate]]],
    budget: int,
    superseded: Sequence[tuple[Candidate, str]],
    unclassified: Sequence[str],
) -> dict[str, Any]:
    """``{block, tokens, diagnostics}`` for candidates already ordered per section."""
    used = FRAME_TOKENS
    kept: dict[str, set[int]] = {s: set() for s in SECTIONS}
    over_budget: list[tuple[str, int]] = []
    for section, index in _turns(ranked):
        cost = line_tokens(ranked[section][index][1].line) + (0 if kept[section] else line_tokens(HEADERS[section]))
        if used + cost <= budget:
            kept[section].add(index)
            used += cost
        else:
            over_budget.append((section, index))
    lines = [OPEN]
    kept_rows: list[dict[str, Any]] = []
    for section in SECTIONS:
        if kept[section]:
            lines.append(HEADERS[section])
        for index in sorted(kept[section]):
            score, candidate = ranked[section][index]
            lines.append(candidate.line)
            kept_rows.append(_row(candidate, "focus" if score > 0 else "aged" if candidate.fuzzy else "ranked"))
    if len(lines) == 1:
        lines.append(NOTHING_FITS if over_budget else NOTHING)
    lines.append(CLOSE)
    block = "\n".join(lines) + "\n"
    dropped_rows = [
        _row(ranked[s][i][1], "budget") for s, i in sorted(over_budget, key=lambda t: (SECTIONS.index(t[0]), t[1]))
    ]
    dropped_rows += [_row(c, "superseded", superseded_by=by) for c, by in superseded]
    dropped_rows += [
        {"section": None, "kind": "profile_field", "id": p, "reason": "unclassified"} for p in unclassified
    ]
    counts = [
        {
            "section": s,
            "kept": len(kept[s]),
            "dropped": sum(1 for r in dropped_rows if r["section"] == s),
            "tokens": sum(line_tokens(ranked[s][i][1].line) for i in kept[s])
            + (line_tokens(HEADERS[s]) if kept[s] else 0),
        }
        for s in SECTIONS
    ]
    diagnostics = {
        "estimator": ESTIMATOR,
        "budget_tokens": budget,
        "focus_matches": sum(1 for s in SECTIONS for score, _ in ranked[s] if score > 0),
        "sections": counts,
        "kept": kept_rows[:LISTED],
        "dropped": dropped_rows[:LISTED],
        "unlisted": {"kept": max(0, len(kept_rows) - LISTED), "dropped": max(0, len(dropped_rows) - LISTED)},
    }
    return {"block": block, "tokens": estimate_tokens(block), "diagnostics": diagnostics}
