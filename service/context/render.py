"""The block within its budget, and the diagnostics that say what was kept and dropped and why.

Choosing: the sections take turns, one item each per round, so a long Prefer list cannot crowd
out Avoid; first every section's focus matches, then the rest. An item that does not fit is
dropped ("budget") and the turns go on, so one long item does not starve the shorter ones after
it. A section's header is paid with its first item; a section with nothing kept is not shown.
Writing: open marker, the first line (the situation, when there is one and it fits), the sections in
their fixed order, each item where its section's order puts it, close marker. Nothing kept: one
fixed line says so. The estimator is ``quoting``'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.context.candidates import HEADERS, SECTIONS, Candidate
from service.context.order import Order
from service.context.quoting import CLOSE, ESTIMATOR, NOTHING, NOTHING_FITS, OPEN, estimate_tokens, line_tokens

LISTED = 100  # rows listed in diagnostics.kept and .dropped (counts per section cover all)
FRAME_TOKENS = line_tokens(OPEN) + line_tokens(CLOSE)
NOTHING_TOKENS = max(line_tokens(NOTHING), line_tokens(NOTHING_FITS))
assert FRAME_TOKENS + NOTHING_TOKENS <= 50  # the smallest budget


def _chosen(orders: Mapping[str, Order], budget: int, opening: str | None) -> tuple[dict[str, list[int]], int]:
    """The indexes kept per section, and the tokens used. The sections take turns (round by round,
    in section order; focus matches first, then the rest) and an item that does not fit is passed
    over; as nothing but a kept item changes what fits, the walk goes from one kept item straight to
    the next that fits (``Order.first_fitting``), never through the ones passed over."""
    used = FRAME_TOKENS + (line_tokens(opening) if opening is not None else 0)
    kept: dict[str, list[int]] = {s: [] for s in SECTIONS if s in orders}
    for matching in (True, False):
        spans = {s: (0, o.matched) if matching else (o.matched, len(o)) for s, o in orders.items()}
        at = (0, -1)  # the last turn taken: (round, section number); the next is after it
        nothing: dict[str, int] = {}  # per section, a room in which nothing from here fits
        while True:
            best: tuple[tuple[int, int], str, int] | None = None
            for number, section in enumerate(kept):
                first, end = spans[section]
                start = first + at[0] + (0 if number > at[1] else 1)
                room = budget - used - (0 if kept[section] else line_tokens(HEADERS[section]))
                if start >= end or room <= 0 or room <= nothing.get(section, 0):
                    continue
                index = orders[section].first_fitting(start, end, room)
                if index is None:
                    nothing[section] = room  # less room later finds nothing either
                elif best is None or (index - first, number) < best[0]:
                    best = ((index - first, number), section, index)
            if best is None:
                break
            at, section, index = best
            cost = line_tokens(orders[section].item(index)[1].line)
            used += cost + (0 if kept[section] else line_tokens(HEADERS[section]))
            kept[section].append(index)
    return kept, used


def _row(c: Candidate, reason: str, **extra: Any) -> dict[str, Any]:
    return {"section": c.section, "kind": c.kind, "id": c.ref, "reason": reason, **extra}


def _passed_over(orders: Mapping[str, Order], kept: dict[str, list[int]], limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` items left out for the budget, by section, then by place in it."""
    rows: list[dict[str, Any]] = []
    for section in kept:
        taken = set(kept[section])
        index = 0
        while len(rows) < limit and index < len(orders[section]):
            if index not in taken:
                rows.append(_row(orders[section].item(index)[1], "budget"))
            index += 1
    return rows


def render(
    orders: Mapping[str, Order],
    budget: int,
    superseded: Sequence[tuple[Candidate, str]],
    superseded_by_section: Mapping[str, int],
    unclassified: Sequence[str],
    opening: str | None = None,
) -> dict[str, Any]:
    """``{block, tokens, diagnostics}`` for candidates already ordered per section;
    ``superseded`` newest first (sliced, never walked whole), ``superseded_by_section`` its counts;
    ``opening`` a line to open the block with, left out when it would leave no room for the rest."""
    if opening is not None and FRAME_TOKENS + line_tokens(opening) + NOTHING_TOKENS > budget:
        opening = None
    kept, _ = _chosen(orders, budget, opening)
    over_budget = sum(len(orders[s]) - len(kept[s]) for s in kept)
    lines = [OPEN] + ([opening] if opening is not None else [])
    opened = len(lines)
    kept_rows: list[dict[str, Any]] = []
    for section in kept:
        if kept[section]:
            lines.append(HEADERS[section])
        for index in sorted(kept[section]):
            score, candidate = orders[section].item(index)
            lines.append(candidate.line)
            kept_rows.append(_row(candidate, "focus" if score > 0 else "aged" if candidate.fuzzy else "ranked"))
    if len(lines) == opened:
        lines.append(NOTHING_FITS if over_budget else NOTHING)
    lines.append(CLOSE)
    block = "\n".join(lines) + "\n"
    dropped_rows = _passed_over(orders, kept, LISTED)
    dropped_rows += [_row(c, "superseded", superseded_by=by) for c, by in superseded[: LISTED - len(dropped_rows)]]
    dropped_rows += [
        {"section": None, "kind": "profile_field", "id": p, "reason": "unclassified"}
        for p in unclassified[: LISTED - len(dropped_rows)]
    ]
    dropped_total = over_budget + len(superseded) + len(unclassified)
    counts = [
        {
            "section": s,
            "kept": len(kept[s]),
            "dropped": len(orders[s]) - len(kept[s]) + superseded_by_section.get(s, 0),
            "tokens": sum(line_tokens(orders[s].item(i)[1].line) for i in kept[s])
            + (line_tokens(HEADERS[s]) if kept[s] else 0),
        }
        for s in kept
    ]
    diagnostics = {
        "estimator": ESTIMATOR,
        "budget_tokens": budget,
        "focus_matches": sum(orders[s].matched for s in kept),
        "sections": counts,
        "kept": kept_rows[:LISTED],
        "dropped": dropped_rows[:LISTED],
        "unlisted": {"kept": max(0, len(kept_rows) - LISTED), "dropped": max(0, dropped_total - LISTED)},
    }
    return {"block": block, "tokens": estimate_tokens(block), "diagnostics": diagnostics}
