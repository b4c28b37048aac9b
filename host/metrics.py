"""Prometheus metrics: a latency histogram per tool, an error counter per tool and code, and the
event loop's lag. Labels name tools and codes only, never a user: ``/metrics`` is served without
auth."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

# Tool calls take from well under a millisecond (in process) to seconds (a large export).
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
LAG_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
CONTENT_TYPE = CONTENT_TYPE_LATEST


class ToolMetrics:
    """One registry per app, so several servers in one process (the tests) do not collide."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.latency = Histogram(
            "taste_memory_tool_call_seconds",
            "Tool call latency, validation to envelope.",
            ["tool"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.errors = Counter(
            "taste_memory_tool_errors",
            "Tool calls answered with an error envelope.",
            ["tool", "code"],
            registry=self.registry,
        )
        self.loop_lag = Histogram(
            "taste_memory_event_loop_lag_seconds",
            "How late a 25 ms periodic sleep woke up: time every session waited for the event loop.",
            buckets=LAG_BUCKETS,
            registry=self.registry,
        )

    def watch_store(self, health: Callable[[], dict[str, Any] | None]) -> None:
        """Export the store's health (``Database.health``), read at each scrape."""
        self.registry.register(_StoreHealth(health))

    def observe(self, tool: str, seconds: float, error_code: str | None) -> None:
        self.latency.labels(tool=tool).observe(seconds)
        if error_code is not None:
            self.errors.labels(tool=tool, code=error_code).inc()

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


class _StoreHealth(Collector):
    def __init__(self, health: Callable[[], dict[str, Any] | None]) -> None:
        self._health = health

    def collect(self) -> Iterator[Metric]:
        health = self._health() or {"degraded": None, "failed_commits": 0, "quarantined_users": []}
        yield CounterMetricFamily(
            "taste_memory_store_commit_failures",
            "Commits the store could not make durable (full disk, I/O error); each call's write was undone.",
            value=health["failed_commits"],
        )
        yield GaugeMetricFamily(
            "taste_memory_store_degraded",
            "1 while the last commit failed (readyz answers 503 degraded), else 0.",
            value=1 if health["degraded"] else 0,
        )
        yield GaugeMetricFamily(
            "taste_memory_quarantined_users",
            "Users whose stored records failed their checks: their calls are refused until salvaged.",
            value=len(health["quarantined_users"]),
        )
