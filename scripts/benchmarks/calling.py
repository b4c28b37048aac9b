"""Calling a tool through an MCP client, and timing sequential and concurrent calls."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.client.client import Client


class BenchError(RuntimeError):
    pass


Call = Callable[[str, dict[str, Any]], Awaitable[Any]]


def envelope_of(result: Any) -> Any:
    """The PRD envelope of a ``CallToolResult``: structured content, else the JSON of its text."""
    envelope = result.structured_content
    if envelope is None and result.content and getattr(result.content[0], "text", None):
        with contextlib.suppress(ValueError):
            return json.loads(result.content[0].text)
    return envelope


def client_caller(client: Client) -> Call:
    """A call that returns the envelope and raises ``BenchError`` on an error envelope: the
    sequential rows time only successful calls."""

    async def call(tool: str, arguments: dict[str, Any]) -> Any:
        result = await client.call_tool(tool, arguments)
        envelope = envelope_of(result)
        if result.is_error or (isinstance(envelope, dict) and envelope.get("success") is False):
            detail = envelope.get("error") if isinstance(envelope, dict) else result.content
            raise BenchError(f"{tool}({json.dumps(arguments)[:200]}) failed: {detail}")
        return envelope

    return call


async def timed(call: Callable[[int], Awaitable[Any]], n: int, warmup: int, budget: float | None = None) -> list[float]:
    """``warmup`` untimed calls, then ``n`` timed ones (ms); with a ``budget`` (seconds), stop early
    once it is spent and at least 10 calls are timed (slow rows of the full run), after at most 3
    warm-up calls."""
    if budget is not None:
        warmup = min(warmup, 3)
    for i in range(warmup):
        await call(i)
    samples: list[float] = []
    began = time.perf_counter()
    for i in range(warmup, warmup + n):
        start = time.perf_counter()
        await call(i)
        samples.append((time.perf_counter() - start) * 1000)
        if budget is not None and len(samples) >= 10 and time.perf_counter() - began > budget:
            break
    return samples


async def concurrent(
    callers: list[Call], make: Callable[[int, int], tuple[str, dict[str, Any]]], calls: int, warmup: int = 1
) -> tuple[float, list[float], list[str]]:
    """Every session makes ``warmup`` untimed calls together (i = -1, -2, ...), then ``calls`` calls;
    returns (successful calls/s, latencies, errors). A failed call under load is counted and
    reported, not fatal."""
    errors: list[str] = []

    async def attempt(s: int, i: int, call: Call) -> bool:
        try:
            await call(*make(s, i))
            return True
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {str(exc)[:300]}")
            return False

    for w in range(warmup):
        await asyncio.gather(*(attempt(s, -1 - w, c) for s, c in enumerate(callers)))
    errors.clear()
    latencies: list[float] = []

    async def session(s: int, call: Call) -> None:
        for i in range(calls):
            start = time.perf_counter()
            if await attempt(s, i, call):
                latencies.append((time.perf_counter() - start) * 1000)

    start = time.perf_counter()
    await asyncio.gather(*(session(s, c) for s, c in enumerate(callers)))
    wall = time.perf_counter() - start
    if errors:
        print(f"  ({len(errors)} failed calls under load, first: {errors[0]})", file=sys.stderr, flush=True)
    return len(latencies) / wall, latencies, errors


async def paired(
    call: Callable[[int], Awaitable[Any]], floor: Callable[[], Awaitable[Any]], n: int, warmup: int
) -> tuple[list[float], list[float]]:
    """Like ``timed``, with a trivial call right after each call (ms of both): a ratio between the
    two is then taken under the same conditions, on a machine whose load varies by the minute."""
    for i in range(warmup):
        await call(i)
        await floor()
    samples: list[float] = []
    floors: list[float] = []
    for i in range(warmup, warmup + n):
        start = time.perf_counter()
        await call(i)
        middle = time.perf_counter()
        await floor()
        samples.append((middle - start) * 1000)
        floors.append((time.perf_counter() - middle) * 1000)
    return samples, floors
