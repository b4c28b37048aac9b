"""What the load section reads from the server's ``/metrics``: its own tool-call latency and its
event-loop lag over one window (the difference of two scrapes)."""

from __future__ import annotations

import asyncio
import sys
import urllib.error

from .context import Run
from .load_mix import CATEGORIES, MIX, category
from .promstats import Histogram, histograms, scrape
from .report import ms

LAG = "taste_memory_event_loop_lag_seconds"
TOOL_LATENCY = "taste_memory_tool_call_seconds"
UNAVAILABLE = "unavailable: server exposes no event-loop lag"


async def metrics(base: str) -> str:
    """The exposition, or "" when /metrics does not answer (the rows then say unavailable)."""
    try:
        return await asyncio.to_thread(scrape, base)
    except (OSError, urllib.error.URLError) as exc:
        print(f"  (GET {base}/metrics failed: {exc})", file=sys.stderr, flush=True)
        return ""


def window(before: str, after: str, name: str) -> dict[tuple[tuple[str, str], ...], Histogram]:
    old = histograms(before, name)
    return {labels: series.minus(old.get(labels)) for labels, series in histograms(after, name).items()}


def server_side(before: str, after: str) -> dict[str, float]:
    """p95 (ms) of the server's own tool-call latency over the window, per kind of call and "all"."""
    merged: dict[str, Histogram] = {}
    for labels, series in window(before, after, TOOL_LATENCY).items():
        tool = dict(labels).get("tool", "").replace(".", "_")  # wire or dotted names alike
        if tool in dict(MIX):
            for kind in (category(tool), "all"):
                merged[kind] = merged.get(kind, Histogram()).plus(series)
    found = {kind: series.quantile(0.95) for kind, series in merged.items()}
    return {kind: value * 1000 for kind, value in found.items() if value is not None and kind in (*CATEGORIES, "all")}


def lag_rows(ctx: Run, windows: list[tuple[str, str, str]]) -> None:
    section = ctx.report.section(
        "lag",
        "Event-loop lag of the server during the load windows",
        ["event-loop lag", "samples", "mean ms", "p50 ms", "p99 ms", "max ≤ ms"],
        f"`{LAG}` read from `GET /metrics` just before and just after each window of the load table; the "
        "figures are of the difference (that window only). The server measures how late a periodic asyncio "
        "sleep wakes up; percentiles are interpolated within buckets, max is the upper bound of the highest "
        "non-empty bucket.",
    )
    for name, before, after in windows:
        label = "event-loop lag" if name == "load" else f"event-loop lag, {name}"
        lag = window(before, after, LAG)
        if not lag:
            ctx.report.texts[f"{name}.lag"] = UNAVAILABLE
            section.add(label, [UNAVAILABLE, "–", "–", "–", "–"])
            continue
        total = Histogram()
        for series in lag.values():
            total = total.plus(series)
        p50, p99, top = total.quantile(0.5), total.quantile(0.99), total.max_bound()
        mean = total.total / total.count if total.count else None
        for key, value in (("p50", p50), ("p99", p99), ("max", top)):
            if value is not None:
                ctx.report.values[f"{name}.lag.{key}"] = value * 1000
        figures = (mean, p50, p99, top)
        section.add(label, [f"{total.count:.0f}", *(ms(v * 1000 if v is not None else None) for v in figures)])
