"""Load on loopback: 32 concurrent SSE sessions of 8 users for 60 s, a mix of reads and writes
including exports and deletes, zero errors (every envelope a success, no timeouts: a RATE_LIMITED
answer is waited out as its ``retry_after_s`` says, then the call is sent again), and every
acknowledged write present afterwards, also after a restart. The load really lasted: the window is
at least the configured length, every session called throughout it, and each made exports and
deletes.

``TM_LOAD_SECONDS`` shortens (or lengthens) the load phase for a quick local run; the session and
user counts are fixed. ``TM_LOAD_SEED`` changes the seeded mix. What each session does and checks
while the load runs is in ``load_model``; this module drives the sessions, prints the numbers and
verifies the end state against the union of the sessions' models.
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

from service.auth import TokenStore
from service.settings import Settings
from tests.e2e.load_model import (
    SESSIONS,
    USERS,
    SessionModel,
    apply,
    user_of,
    is_empty_export,
    scratch_user_of,
    shared_initial_tracks,
    shared_playlist_id,
)
from tests.e2e.server_process import ServerProcess, WireCaller, running_server, sse_session

SECONDS = float(os.environ.get("TM_LOAD_SECONDS", "60"))
SEED = int(os.environ.get("TM_LOAD_SEED", "20251122"))
SPARE = 120.0  # seconds past the load phase before a hung session fails the test instead of CI hanging
REPORTED_ERRORS = 5

WRITE_TOOLS = frozenset({"memory_log_playlist_create", "memory_log_playlist_mutation",
                         "memory_update_profile", "memory_append_preference_event", "memory_delete_user_data"})
# A session below this many calls per second of the window was starved, not loaded (a quiet
# 2-core machine gives each of the 32 sessions about 3 calls/s, a busy one about 1).
MIN_CALLS_PER_SESSION_SECOND = 0.25
MAX_BACKOFFS = 50  # RATE_LIMITED answers one call may wait out before that counts as an error
AUDIT_WAIT = 30.0  # seconds the MongoDB change-stream watcher gets to write the entries of the load

# The bearer token a session presents, for its user ids (its user and its scratch user). It is
# called once per session as it opens, and once per user for verification: every session is its
# own agent with its own user token, as in production (and the per-token rate limit applies to each).
TokenFor = Callable[..., str | None]
# A session here calls as fast as the machine answers (about 7-12 calls/s on 2 cores, more on a
# faster one); the limit is raised from 1,200/min so the test measures durability under load,
# not the limiter (tests/e2e/test_auth.py covers that).
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
                raise CallFailed(f"{tool}({str(arguments)[:200]}) raised {type(exc).__name__}: {exc} after "
                                 f"{time.perf_counter() - started:.1f} s") from exc
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


@dataclass
class SessionRun:
    model: SessionModel
    calls: int = 0  # successful calls during the load window (joining the shared playlist excluded)
    last_call_end: float | None = None
    token_id: str | None = None


async def run_session(index: int, server: ServerProcess, token: str | None, barrier: asyncio.Barrier,
                      window: Window, stats: Stats, errors: list[str]) -> SessionRun:
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


async def run_load(server: ServerProcess, token_for: TokenFor, stats: Stats,
                   errors: list[str]) -> tuple[list[SessionRun], float, float]:
    """All sessions at once; returns their runs, when the load began (time.monotonic()) and the
    wall time of the load phase."""
    barrier, window = asyncio.Barrier(SESSIONS), Window()
    # Made before any session opens: the token store writes its file synchronously (with fsync),
    # which would otherwise hold up this event loop while the first sessions are connecting.
    tokens = [token_for(user_of(i), scratch_user_of(i)) for i in range(SESSIONS)]
    async with asyncio.timeout(SECONDS + SPARE):
        runs = await asyncio.gather(*(run_session(i, server, tokens[i], barrier, window, stats, errors)
                                      for i in range(SESSIONS)))
    start = window.start or time.monotonic()
    return list(runs), start, time.monotonic() - start


def percentile(values: list[float], share: float) -> float:
    """Nearest rank, as scripts/bench.py reports."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def summary(stats: Stats, wall: float) -> str:
    total = stats.reads + stats.writes
    lines = [f"load: {SESSIONS} SSE sessions, {USERS} users, seed {SEED}, {wall:.1f} s: {total} calls "
             f"({total / wall:.0f} calls/s), {stats.reads} reads, {stats.writes} writes, "
             f"{stats.tools['memory_export_user_data']} export parts, {stats.tools['memory_delete_user_data']} deletes, "
             f"{stats.backoffs} RATE_LIMITED waited out ({stats.backoff_seconds:.1f} s)",
             f"  {'kind':<34}{'calls':>7}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}"]
    for kind in sorted(stats.latencies):
        values = stats.latencies[kind]
        lines.append(f"  {kind:<34}{len(values):>7}{percentile(values, 0.5) * 1000:>9.1f}"
                     f"{percentile(values, 0.95) * 1000:>9.1f}{max(values) * 1000:>9.1f}")
    return "\n".join(lines)


