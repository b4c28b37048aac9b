"""What every section receives: the report to fill, the plan, a scratch directory, shared stores."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .plan import Plan
from .report import Report
from .stores import StoreCache


@dataclass
class Run:
    report: Report
    plan: Plan
    work: Path  # a temporary directory, removed when the run ends
    stores: StoreCache
