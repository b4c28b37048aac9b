"""Load on loopback: 32 concurrent SSE sessions of 8 users for 60 s, a mix of reads and writes,
zero errors, and every acknowledged write present afterwards, also after a restart.

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
from collections import defaultdict
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
    shared_initial_tracks,
    shared_playlist_id,
)
from tests.e2e.server_process import ServerProcess, WireCaller, running_server, sse_session

SECONDS = float(os.environ.get("TM_LOAD_SECONDS", "60"))
SEED = int(os.environ.get("TM_LOAD_SEED", "20251122"))
SPARE = 120.0  # seconds past the load phase before a hung session fails the test instead of CI hanging
REPORTED_ERRORS = 5

WRITE_TOOLS = frozenset({"memory_log_playlist_create", "memory_log_playlist_mutation",
                         "memory_update_profile", "memory_append_preference_event"})

# The bearer token a session of ``user_id`` presents. It is called once per session as it opens,
# and once per user for verification: every session is its own agent with its own user token, as
# in production (and the per-token rate limit applies to each).
TokenFor = Callable[[int], str | None]
# A session here calls as fast as the machine answers (about 7-12 calls/s on 2 cores, more on a
# faster one); the limit is raised from 1,200/min so the test measures durability under load,
# not the limiter (tests/e2e/test_auth.py covers that).
RATE_LIMIT = {"MEMORY_RATE_LIMIT_PER_MINUTE": "6000", "MEMORY_RATE_LIMIT_BURST": "200"}


def user_tokens(token_file: Path) -> TokenFor:
    """A fresh user token per call, made with the token store the CLI uses (test_auth.py makes
    them with the CLI itself; 40 subprocesses would add a minute here)."""
    store = TokenStore(token_file)
    return lambda user_id: store.create("user", [user_id], label=f"load session of user {user_id}")[0]


class CallFailed(Exception):
    """An envelope with success false."""


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # kind -> seconds
    reads: int = 0
    writes: int = 0


class Timed:
    """The sessions' ``Call``: a tool through a ``WireCaller``, timed; a failed envelope raises."""

    def __init__(self, wire: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]], stats: Stats) -> None:
        self.wire = wire
        self.stats = stats

    async def __call__(self, kind: str, tool: str, arguments: dict[str, Any]) -> Any:
        started = time.perf_counter()
        envelope = await self.wire(tool, arguments)
        self.stats.latencies[kind].append(time.perf_counter() - started)
        if tool in WRITE_TOOLS:
            self.stats.writes += 1
        else:
            self.stats.reads += 1
        if not envelope["success"]:
            raise CallFailed(f"{tool}({str(arguments)[:300]}) -> {envelope.get('error')}")
        return envelope["result"]


@dataclass
class Window:
    start: float | None = None  # when all sessions were open and the load began


async def run_session(index: int, server: ServerProcess, token_for: TokenFor, barrier: asyncio.Barrier,
                      window: Window, stats: Stats, errors: list[str]) -> SessionModel:
    """One session: open, join the user's shared playlist, then the mix until the deadline.

    The first error ends the session: after an exception the outcome of its call is unknown, so
    the model could no longer say what must be stored."""
    model = SessionModel(index, random.Random(SEED * 1000 + index))
    waited = False
    try:
        async with sse_session(server, token=token_for(model.user)) as wire:
            call = Timed(wire, stats)
            await model.join_shared(call)
            waited = True
            await barrier.wait()  # the clock starts once all 32 are open, so all 60 s run at full concurrency
            window.start = window.start or time.monotonic()
            while time.monotonic() < window.start + SECONDS:
                await model.step(call)
    except Exception as exc:
        errors.append(f"session {index} (user {model.user}): {type(exc).__name__}: {exc}")
    finally:
        if not waited:
            await barrier.wait()  # release the others even though this one never opened
    return model


async def run_load(server: ServerProcess, token_for: TokenFor, stats: Stats,
                   errors: list[str]) -> tuple[list[SessionModel], float]:
    """All sessions at once; returns their models and the wall time of the load phase."""
    barrier, window = asyncio.Barrier(SESSIONS), Window()
    async with asyncio.timeout(SECONDS + SPARE):
        models = await asyncio.gather(*(run_session(i, server, token_for, barrier, window, stats, errors)
                                        for i in range(SESSIONS)))
    return list(models), time.monotonic() - (window.start or time.monotonic())


def percentile(values: list[float], share: float) -> float:
    """Nearest rank, as scripts/bench.py reports."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def summary(stats: Stats, wall: float) -> str:
    total = stats.reads + stats.writes
    lines = [f"load: {SESSIONS} SSE sessions, {USERS} users, seed {SEED}, {wall:.1f} s: {total} calls "
             f"({total / wall:.0f} calls/s), {stats.reads} reads, {stats.writes} writes",
             f"  {'kind':<34}{'calls':>7}{'p50 ms':>9}{'p95 ms':>9}"]
    for kind in sorted(stats.latencies):
        values = stats.latencies[kind]
        lines.append(f"  {kind:<34}{len(values):>7}{percentile(values, 0.5) * 1000:>9.1f}"
                     f"{percentile(values, 0.95) * 1000:>9.1f}")
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


async def audit_count(call: WireCaller, user: int) -> tuple[int, set[str]]:
    """(entries in the user's audit trail, the principals named in it)."""
    count, principals, arguments = 0, set(), {"user_id": user, "limit": 500}
    while True:
        page = await call.ok("ops_audit", arguments)
        count += len(page["entries"])
        principals |= {e["principal"] for e in page["entries"]}
        if page["next_cursor"] is None:
            return count, principals
        arguments = {"user_id": user, "limit": 500, "cursor": page["next_cursor"]}


async def verify(server: ServerProcess, token_for: TokenFor, operator: str, models: list[SessionModel]) -> float:
    """Every acknowledged write, user by user, each through a fresh session, and exactly one audit
    entry per acknowledged write; returns the seconds spent."""
    started = time.monotonic()
    for user in range(1, USERS + 1):
        mine = [m for m in models if m.user == user]
        async with sse_session(server, token=token_for(user)) as call:
            await verify_user(call, user, mine)
        async with sse_session(server, token=operator) as call:
            entries, principals = await audit_count(call, user)
        assert entries == acknowledged_writes(mine), f"user {user}: {entries} audit entries for " \
            f"{acknowledged_writes(mine)} acknowledged writes"
        assert len(principals) >= len(mine) and None not in principals, principals
    return time.monotonic() - started


@pytest.mark.slow
async def test_32_sessions_of_8_users_lose_nothing_and_fail_nothing(settings: Settings, tmp_path: Path) -> None:
    token_file = tmp_path / "tokens.json"
    token_for = user_tokens(token_file)
    operator, _ = TokenStore(token_file).create("operator", [], label="load verification")
    environment = {"MEMORY_TOKEN_FILE": str(token_file), **RATE_LIMIT}
    stats = Stats()
    errors: list[str] = []
    with running_server(settings, tmp_path, extra_env=environment) as server:
        models, wall = await run_load(server, token_for, stats, errors)
        print(summary(stats, wall))
        assert not errors, f"{len(errors)} errors under load, the first {REPORTED_ERRORS}:\n" + "\n".join(
            errors[:REPORTED_ERRORS])
        live = await verify(server, token_for, operator, models)
    # Same data: acknowledged means durable.
    with running_server(settings, tmp_path, extra_env=environment) as server:
        restarted = await verify(server, token_for, operator, models)
    writes = acknowledged_writes(models)
    print(f"verified {writes} acknowledged writes: {live:.1f} s live, {restarted:.1f} s after a restart")