# --- verification: the union of the sessions' models is exactly what is stored --------------

def replay(stored: dict[str, Any], meta: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """Contents from the exported creation snapshot and events; every later snapshot must agree."""
    pid, events = stored["playlist_id"], stored["events"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1)), f"{pid}: event seq not contiguous"
    snapshots = {s["seq"]: s["track_ids"] for s in stored["snapshots"]}
    tracks = list(snapshots[0])
    for event in events:
        tracks, meta = apply(tracks, meta, event["type"], event["payload"])
        assert snapshots.get(event["seq"], tracks) == tracks, f"{pid}: snapshot at seq {event['seq']} differs"
    return tracks, meta


async def verify_user(call: WireCaller, user: int, models: list[SessionModel]) -> None:
    exported = await call.export(user)
    by_pid = {p["playlist_id"]: p for p in exported["playlists"]}
    owned = [plist for model in models for plist in model.owned]
    shared = shared_playlist_id(user)
    assert sorted(by_pid) == sorted([p.pid for p in owned] + [shared]), f"user {user}: stored playlists differ"
    listing = await call.ok("memory_get_playlists", {"user_id": user, "limit": 200})
    counts = {item["playlist_id"]: item.get("track_count") for item in listing["items"]}
    assert listing["next_cursor"] is None and sorted(counts) == sorted(by_pid), f"user {user}: listing differs"

    for plist in owned:
        stored = by_pid[plist.pid]
        assert [e["event_id"] for e in stored["events"]] == plist.event_ids, (
            f"{plist.pid}: exported events differ from the {len(plist.event_ids)} acknowledged, in order")
        assert stored["snapshots"][0]["snapshot_id"] == plist.snapshot_id
        initial = {k: plist.create_args[k] for k in ("name", "description", "intent_tags")}
        assert replay(stored, initial) == (plist.tracks, plist.meta), f"{plist.pid}: replayed export differs"
        rebuilt = await call.ok("memory_reconstruct_playlist", {"user_id": user, "playlist_id": plist.pid})
        assert rebuilt["track_ids"] == plist.tracks, f"{plist.pid}: reconstruct differs from the model"
        details = await call.ok("memory_get_playlist", {"user_id": user, "playlist_id": plist.pid})
        assert {k: details["playlist"].get(k, "") for k in initial} == plist.meta, f"{plist.pid}: metadata"
        latest = max(stored["snapshots"], key=lambda s: s["seq"])
        assert (details["latest_snapshot"]["snapshot_id"], details["latest_snapshot"]["track_ids"]) == (
            latest["snapshot_id"], latest["track_ids"]), f"{plist.pid}: get_playlist's latest snapshot"
        assert counts[plist.pid] == len(plist.tracks), f"{plist.pid}: track_count {counts[plist.pid]}"

    # The shared playlist: 4 sessions appended at once, so only the multiset and each session's
    # own order are known; track IDs are unique per append, so every instance can be accounted for.
    stored = by_pid[shared]
    acked = sorted(e for model in models for e in model.shared_event_ids)
    assert sorted(e["event_id"] for e in stored["events"]) == acked, f"{shared}: events differ from acknowledged"
    assert {m.shared_snapshot_id for m in models} == {stored["snapshots"][0]["snapshot_id"]}, (
        f"{shared}: the concurrent creations with one key did not all get the one stored result")
    rebuilt = (await call.ok("memory_reconstruct_playlist", {"user_id": user, "playlist_id": shared}))["track_ids"]
    initial_tracks = shared_initial_tracks(user)
    appended = [t for model in models for t in model.shared_appends]
    assert sorted(rebuilt) == sorted(initial_tracks + appended), (
        f"{shared}: {len(rebuilt)} tracks, expected {len(initial_tracks)} initial + {len(appended)} appended")
    assert rebuilt[:len(initial_tracks)] == initial_tracks
    for model in models:
        mine = set(model.shared_appends)
        assert [t for t in rebuilt if t in mine] == model.shared_appends, f"{shared}: {model.tag}'s order"
    assert replay(stored, {})[0] == rebuilt, f"{shared}: replayed export differs from reconstruct"
    assert counts[shared] == len(rebuilt), f"{shared}: track_count {counts[shared]} != {len(rebuilt)}"

    patches = sum(m.profile_patches for m in models)
    expected_profile: dict[str, Any] = {
        "load": {k: v for m in models for k, v in m.profile_keys.items()},
        "last": {m.tag: m.profile_last for m in models if m.profile_patches},
    } if patches else {}
    profile = await call.ok("memory_get_profile", {"user_id": user})
    shown_keys = set(profile["profile"].get("load", {}).items())
    expected_keys = set(expected_profile.get("load", {}).items())
    assert (profile["profile"], profile["version"]) == (expected_profile, patches), (
        f"user {user}: profile v{profile['version']} after {patches} acknowledged patches; 'load' entries "
        f"missing {sorted(expected_keys - shown_keys)[:5]}, unexpected {sorted(shown_keys - expected_keys)[:5]}")
    if patches:
        assert (exported["profile"]["profile"], exported["profile"]["version"]) == (expected_profile, patches)
    preferences = sorted(e for m in models for e in m.preference_ids)
    assert sorted(e["event_id"] for e in exported["preference_events"]) == preferences, (
        f"user {user}: {len(exported['preference_events'])} preference events stored, {len(preferences)} acknowledged")
    rows = {u["user_id"]: u for u in (await call.ok("ops_list_users", {}))["users"]}
    shown = tuple(rows[user][k] for k in ("profile_version", "playlist_count", "preference_event_count"))
    assert shown == (patches, len(owned) + 1, len(preferences)), f"user {user}: ops_list_users shows {shown}"


