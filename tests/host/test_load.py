"""Load on loopback: 32 concurrent SSE sessions of 8 users for 60 s, a mix of reads and writes
including exports and deletes, zero errors (a RATE_LIMITED answer is waited out as its
``retry_after_s`` says, then sent again), every acknowledged write present afterwards, also after a
restart, and the load really lasted (the window at least the configured length, every session
calling throughout it and making exports and deletes).

``TM_LOAD_SECONDS`` shortens (or lengthens) the load phase, ``TM_LOAD_SEED`` changes the seeded
mix. Each session's calls and checks: ``load_model`` (exports and deletes: ``load_exports``); the
end state against the union of the sessions' models: ``load_verify``.
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from service.auth.tokens import TokenStore
from service.settings import Settings
from tests.host.load_exports import scratch_user_of
from tests.host.load_model import SESSIONS, USERS, SessionModel, user_of
from tests.host.load_verify import SessionRun, TokenFor, acknowledged_writes, verify
from tests.support.mcp_sessions import sse_session
from tests.support.server_process import ServerProcess, running_server

SECONDS = float(os.environ.get("TM_LOAD_SECONDS", "60"))
SEED = int(os.environ.get("TM_LOAD_SEED", "20251122"))
SPARE = 120.0  # seconds past the load phase before a hung session fails the test instead of CI hanging
REPORTED_ERRORS = 5

WRITE_TOOLS = frozenset(
    {
        "memory_log_playlist_create",
        "memory_log_playlist_mutation",
        "memory_update_profile",
        "memory_append_preference_event",
        "memory_delete_user_data",
    }
)
# A session below this many calls per second of the window was starved, not loaded (a quiet
# 2-core machine gives each of the 32 sessions about 3 calls/s, a busy one about 1).
MIN_CALLS_PER_SESSION_SECOND = 0.25
MAX_BACKOFFS = 50  # RATE_LIMITED answers one call may wait out before that counts as an error

# A session here calls as fast as the machine answers (about 7-12 calls/s on 2 cores, more on a
# faster one); the limit is raised from 1,200/min so the test measures durability under load,
# not the limiter (tests/auth/test_auth_over_sse.py covers that).
RATE_LIMIT = {"MEMORY_RATE_LIMIT_PER_MINUTE": "6000", "MEMORY_RATE_LIMIT_BURST": "200"}


def user_tokens(token_file: Path) -> TokenFor:
    """A fresh user token per call, made with the token store the CLI uses (test_auth.py makes
    them with the CLI itself; 40 subprocesses would add a minute here)."""
    store = TokenStore(token_file)
    return lambda *user_ids: store.create("user", list(user_ids), label=f"load session of users {user_ids}")[0]


class CallFailed(Exception):
    """An envelope with success false."""


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # kind -> seconds
    reads: int = 0
    writes: int = 0
    tools: Counter[str] = field(default_factory=Counter)  # successful calls per tool
    backoffs: int = 0  # RATE_LIMITED answers waited out
    backoff_seconds: float = 0.0


class Timed:
    """The sessions' ``Call``: a tool through a ``WireCaller``, timed; RATE_LIMITED is waited out
    (``retry_after_s``) and the call sent again (the limiter refuses before anything is done);
    any other failed envelope raises, as does a timeout of the client."""

    def __init__(self, wire: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]], stats: Stats) -> None:
        self.wire = wire
        self.stats = stats
        self.calls = 0  # successful calls of this session
        self.last_call_end: float | None = None  # time.monotonic() of this session's latest answer

    async def __call__(self, kind: str, tool: str, arguments: dict[str, Any]) -> Any:
        for _ in range(MAX_BACKOFFS + 1):
            started = time.perf_counter()
            try:
                envelope = await self.wire(tool, arguments)
            except Exception as exc:  # a timeout, a dropped session: name the call that met it
                raise CallFailed(
                    f"{tool}({str(arguments)[:200]}) raised {type(exc).__name__}: {exc} after "
                    f"{time.perf_counter() - started:.1f} s"
                ) from exc
            error = envelope.get("error") or {}
            if envelope["success"] or error.get("code") != "RATE_LIMITED":
                break
            wait = float((error.get("details") or {}).get("retry_after_s") or 0.05)
            self.stats.backoffs += 1
            self.stats.backoff_seconds += wait
            await asyncio.sleep(wait)
        self.stats.latencies[kind].append(time.perf_counter() - started)
        self.last_call_end = time.monotonic()
        if not envelope["success"]:
            raise CallFailed(f"{tool}({str(arguments)[:300]}) -> {envelope.get('error')}")
        self.calls += 1
        self.stats.tools[tool] += 1
        if tool in WRITE_TOOLS:
            self.stats.writes += 1
        else:
            self.stats.reads += 1
        return envelope["result"]


@dataclass
class Window:
    start: float | None = None  # when all sessions were open and the load began


async def run_session(
    index: int,
    server: ServerProcess,
    token: str | None,
    barrier: asyncio.Barrier,
    window: Window,
    stats: Stats,
    errors: list[str],
) -> SessionRun:
    """One session: open, join the user's shared playlist, then the mix until the deadline.

    The first error ends the session: after an exception the outcome of its call is unknown, so
    the model could no longer say what must be stored."""
    model = SessionModel(index, random.Random(SEED * 1000 + index))
    run = SessionRun(model)
    waited = False
    call: Timed | None = None
    joined = 0
    try:
        run.token_id = token.split("_", 2)[1] if token else None
        async with sse_session(server, token=token) as wire:
            call = Timed(wire, stats)
            await model.join_shared(call)
            joined = call.calls
            waited = True
            await barrier.wait()  # the clock starts once all 32 are open, so all 60 s run at full concurrency
            window.start = window.start or time.monotonic()
            while time.monotonic() < window.start + SECONDS:
                await model.step(call)
    except Exception as exc:
        errors.append(f"session {index} (user {model.user}, step {model.steps}): {type(exc).__name__}: {exc}")
    finally:
        if not waited:
            await barrier.wait()  # release the others even though this one never opened
    if call is not None:
        run.calls, run.last_call_end = call.calls - joined, call.last_call_end
    return run


async def run_load(
    server: ServerProcess, token_for: TokenFor, stats: Stats, errors: list[str]
) -> tuple[list[SessionRun], float, float]:
    """All sessions at once; returns their runs, when the load began (time.monotonic()) and the
    wall time of the load phase."""
    barrier, window = asyncio.Barrier(SESSIONS), Window()
    # Made before any session opens: the token store writes its file synchronously (with fsync),
    # which would otherwise hold up this event loop while the first sessions are connecting.
    tokens = [token_for(user_of(i), scratch_user_of(i)) for i in range(SESSIONS)]
    async with asyncio.timeout(SECONDS + SPARE):
        runs = await asyncio.gather(
            *(run_session(i, server, tokens[i], barrier, window, stats, errors) for i in range(SESSIONS))
        )
    start = window.start or time.monotonic()
    return list(runs), start, time.monotonic() - start


def percentile(values: list[float], share: float) -> float:
    """Nearest rank, as scripts/bench.py reports."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def summary(stats: Stats, wall: float) -> str:
    total = stats.reads + stats.writes
    lines = [
        f"load: {SESSIONS} SSE sessions, {USERS} users, seed {SEED}, {wall:.1f} s: {total} calls "
        f"({total / wall:.0f} calls/s), {stats.reads} reads, {stats.writes} writes, "
        f"{stats.tools['memory_export_user_data']} export parts, {stats.tools['memory_delete_user_data']} deletes, "
        f"{stats.backoffs} RATE_LIMITED waited out ({stats.backoff_seconds:.1f} s)",
        f"  {'kind':<34}{'calls':>7}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}",
    ]
    for kind in sorted(stats.latencies):
        values = stats.latencies[kind]
        lines.append(
            f"  {kind:<34}{len(values):>7}{percentile(values, 0.5) * 1000:>9.1f}"
            f"{percentile(values, 0.95) * 1000:>9.1f}{max(values) * 1000:>9.1f}"
        )
    return "\n".join(lines)


