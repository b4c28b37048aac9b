"""Prometheus histograms read from a server's ``/metrics``: the difference between two scrapes
(so a figure covers one load window only) and percentiles estimated from the buckets."""

from __future__ import annotations

import math
import urllib.request
from dataclasses import dataclass, field

from prometheus_client.parser import text_string_to_metric_families


@dataclass
class Histogram:
    bounds: list[float] = field(default_factory=list)  # upper bounds, ascending, +Inf last
    cumulative: list[float] = field(default_factory=list)  # observations ≤ each bound
    total: float = 0.0  # sum of the observed values

    @property
    def count(self) -> float:
        return self.cumulative[-1] if self.cumulative else 0.0

    def minus(self, before: Histogram | None) -> Histogram:
        if before is None or before.bounds != self.bounds:
            return self
        return Histogram(
            list(self.bounds), [a - b for a, b in zip(self.cumulative, before.cumulative)], self.total - before.total
        )

    def plus(self, other: Histogram) -> Histogram:
        if not other.bounds:
            return self
        if not self.bounds:
            return other
        return Histogram(
            list(self.bounds), [a + b for a, b in zip(self.cumulative, other.cumulative)], self.total + other.total
        )

    def quantile(self, q: float) -> float | None:
        """As PromQL's histogram_quantile: linear within the bucket the rank falls in; a rank in the
        +Inf bucket is reported as the largest finite bound (a lower bound of the truth)."""
        if self.count <= 0:
            return None
        rank = q * self.count
        lower, below = 0.0, 0.0
        for bound, cumulative in zip(self.bounds, self.cumulative):
            if cumulative >= rank:
                if math.isinf(bound):
                    return lower
                inside = cumulative - below
                return lower + (bound - lower) * ((rank - below) / inside if inside else 1.0)
            lower, below = bound, cumulative
        return lower

    def max_bound(self) -> float | None:
        """Upper bound of the highest non-empty bucket (the exact maximum is not exported)."""
        below = 0.0
        highest = None
        for bound, cumulative in zip(self.bounds, self.cumulative):
            if cumulative > below:
                highest = bound
            below = cumulative
        return highest


def scrape(base_url: str, timeout: float = 10.0) -> str:
    with urllib.request.urlopen(f"{base_url}/metrics", timeout=timeout) as response:
        return response.read().decode()


def histograms(text: str, name: str) -> dict[tuple[tuple[str, str], ...], Histogram]:
    """Every series of histogram ``name`` in an exposition, keyed by its labels (``le`` aside)."""
    found: dict[tuple[tuple[str, str], ...], Histogram] = {}
    for family in text_string_to_metric_families(text):
        if family.name != name:
            continue
        for sample in family.samples:
            labels = tuple(sorted((k, v) for k, v in sample.labels.items() if k != "le"))
            series = found.setdefault(labels, Histogram())
            if sample.name == f"{name}_bucket":
                series.bounds.append(float(sample.labels["le"]))
                series.cumulative.append(sample.value)
            elif sample.name == f"{name}_sum":
                series.total = sample.value
    for series in found.values():  # expositions list buckets in order, but do not rely on it
        pairs = sorted(zip(series.bounds, series.cumulative))
        series.bounds, series.cumulative = [b for b, _ in pairs], [c for _, c in pairs]
    return found
