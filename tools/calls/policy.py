"""What every call passes before its work, configured once per transport: who is calling, how
often they may, where the call is metered, and who hears about a successful write."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from service.auth.ratelimit import RateLimiter
from service.facade import MemoryService
from tools.calls.identity import CallerIdentity, TrustedLocal

ServiceProvider = Callable[[], MemoryService]


class CallMetrics(Protocol):
    def observe(self, name: str, seconds: float, error_code: str | None) -> None:
        """One finished call: its latency, and its error code (None: it succeeded)."""


@dataclass(frozen=True)
class CallPolicy:
    identity: CallerIdentity = field(default_factory=TrustedLocal)
    limiter: RateLimiter | None = None
    metrics: CallMetrics | None = None
    # Told (tool, arguments) after each successful write, for resource subscribers; never raises.
    changed: Callable[[str, dict[str, Any]], Awaitable[None]] | None = None
