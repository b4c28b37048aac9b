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

    def check(self, key: str, per_minute: int | None = None) -> None:
        """Spend one call of ``key``'s budget or raise ``RateLimited`` with when to retry.
        ``per_minute`` is the token's own limit when it has one (0: none); its burst is six
        seconds of it, at least the server's burst, never more than the per-minute figure itself."""
        rate = self._rate if per_minute is None else per_minute / 60.0
        if rate <= 0:
            return
        burst = float(
            self._burst if per_minute is None else max(1, min(per_minute, max(self._burst, per_minute // 10)))
        )
        now = self._clock()
        tokens, at = self._buckets.get(key, (burst, now))
        tokens = min(burst, tokens + (now - at) * rate)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            wait = (1.0 - tokens) / rate
            retry_after = math.ceil(wait * 1000) / 1000
            raise RateLimited(f"too many calls for this token; retry after {retry_after:.3f} s", retry_after)
        self._buckets[key] = (tokens - 1.0, now)
