"""What every tool declaration carries: PRD name, title, model-facing description, hints, adapter."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService

Handler = Callable[[MemoryService, dict[str, Any], Principal], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class ToolSpec:
    prd_name: str
    title: str
    description: str
    handler: Handler
    read_only: bool
    destructive: bool
    idempotent: bool
    access: Access | None  # None: no user's data (the tool listing)
    # Subject to the user's switches (memory off / paused); the switch tools and deletion are not.
    gated: bool = True

    @property
    def control(self) -> bool:
        """Controls the memory rather than writing into it (an OAuth client needs memory:control):
        deleting, the switches (the writes the switches do not gate) and a wholesale replacement
        (destructive and not idempotent: an import)."""
        if self.access is Access.DELETE:
            return True
        return self.access is Access.WRITE and (not self.gated or (self.destructive and not self.idempotent))
