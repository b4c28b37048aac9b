"""Per-token rate limit: a token bucket per principal, refilled continuously."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from service.errors import RateLimited


class RateLimiter:
    def __init__(self, per_minute: int, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._rate = per_minute / 60.0  # tokens per second; 0 disables the limit
        self._burst = max(burst, 1)
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # principal -> (tokens, at)

    def check(self, key: str) -> None:
        """Spend one call of ``key``'s budget or raise ``RateLimited`` with when to retry."""
        if self._rate <= 0:
            return
        now = self._clock()
        tokens, at = self._buckets.get(key, (float(self._burst), now))
        tokens = min(float(self._burst), tokens + (now - at) * self._rate)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            wait = (1.0 - tokens) / self._rate
            retry_after = math.ceil(wait * 1000) / 1000
            raise RateLimited(
                f"too many calls for this token; retry after {retry_after:.3f} s",
                {"retry_after_s": retry_after},
            )
        self._buckets[key] = (tokens - 1.0, now)