def check_load_was_real(runs: list[SessionRun], start: float, wall: float, stats: Stats) -> None:
    """The window lasted SECONDS, every session called until its end at a real rate, and each
    made its exports and deletes (the counts come from successful envelopes only)."""
    assert wall >= SECONDS, f"the load phase lasted {wall:.1f} s, less than {SECONDS:.0f} s"
    floor = MIN_CALLS_PER_SESSION_SECOND * SECONDS
    starved = [(i, run.calls) for i, run in enumerate(runs) if run.calls < floor]
    assert not starved, f"sessions (index, calls) below {floor:.0f} calls in {SECONDS:.0f} s: {starved}"
    early = [i for i, run in enumerate(runs) if run.last_call_end is None or run.last_call_end < start + SECONDS]
    assert not early, f"sessions that stopped calling before the end of the window: {early}"
    assert stats.reads + stats.writes >= SESSIONS * floor
    assert sum(run.calls for run in runs) + SESSIONS == stats.reads + stats.writes  # + SESSIONS: the joins
    no_export = [i for i, run in enumerate(runs) if run.model.exports < 1]
    no_delete = [i for i, run in enumerate(runs) if run.model.scratch_cycles < 1]
    assert not no_export and not no_delete, f"sessions without an export {no_export}, without a delete {no_delete}"
    deletes = sum(run.model.scratch_cycles for run in runs)
    assert stats.tools["memory_delete_user_data"] == deletes
    # Each session export and each scratch cycle (two exports) took at least one part.
    assert stats.tools["memory_export_user_data"] >= sum(run.model.exports for run in runs) + 2 * deletes


@pytest.mark.slow
async def test_32_sessions_of_8_users_lose_nothing_and_fail_nothing(settings: Settings, tmp_path: Path) -> None:
    token_file = tmp_path / "tokens.json"
    token_for = user_tokens(token_file)
    operator, _ = TokenStore(token_file).create("operator", [], label="load verification")
    environment = {"MEMORY_TOKEN_FILE": str(token_file), **RATE_LIMIT}
    stats = Stats()
    errors: list[str] = []
    with running_server(settings, tmp_path, extra_env=environment) as server:
        runs, start, wall = await run_load(server, token_for, stats, errors)
        print(summary(stats, wall))
        print(
            f"  per session: {min(r.calls for r in runs)}-{max(r.calls for r in runs)} calls, "
            f"{sum(r.model.exports for r in runs)} exports of its own user, "
            f"{sum(r.model.scratch_cycles for r in runs)} scratch cycles (export, delete, export)"
        )
        assert not errors, f"{len(errors)} errors under load, the first {REPORTED_ERRORS}:\n" + "\n".join(
            errors[:REPORTED_ERRORS]
        )
        check_load_was_real(runs, start, wall, stats)
        live = await verify(server, token_for, operator, runs, settings)
    # Same data: acknowledged means durable.
    with running_server(settings, tmp_path, extra_env=environment) as server:
        restarted = await verify(server, token_for, operator, runs, settings)
    writes = acknowledged_writes([run.model for run in runs])
    print(f"verified {writes} acknowledged writes: {live:.1f} s live, {restarted:.1f} s after a restart")
