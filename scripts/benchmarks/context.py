"""What every section receives: the report to fill, the plan, a scratch directory, shared stores."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .plan import Plan
from .processes import floor_sse
from .report import Report
from .stores import StoreCache


@dataclass
class Run:
    report: Report
    plan: Plan
    work: Path  # a temporary directory, removed when the run ends
    stores: StoreCache
    kept: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)  # closed when the run ends
    shared_floor: str | None = None

    @contextlib.contextmanager
    def floor_sse(self) -> Iterator[str]:
        """The floor server's SSE URL: a server started for this block, or with ``plan.share_floor``
        one started on first use and kept until the run ends (a start-up less in the quick run)."""
        if not self.plan.share_floor:
            with floor_sse(self.work) as url:
                yield url
            return
        if self.shared_floor is None:
            self.shared_floor = self.kept.enter_context(floor_sse(self.work))
        yield self.shared_floor
