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
