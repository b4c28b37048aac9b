"""One section's candidates in block order, as ``render`` walks them: focus matches first (``matched``
of them), then the rest; by index, and "the first from here whose line fits this many tokens", so
filling the budget costs what the budget holds rather than what the section holds.

``ListOrder`` is a ranked list held whole (``rank.ordered``); ``service.context.merged`` gives the
same order over a section kept between calls without laying it out.
"""

from __future__ import annotations

from typing import Protocol

from service.context.candidates import Candidate
from service.context.quoting import line_tokens

Scored = tuple[float, Candidate]


class Order(Protocol):
    matched: int  # the first ``matched`` items match the focus (score > 0); the rest do not

    def __len__(self) -> int: ...

    def item(self, index: int) -> Scored: ...

    def first_fitting(self, start: int, end: int, room: int) -> int | None:
        """The first index in [start, end) whose line costs at most ``room`` tokens; None: none."""
        ...


class ListOrder:
    def __init__(self, ranked: list[Scored]) -> None:
        self._ranked = ranked
        self._costs = [line_tokens(c.line) for _, c in ranked]
        self.matched = sum(1 for score, _ in ranked if score > 0)

    def __len__(self) -> int:
        return len(self._ranked)

    def item(self, index: int) -> Scored:
        return self._ranked[index]

    def first_fitting(self, start: int, end: int, room: int) -> int | None:
        costs = self._costs
        for index in range(start, end):
            if costs[index] <= room:
                return index
        return None