def acknowledged_writes(models: list[SessionModel]) -> int:
    # + 1: the shared playlist, created once for the 4 sessions that asked with one key.
    return 1 + sum(len(m.owned) + sum(len(p.event_ids) for p in m.owned) + len(m.shared_event_ids)
                   + m.profile_patches + len(m.preference_ids) for m in models)


async def audit_trail(call: WireCaller, user: int) -> list[dict[str, Any]]:
    """Every entry of the user's audit trail."""
    entries: list[dict[str, Any]] = []
    arguments: dict[str, Any] = {"user_id": user, "limit": 500}
    while True:
        page = await call.ok("ops_audit", arguments)
        entries += page["entries"]
        if page["next_cursor"] is None:
            return entries
        arguments = {"user_id": user, "limit": 500, "cursor": page["next_cursor"]}


async def settled_trail(call: WireCaller, user: int, settings: Settings,
                        done: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
    """The user's trail once ``done`` holds for it. The embedded engine writes an entry in the same
    unit of work as its change, so the first read is final; on MongoDB the change-stream watcher
    writes entries after the fact, so the trail is read again until ``done`` or AUDIT_WAIT."""
    deadline = time.monotonic() + (AUDIT_WAIT if settings.mongodb_uri else 0.0)
    while True:
        entries = await audit_trail(call, user)
        if done(entries) or time.monotonic() >= deadline:
            return entries
        await asyncio.sleep(0.25)


async def verify_scratch(call: WireCaller, run: SessionRun, settings: Settings, listed: set[int]) -> None:
    """A scratch user ends every cycle deleted: nothing exported, not listed, and its trail is one
    tombstone per delete, each naming the session's token."""
    user, cycles = run.model.scratch_user, run.model.scratch_cycles
    assert is_empty_export(await call.export(user)), f"scratch user {user}: data left after {cycles} deletes"
    assert user not in listed, f"scratch user {user}: listed by ops_list_users after its deletion"
    trail = await settled_trail(call, user, settings, lambda entries: len(entries) == cycles and all(
        e["operation"] == "delete_user_data" for e in entries))
    assert [(e["operation"], e["principal"]) for e in trail] == [("delete_user_data", run.token_id)] * cycles, (
        f"scratch user {user}: trail after {cycles} deletes: {[(e['operation'], e['principal']) for e in trail][:8]}")


async def verify(server: ServerProcess, token_for: TokenFor, operator: str, runs: list[SessionRun],
                 settings: Settings) -> float:
    """Every acknowledged write, user by user, each through a fresh session, exactly one audit
    entry per acknowledged write, and every scratch user empty; returns the seconds spent."""
    started = time.monotonic()
    models = [run.model for run in runs]
    for user in range(1, USERS + 1):
        mine = [m for m in models if m.user == user]
        async with sse_session(server, token=token_for(user)) as call:
            await verify_user(call, user, mine)
        expected = acknowledged_writes(mine)
        async with sse_session(server, token=operator) as call:
            trail = await settled_trail(call, user, settings, lambda entries: len(entries) >= expected)
        principals = {e["principal"] for e in trail}
        assert len(trail) == expected, f"user {user}: {len(trail)} audit entries for {expected} acknowledged writes"
        assert len(principals) >= len(mine) and None not in principals, principals
    async with sse_session(server, token=operator) as call:
        listed = {u["user_id"] for u in (await call.ok("ops_list_users", {"limit": 200}))["users"]}
        for run in runs:
            await verify_scratch(call, run, settings, listed)
    return time.monotonic() - started


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
        print(f"  per session: {min(r.calls for r in runs)}-{max(r.calls for r in runs)} calls, "
              f"{sum(r.model.exports for r in runs)} exports of its own user, "
              f"{sum(r.model.scratch_cycles for r in runs)} scratch cycles (export, delete, export)")
        assert not errors, f"{len(errors)} errors under load, the first {REPORTED_ERRORS}:\n" + "\n".join(
            errors[:REPORTED_ERRORS])
        check_load_was_real(runs, start, wall, stats)
        live = await verify(server, token_for, operator, runs, settings)
    # Same data: acknowledged means durable.
    with running_server(settings, tmp_path, extra_env=environment) as server:
        restarted = await verify(server, token_for, operator, runs, settings)
    writes = acknowledged_writes([run.model for run in runs])
    print(f"verified {writes} acknowledged writes: {live:.1f} s live, {restarted:.1f} s after a restart")
