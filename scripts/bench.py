#!/usr/bin/env python
"""Taste Memory benchmark (issue #5, SPEC §7): prints a table and writes docs/PERFORMANCE.md.

    python scripts/bench.py            # full run (about 10-25 minutes on 2 cores)
    python scripts/bench.py --quick    # every row, small sizes and few iterations (< 2 minutes)

Sections (every figure is measured in this run, every ratio between two figures of this run):

* transport floor: a trivial ``ping`` tool on the same SDK (scripts/bench_floor_server.py), in
  process, over stdio and over SSE, called through the same ``mcp.client.client.Client``;
* per tool: p50/p95 in process and over SSE (ratio to the floor's SSE p50), sequential calls/s,
  calls/s and p95 with 8 and 32 concurrent SSE sessions, on a store of one realistic user;
* ledger: ``memory_reconstruct_playlist`` at random ``at_time`` for 50/500/5,000-track playlists
  with 100/1,000/10,000 mutations; stored BSON bytes of the history relative to the raw event log;
* search: ``memory_search`` p50/p95 at 1k/10k/50k items of one user;
* durability: write latency with the embedded store's journal on and off;
* peer: the reference MCP memory server (``npx -y @modelcontextprotocol/server-memory``) against
  this service, both over stdio, same client, same data, same run;
* scale: the per-tool figures with 1, 10 and 50 realistic users in one store.

Every server binds 127.0.0.1 on a free port and is stopped on the way out, however the run ends.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import itertools
import json
import os
import platform
import random
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import bson  # noqa: E402
from mcp.client.client import Client  # noqa: E402
from mcp.client.sse import sse_client  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from bench_floor_server import floor_server  # noqa: E402
from service.app import ServiceHolder, running_service  # noqa: E402
from service.memory import MemoryService  # noqa: E402
from service.settings import Settings  # noqa: E402
from tools import create_mcp_server  # noqa: E402

HOST = "127.0.0.1"
CALL_TIMEOUT = 120.0
PEER_PACKAGE = "@modelcontextprotocol/server-memory"
NOTES_MARKER = "<!-- notes below this line are hand-written and kept when bench.py rewrites the file -->"
T0 = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)

TOOLS = [
    "ops_list_users",
    "memory_get_profile",
    "memory_update_profile",
    "memory_append_preference_event",
    "memory_log_playlist_create",
    "memory_log_playlist_mutation",
    "memory_get_playlists",
    "memory_get_playlist",
    "memory_reconstruct_playlist",
    "memory_search",
    "memory_export_user_data",
    "memory_delete_user_data",  # last: it consumes the victim users
]
WRITER = 900_000  # the user the write tools write to (creates, appends, mutations)
VICTIM_BASE = 1_000_000  # small users memory_delete_user_data deletes, one per call
SIZE_NAMES = ("small", "medium", "large")


# --- sizes -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class UserSize:
    events: int
    playlists: int
    tracks: int
    mutations: int

    def describe(self) -> str:
        return (f"{self.events} preference events, {self.playlists} playlists of {self.tracks} tracks "
                f"with {self.mutations} mutations each, the PRD example profile")


@dataclass(frozen=True)
class Plan:
    name: str
    warmup: int
    iters: int  # sequential calls per tool and transport
    conc_calls: int  # calls per session in the concurrent runs
    user: UserSize
    scale_users: tuple[int, ...]
    scale_iters: int
    ledger: tuple[tuple[int, int], ...]  # (tracks, mutations)
    ledger_samples: int
    search_sizes: tuple[int, ...]
    search_iters: int
    peer_sizes: tuple[int, ...]
    peer_iters: int
    durability_iters: int
    budget: float | None  # seconds one slow measurement may take (at least 10 calls)


FULL = Plan(
    name="full", warmup=10, iters=100, conc_calls=5,
    user=UserSize(events=200, playlists=25, tracks=60, mutations=20),
    scale_users=(1, 10, 50), scale_iters=25,
    ledger=((50, 100), (500, 1_000), (5_000, 10_000)), ledger_samples=100,
    search_sizes=(1_000, 10_000, 50_000), search_iters=60,
    peer_sizes=(1_000, 10_000), peer_iters=60,
    durability_iters=150, budget=30.0,
)
QUICK = Plan(
    name="quick", warmup=2, iters=12, conc_calls=2,
    user=UserSize(events=30, playlists=4, tracks=30, mutations=5),
    scale_users=(1, 10, 50), scale_iters=5,
    ledger=((50, 100), (500, 1_000), (5_000, 300)), ledger_samples=20,
    search_sizes=(300, 1_000, 3_000), search_iters=12,
    peer_sizes=(300, 1_000), peer_iters=8,
    durability_iters=30, budget=None,
)


# --- statistics and the table ----------------------------------------------------------------


def pct(samples: list[float], q: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def ms(value: float | None) -> str:
    if value is None or value != value:
        return "–"
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def ratio(a: float | None, b: float | None) -> str:
    if not a or not b or a != a or b != b:
        return "–"
    return f"{a / b:.2f}×"


def loaded(run: tuple[float, list[float], list[str]]) -> str:
    """Calls/s under load, with the number of failed calls when any failed."""
    calls_per_s, _, errors = run
    return rate(calls_per_s) + (f" ({len(errors)} failed)" if errors else "")


def rate(value: float | None) -> str:
    return "–" if not value else f"{value:.0f}"


@dataclass
class Section:
    key: str
    title: str
    columns: list[str]
    note: str = ""
    rows: list[tuple[str, list[str]]] = field(default_factory=list)

    def add(self, label: str, cells: list[str]) -> None:
        assert len(cells) == len(self.columns) - 1, (label, cells, self.columns)
        self.rows.append((label, cells))
        print(f"  {label:<52} " + "  ".join(f"{c:>9}" for c in cells), flush=True)

    def markdown(self) -> str:
        lines = [f"### {self.title}", ""]
        if self.note:
            lines += [self.note, ""]
        lines.append("| " + " | ".join(self.columns) + " |")
        lines.append("|" + "|".join(["---"] + ["---:"] * (len(self.columns) - 1)) + "|")
        for label, cells in self.rows:
            lines.append("| " + " | ".join([label, *cells]) + " |")
        return "\n".join(lines) + "\n"


class Report:
    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.values: dict[str, float] = {}  # figures the targets are judged on
        self.targets: list[str] = []
        self.load: list[str] = []  # 1-minute load average when the run starts and after each section

    def section(self, key: str, title: str, columns: list[str], note: str = "") -> Section:
        section = Section(key, title, columns, note)
        self.sections.append(section)
        print(f"\n== {title}\n  {columns[0]:<52} " + "  ".join(f"{c[:9]:>9}" for c in columns[1:]), flush=True)
        return section


# --- calling tools -----------------------------------------------------------------------------


class BenchError(RuntimeError):
    pass


Call = Callable[[str, dict[str, Any]], Awaitable[Any]]


def client_caller(client: Client) -> Call:
    async def call(tool: str, arguments: dict[str, Any]) -> Any:
        result = await client.call_tool(tool, arguments)
        envelope = result.structured_content
        if result.is_error or (isinstance(envelope, dict) and envelope.get("success") is False):
            detail = envelope.get("error") if isinstance(envelope, dict) else result.content
            raise BenchError(f"{tool}({json.dumps(arguments)[:200]}) failed: {detail}")
        if envelope is None and result.content and getattr(result.content[0], "text", None):
            with contextlib.suppress(ValueError):
                return json.loads(result.content[0].text)
        return envelope

    return call


async def timed(call: Callable[[int], Awaitable[Any]], n: int, warmup: int,
                budget: float | None = None) -> list[float]:
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


async def concurrent(callers: list[Call], make: Callable[[int, int], tuple[str, dict[str, Any]]],
                     calls: int) -> tuple[float, list[float], list[str]]:
    """Every session makes one warm-up call, then ``calls`` calls; returns (successful calls/s,
    latencies, errors). A failed call under load is counted and reported, not fatal."""
    errors: list[str] = []

    async def attempt(s: int, i: int, call: Call) -> bool:
        try:
            await call(*make(s, i))
            return True
        except Exception as exc:  # noqa: BLE001 - reported in the table
            errors.append(f"{type(exc).__name__}: {str(exc)[:300]}")
            return False

    await asyncio.gather(*(attempt(s, -1, c) for s, c in enumerate(callers)))
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


# --- processes -------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update(extra or {})
    return env


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _answers_ready(port: int, ready_path: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}{ready_path}", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def _accepts_connections(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        return probe.connect_ex((HOST, port)) == 0


@contextlib.contextmanager
def http_server(args: list[str], port: int, log_path: Path, ready: Callable[[], bool],
                env: dict[str, str] | None = None) -> Iterator[str]:
    """Start a server subprocess, wait until ``ready()`` holds (60 s at most), always stop it."""
    with open(log_path, "ab") as log:
        process = subprocess.Popen(args, cwd=log_path.parent, env=child_env(env), stdin=subprocess.DEVNULL,
                                   stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not ready():
            if process.poll() is not None:
                raise BenchError(f"{args} exited with {process.returncode}: {log_path.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                raise BenchError(f"{args} not ready after 60 s: {log_path.read_text()[-3000:]}")
            time.sleep(0.05)
        yield f"http://{HOST}:{port}"
    finally:
        _stop(process)


@contextlib.contextmanager
def service_sse(data_dir: Path, work: Path, journal: bool = True) -> Iterator[str]:
    port = free_port()
    args = [sys.executable, "-m", "service.cli", "serve", "--transport", "sse", "--host", HOST,
            "--port", str(port), "--data-dir", str(data_dir)]
    if not journal:
        raise BenchError("the SSE runs use the default (journal on)")
    with http_server(args, port, work / f"service-{port}.log", lambda: _answers_ready(port, "/readyz")) as base:
        yield f"{base}/sse"


@contextlib.contextmanager
def floor_sse(work: Path) -> Iterator[str]:
    port = free_port()
    args = [sys.executable, str(ROOT / "scripts" / "bench_floor_server.py"), "sse", str(port)]
    # The floor server has no /readyz: it is ready once its port accepts a connection.
    with http_server(args, port, work / f"floor-{port}.log", lambda: _accepts_connections(port)) as base:
        yield f"{base}/sse"


@contextlib.asynccontextmanager
async def sse_callers(url: str, n: int) -> AsyncIterator[list[Call]]:
    async with contextlib.AsyncExitStack() as stack:
        callers = []
        for _ in range(n):
            client = Client(sse_client(url), cache=None, read_timeout_seconds=CALL_TIMEOUT)
            await stack.enter_async_context(client)
            callers.append(client_caller(client))
        yield callers


@contextlib.asynccontextmanager
async def stdio_caller(params: StdioServerParameters, errlog: Path) -> AsyncIterator[tuple[Call, Client]]:
    with open(errlog, "a") as err:
        client = Client(stdio_client(params, errlog=err), cache=None, read_timeout_seconds=CALL_TIMEOUT)
        async with client:
            yield client_caller(client), client


@contextlib.asynccontextmanager
async def in_process(data_dir: Path, journal: bool = True) -> AsyncIterator[tuple[Call, MemoryService]]:
    holder = ServiceHolder()
    server = create_mcp_server(holder, "plain")
    async with running_service(Settings(data_dir=data_dir, journal=journal), holder) as service:
        async with Client(server, cache=None, read_timeout_seconds=CALL_TIMEOUT) as client:
            yield client_caller(client), service


# --- deterministic data ----------------------------------------------------------------------

GENRES = ["symphonic metal", "power metal", "synthwave", "lo-fi hip hop", "jazz fusion", "hooky pop", "folk",
          "drum and bass", "ambient", "post-rock", "k-pop", "bossa nova", "trip hop", "indie rock", "techno",
          "northern soul", "celtic punk", "city pop", "doom metal", "afrobeat"]
MOODS = ["upbeat", "anthemic", "melancholic", "breather", "late night", "workout", "rainy day", "road trip",
         "focus", "chill", "euphoric", "dark", "sunday morning", "party", "cinematic"]
PHRASES = ["keep it coming", "too slow for me", "more of this please", "not while working", "great for the gym",
           "loved the bridge", "skip the live versions", "only the early albums", "perfect on the train",
           "a bit repetitive", "needs more female vocals", "instrumental is better here"]
EVENT_TYPES = ["like", "dislike", "rule", "feedback", "note"]
ARTISTS = 1000
QUERIES = ["symphonic metal", "upbeat road trip", "band0042q", "breather", "late night synthwave",
           "too slow", "gym", "jazz fusion rainy day", "band0777q", "cinematic post-rock"]


def artist(k: int) -> str:
    return f"band{k % ARTISTS:04d}q"


def preference_text(rng: random.Random, i: int) -> tuple[str, dict[str, Any]]:
    genre, mood, phrase = rng.choice(GENRES), rng.choice(MOODS), rng.choice(PHRASES)
    who = artist(i * 7919 + rng.randrange(ARTISTS))
    text = f"{mood} {genre}, like {who}: {phrase}"
    return text, {"raw_text": text, "artist": who, "genre": genre}


def track(n: int) -> str:
    return f"spotifytrack{n:012d}"


def playlist_id(user: int, n: int) -> str:
    return f"pl{user:07d}x{n:06d}"


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class MutationGenerator:
    """Valid mutations of a playlist (its contents tracked here), around its initial length."""

    def __init__(self, rng: random.Random, tracks: list[str], first_new: int, reorder_share: float = 0.01) -> None:
        self.rng = rng
        self.tracks = list(tracks)
        self.target = len(tracks)
        self.next_track = first_new
        self.reorder_share = reorder_share

    def __next__(self) -> tuple[str, dict[str, Any]]:
        rng, tracks = self.rng, self.tracks
        roll = rng.random()
        if roll < 0.10:
            return "UPDATE_META", {"name": f"{rng.choice(MOODS)} {rng.choice(GENRES)} v{rng.randrange(99)}",
                                   "intent_tags": rng.sample(MOODS, 2)}
        if roll < 0.10 + self.reorder_share and len(tracks) > 1:
            order = list(tracks)
            rng.shuffle(order)
            self.tracks = order
            return "REORDER", {"track_ids": order}
        grow = len(tracks) < 2 or (len(tracks) <= self.target and rng.random() < 0.55) or rng.random() < 0.3
        if grow:
            new = [track(self.next_track + j) for j in range(rng.randint(1, 5))]
            self.next_track += len(new)
            payload: dict[str, Any] = {"track_ids": new}
            if rng.random() < 0.6:
                at = rng.randint(0, len(tracks))
                payload["insert_at"] = at
                self.tracks = tracks[:at] + new + tracks[at:]
            else:
                self.tracks = tracks + new
            return "ADD_TRACKS", payload
        gone = set(rng.sample(tracks, min(len(tracks) - 1, rng.randint(1, 5))))
        self.tracks = [t for t in tracks if t not in gone]
        return "REMOVE_TRACKS", {"track_ids": sorted(gone)}


def _raw(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """A facade method without its per-call commit: bulk loads commit once at the end."""
    return getattr(method, "__wrapped__", method)


class Loader:
    """Bulk-loads a store through MemoryService's own write paths (no MCP, one commit per batch)."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service
        self.profile = json.loads((ROOT / "models" / "seed_profile.json").read_text())
        self.pending = 0

    async def _tick(self) -> None:
        self.pending += 1
        if self.pending >= 2000:
            self.service.database.commit()
            self.pending = 0

    async def event(self, user: int, i: int, rng: random.Random, when: datetime) -> str:
        text, payload = preference_text(rng, i)
        await _raw(MemoryService.append_preference_event)(
            self.service, user, EVENT_TYPES[i % len(EVENT_TYPES)], payload, "user", when)
        await self._tick()
        return text

    async def playlist(self, user: int, n: int, tracks: int, mutations: int, rng: random.Random,
                       start: datetime, step: timedelta = timedelta(minutes=1)) -> list[dict[str, Any]]:
        """Create a playlist and log ``mutations`` changes; returns the raw event log."""
        first = [track(user * 10_000_000 + n * 100_000 + j) for j in range(tracks)]
        arguments = {
            "user_id": user, "playlist_id": playlist_id(user, n),
            "name": f"{rng.choice(MOODS)} {rng.choice(GENRES)} #{n}",
            "description": f"{rng.choice(MOODS)} mix with {artist(rng.randrange(ARTISTS))} and friends",
            "track_ids": first, "intent_tags": rng.sample(MOODS, 3),
            "seed_context": {"days": 30, "top_artists": [artist(rng.randrange(ARTISTS)) for _ in range(3)],
                             "genres": rng.sample(GENRES, 2)},
        }
        await _raw(MemoryService.log_playlist_create)(self.service, arguments, start)
        await self._tick()
        log = [{"type": "CREATE", "timestamp": start, **{k: v for k, v in arguments.items() if k != "user_id"}}]
        generator = MutationGenerator(rng, first, user * 10_000_000 + n * 100_000 + 50_000)
        for i in range(mutations):
            kind, payload = next(generator)
            when = start + step * (i + 1)
            await _raw(MemoryService.log_playlist_mutation)(
                self.service, {"user_id": user, "playlist_id": arguments["playlist_id"], "type": kind,
                               "payload": payload}, when)
            await self._tick()
            log.append({"type": kind, "timestamp": when, "payload": payload})
        return log

    async def user(self, user: int, size: UserSize, seed: int) -> None:
        rng = random.Random(seed)
        await _raw(MemoryService.update_profile)(self.service, user, self.profile, "seed", "user", True)
        for i in range(size.events):
            await self.event(user, i, rng, T0 + timedelta(minutes=i))
        for n in range(size.playlists):
            await self.playlist(user, n, size.tracks, size.mutations, rng, T0 + timedelta(days=1 + n))

    def commit(self) -> None:
        self.service.database.commit()


async def populate(service: MemoryService, users: int, size: UserSize, writer_playlists: int) -> None:
    """Users 1..users of ``size`` and the writer user's playlists."""
    loader = Loader(service)
    for user in range(1, users + 1):
        await loader.user(user, size, seed=user)
    rng = random.Random(WRITER)
    for n in range(writer_playlists):
        await loader.playlist(WRITER, n, 30, 0, rng, T0)
    loader.commit()


async def build_store(data_dir: Path, users: int, size: UserSize, writer_playlists: int) -> float:
    """``populate`` a store on disk; seconds taken."""
    start = time.perf_counter()
    holder = ServiceHolder()
    async with running_service(Settings(data_dir=data_dir), holder) as service:
        await populate(service, users, size, writer_playlists)
    return time.perf_counter() - start


class Workload:
    """Arguments of each tool's n-th call in session s, on a store built by ``build_store``."""

    def __init__(self, size: UserSize) -> None:
        self.size = size
        self.victims: collections.deque[int] = collections.deque()
        self.next_victim = itertools.count(VICTIM_BASE)
        self.created = itertools.count()
        self.mutations: dict[int, int] = {}
        self.rng = random.Random(5)

    def args(self, tool: str, session: int, i: int) -> dict[str, Any]:
        size = self.size
        if tool == "ops_list_users":
            return {"limit": 50}
        if tool == "memory_get_profile":
            return {"user_id": 1}
        if tool == "memory_update_profile":
            return {"user_id": 1, "patch": {"energy_preferences": {"bench_level": (i + session) % 5}},
                    "reason": "User feedback: bench", "source": "user"}
        if tool == "memory_append_preference_event":
            text, payload = preference_text(self.rng, i)
            return {"user_id": WRITER, "type": "feedback", "payload": payload, "source": "user"}
        if tool == "memory_log_playlist_create":
            n = next(self.created)
            return {"user_id": WRITER, "playlist_id": f"benchcreate{n:09d}", "name": f"bench {n}",
                    "track_ids": [track(500_000_000 + n * 100 + j) for j in range(40)],
                    "intent_tags": ["upbeat", "breathers"],
                    "seed_context": {"days": 60, "top_artists": [artist(n), artist(n + 1)]}}
        if tool == "memory_log_playlist_mutation":
            k = self.mutations.get(session, 0)
            self.mutations[session] = k + 1
            kind = "ADD_TRACKS" if k % 2 == 0 else "REMOVE_TRACKS"
            return {"user_id": WRITER, "playlist_id": playlist_id(WRITER, session), "type": kind,
                    "payload": {"track_ids": [track(999_000_000 + session)]}}
        if tool == "memory_get_playlists":
            return {"user_id": 1, "limit": 20}
        if tool == "memory_get_playlist":
            return {"user_id": 1, "playlist_id": playlist_id(1, (i + session) % size.playlists)}
        if tool == "memory_reconstruct_playlist":
            return {"user_id": 1, "playlist_id": playlist_id(1, (i + session) % size.playlists)}
        if tool == "memory_search":
            return {"user_id": 1, "query": QUERIES[(i + session) % len(QUERIES)]}
        if tool == "memory_export_user_data":
            return {"user_id": 1}
        if tool == "memory_delete_user_data":
            victim = self.victims.popleft() if self.victims else next(self.next_victim)
            return {"user_id": victim, "confirm": True}
        raise KeyError(tool)

    async def prepare(self, call: Call, tool: str, calls: int) -> None:
        """Before ``memory_delete_user_data`` is timed: ``calls`` small users to delete (profile, two
        preference events, one playlist), made untimed through the same connection."""
        if tool != "memory_delete_user_data":
            return
        rng = random.Random(calls)
        for _ in range(calls):
            user = next(self.next_victim)
            await call("memory_update_profile", {"user_id": user, "patch": {"core_genres": ["folk"]}})
            for i in range(2):
                await call("memory_append_preference_event",
                           {"user_id": user, "type": "like", "payload": preference_text(rng, i)[1]})
            await call("memory_log_playlist_create",
                       {"user_id": user, "playlist_id": playlist_id(user, 0), "name": "to delete",
                        "track_ids": [track(user * 100 + j) for j in range(10)]})
            self.victims.append(user)


# --- the sections ----------------------------------------------------------------------------


def warm(plan: Plan) -> str:
    if plan.budget is None:
        return f"after {plan.warmup} warm-up"
    return (f"after at most 3 warm-up, stopping once {plan.budget:.0f} s are spent and at least 10 calls are "
            "timed (\"calls\" column)")


async def bench_floor(report: Report, plan: Plan, work: Path) -> None:
    section = report.section("floor", "Transport floor: trivial MCP tool (same SDK, same client)",
                             ["transport", "p50 ms", "p95 ms", "calls/s"],
                             "`ping() -> str` on an `MCPServer` of the same SDK (scripts/bench_floor_server.py), "
                             "called sequentially through the same `mcp.client.client.Client`.")
    n = plan.iters * 2

    def add(label: str, key: str, samples: list[float]) -> None:
        report.values[key] = pct(samples, 50)
        section.add(label, [ms(pct(samples, 50)), ms(pct(samples, 95)), rate(1000 / (sum(samples) / len(samples)))])

    async with Client(floor_server(), cache=None) as client:
        call = client_caller(client)
        add("floor in process", "floor.inproc", await timed(lambda i: call("ping", {}), n, plan.warmup))
    params = StdioServerParameters(command=sys.executable, args=[str(ROOT / "scripts" / "bench_floor_server.py"), "stdio"],
                                   env=child_env(), cwd=str(work))
    async with stdio_caller(params, work / "floor-stdio.log") as (call, _):
        add("floor stdio", "floor.stdio", await timed(lambda i: call("ping", {}), n, plan.warmup))
    with floor_sse(work) as url:
        async with sse_callers(url, 1) as (call,):
            add("floor SSE", "floor.sse", await timed(lambda i: call("ping", {}), n, plan.warmup))


async def bench_tools(report: Report, plan: Plan, work: Path) -> None:
    store = work / "tools-store"
    seconds = await build_store(store, 1, plan.user, writer_playlists=33)
    section = report.section(
        "tools", "Per tool: one realistic user, in process and over SSE",
        ["tool", "in-proc p50", "in-proc p95", "SSE p50", "SSE p95", "SSE p50 / floor", "seq calls/s",
         "8 sess calls/s", "8 sess p95", "32 sess calls/s", "32 sess p95"],
        f"Store: 1 user ({plan.user.describe()}; built in {seconds:.1f} s), plus the writer user the write "
        "tools write to; `memory_delete_user_data` deletes small users (profile, 2 events, 1 playlist) made "
        "untimed just before. "
        f"Sequential: {plan.warmup} warm-up + {plan.iters} calls. Concurrent: N SSE sessions, one warm-up "
        f"then {plan.conc_calls} calls each; calls/s = all calls / wall time. \"floor\" = the trivial tool's SSE p50.",
    )
    workload = Workload(plan.user)
    inproc: dict[str, list[float]] = {}
    async with in_process(store) as (call, _):
        for tool in TOOLS:
            await workload.prepare(call, tool, plan.warmup + plan.iters)
            inproc[tool] = await timed(lambda i, t=tool: call(t, workload.args(t, 0, i)), plan.iters, plan.warmup)
    sse: dict[str, list[float]] = {}
    conc: dict[int, dict[str, tuple[float, list[float], list[str]]]] = {8: {}, 32: {}}
    with service_sse(store, work) as url:
        async with sse_callers(url, 1) as (call,):
            for tool in TOOLS:
                await workload.prepare(call, tool, plan.warmup + plan.iters)
                sse[tool] = await timed(lambda i, t=tool: call(t, workload.args(t, 0, i)), plan.iters, plan.warmup)
        for sessions in (8, 32):
            async with sse_callers(url, sessions) as callers:
                for tool in TOOLS:
                    await workload.prepare(callers[0], tool, sessions * (plan.conc_calls + 1))
                    conc[sessions][tool] = await concurrent(
                        callers, lambda s, i, t=tool: (t, workload.args(t, s, i)), plan.conc_calls)
    floor = report.values.get("floor.sse")
    for tool in TOOLS:
        a, b = inproc[tool], sse[tool]
        report.values[f"tool.{tool}.sse.p50"] = pct(b, 50)
        report.values[f"tool.{tool}.inproc.p50"] = pct(a, 50)
        section.add(tool, [ms(pct(a, 50)), ms(pct(a, 95)), ms(pct(b, 50)), ms(pct(b, 95)), ratio(pct(b, 50), floor),
                           rate(1000 / (sum(b) / len(b))),
                           loaded(conc[8][tool]), ms(pct(conc[8][tool][1], 95)),
                           loaded(conc[32][tool]), ms(pct(conc[32][tool][1], 95))])


async def bench_ledger(report: Report, plan: Plan, work: Path) -> None:
    section = report.section(
        "ledger", "Ledger: reconstruction at a random at_time, stored bytes",
        ["ledger row", "tracks / mutations", "load s", "calls", "MCP p50", "MCP p95", "facade p50", "facade p95",
         "stored KiB", "raw log KiB", "stored / raw"],
        "One playlist per row, created then mutated one minute apart: 10% UPDATE_META, 1% REORDER of the "
        "whole list, 89% ADD_TRACKS (1-5 new tracks, 60% at a random index) or REMOVE_TRACKS (1-5 tracks), "
        f"balanced to keep the length near its initial value. Up to {plan.ledger_samples} "
        f"`memory_reconstruct_playlist` calls {warm(plan)}, at uniformly random `at_time` between creation and the last "
        "mutation: \"MCP\" through the in-process MCP client, \"facade\" = `MemoryService.reconstruct_playlist` "
        "alone. Stored = BSON of the playlist's history buckets + playlist document; raw log = BSON of the "
        "create call's arguments and each mutation's {type, timestamp, payload}.",
    )
    for name, (tracks, mutations) in zip(SIZE_NAMES, plan.ledger):
        store = work / f"ledger-{name}"
        user = 1
        async with in_process(store) as (call, service):
            start = time.perf_counter()
            loader = Loader(service)
            rng = random.Random(tracks * 7 + mutations)
            log = await loader.playlist(user, 0, tracks, mutations, rng, T0)
            loader.commit()
            load = time.perf_counter() - start
            pid = playlist_id(user, 0)
            span = (log[-1]["timestamp"] - T0).total_seconds()
            times = [T0 + timedelta(seconds=random.Random(i).uniform(0, span)) for i in range(plan.ledger_samples + plan.warmup)]
            mcp_samples = await timed(
                lambda i: call("memory_reconstruct_playlist", {"user_id": user, "playlist_id": pid, "at_time": iso(times[i])}),
                plan.ledger_samples, plan.warmup, plan.budget)
            facade = await timed(lambda i: service.reconstruct_playlist(user, pid, times[i]),
                                 plan.ledger_samples, plan.warmup, plan.budget)
            # the state at the very end must be what the generator tracked: the figures are of a correct ledger
            final = await service.reconstruct_playlist(user, pid, None)
            db = service.database
            stored = sum(len(bson.encode(d)) for d in await db.history.find({"user_id": user, "playlist_id": pid}))
            stored += sum(len(bson.encode(d)) for d in await db.playlists.find({"user_id": user, "playlist_id": pid}))
        raw = sum(len(bson.encode(entry)) for entry in log)
        label = f"ledger {name}"
        report.values[f"ledger.{name}.p95"] = pct(mcp_samples, 95)
        report.values[f"ledger.{name}.facade.p95"] = pct(facade, 95)
        report.values[f"ledger.{name}.bytes"] = stored / raw
        report.values[f"ledger.{name}.tracks"] = tracks
        report.values[f"ledger.{name}.mutations"] = mutations
        if not final.get("track_ids"):
            raise BenchError(f"{label}: reconstruction returned no tracks: {str(final)[:300]}")
        section.add(label, [f"{tracks:,} / {mutations:,}", f"{load:.1f}", str(len(mcp_samples)), ms(pct(mcp_samples, 50)), ms(pct(mcp_samples, 95)),
                            ms(pct(facade, 50)), ms(pct(facade, 95)), f"{stored / 1024:,.0f}", f"{raw / 1024:,.0f}",
                            f"{stored / raw:.2f}×"])


async def load_search_corpus(service: MemoryService, user: int, items: int) -> None:
    """``items`` searchable items of one user: 80% preference events, 20% playlists."""
    loader = Loader(service)
    rng = random.Random(items)
    playlists = items // 5
    for i in range(items - playlists):
        await loader.event(user, i, rng, T0 + timedelta(seconds=i))
    for n in range(playlists):
        await loader.playlist(user, n, 8, 0, rng, T0 + timedelta(minutes=n))
    loader.commit()


async def bench_search(report: Report, plan: Plan, work: Path) -> None:
    section = report.section(
        "search", "Search: memory_search at growing sizes (one user)",
        ["search row", "items", "load s", "calls", "MCP p50", "MCP p95", "facade p50", "facade p95", "hits/query"],
        "Items of one user: 80% preference events (mood, genre, artist, a phrase), 20% playlists (name, "
        f"tags, description, seed context); queries cycle over {len(QUERIES)} fixed queries "
        f"({', '.join(repr(q) for q in QUERIES[:4])}, ...), limit 25. Up to {plan.search_iters} calls {warm(plan)}. "
        "scripts/bench_search.py measures quality as well.",
    )
    for name, items in zip(SIZE_NAMES, plan.search_sizes):
        store = work / f"search-{name}"
        async with in_process(store) as (call, service):
            start = time.perf_counter()
            await load_search_corpus(service, 1, items)
            load = time.perf_counter() - start
            hits: list[int] = []

            async def one(i: int) -> None:
                result = await call("memory_search", {"user_id": 1, "query": QUERIES[i % len(QUERIES)]})
                hits.append(len(result["result"]["results"]))

            mcp_samples = await timed(one, plan.search_iters, plan.warmup, plan.budget)
            facade = await timed(lambda i: service.search(1, QUERIES[i % len(QUERIES)], 25), plan.search_iters,
                                 plan.warmup, plan.budget)
        report.values[f"search.{name}.p95"] = pct(mcp_samples, 95)
        report.values[f"search.{name}.items"] = items
        section.add(f"search {name}", [f"{items:,}", f"{load:.1f}", str(len(mcp_samples)), ms(pct(mcp_samples, 50)), ms(pct(mcp_samples, 95)),
                                       ms(pct(facade, 50)), ms(pct(facade, 95)), f"{sum(hits) / len(hits):.1f}"])


async def bench_durability(report: Report, plan: Plan, work: Path) -> None:
    section = report.section(
        "durability", "Embedded durability: write latency with the journal on and off (in process)",
        ["write tool", "journal on p50", "on p95", "journal off p50", "off p95", "on / off p50"],
        "`MEMORY_JOURNAL=true` commits every call to the SQLite journal before answering; off keeps the "
        f"store in memory only. Same store, {plan.durability_iters} calls after {plan.warmup} warm-up, in process.",
    )
    writes = ["memory_append_preference_event", "memory_log_playlist_mutation", "memory_update_profile",
              "memory_log_playlist_create"]
    results: dict[bool, dict[str, list[float]]] = {}
    for journal in (True, False):
        store = work / f"durability-{'on' if journal else 'off'}"
        workload = Workload(plan.user)
        results[journal] = {}
        async with in_process(store, journal=journal) as (call, service):
            await populate(service, 1, plan.user, writer_playlists=1)
            for tool in writes:
                results[journal][tool] = await timed(lambda i, t=tool: call(t, workload.args(t, 0, i)),
                                                     plan.durability_iters, plan.warmup)
    for tool in writes:
        on, off = results[True][tool], results[False][tool]
        section.add(tool, [ms(pct(on, 50)), ms(pct(on, 95)), ms(pct(off, 50)), ms(pct(off, 95)),
                           ratio(pct(on, 50), pct(off, 50))])


def peer_available(work: Path) -> str | None:
    """None when the reference server starts, else why not."""
    npx = shutil.which("npx")
    if npx is None:
        return "npx is not installed"
    try:
        done = subprocess.run([npx, "-y", PEER_PACKAGE], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=180, cwd=work, env={**os.environ, "MEMORY_FILE_PATH": str(work / "probe.jsonl")})
    except subprocess.TimeoutExpired:
        return f"`npx -y {PEER_PACKAGE}` did not start within 180 s"
    if "running on stdio" not in done.stderr:
        lines = [line.strip() for line in (done.stderr + done.stdout).splitlines()
                 if line.strip() and "npm warn" not in line and "complete log" not in line]
        telling = [line for line in lines if "code" in line or "ENOTCACHED" in line or "ENOTFOUND" in line]
        detail = " ".join((telling or lines or ["no output"])[:2])[:200]
        return f"`npx -y {PEER_PACKAGE}` failed (exit {done.returncode}): {detail}"
    return None


async def bench_peer(report: Report, plan: Plan, work: Path) -> None:
    section = report.section(
        "peer", f"Peer: reference MCP memory server ({PEER_PACKAGE}) vs this service, both over stdio",
        ["peer row", "items", "calls", "ours p50", "ours p95", "reference p50", "reference p95",
         "ours / reference p50", "hits ours / ref"],
        "Same SDK client over stdio, same data, same run. Both stores preloaded directly with the same N "
        "preference texts (ours: N preference events of user 1 through the facade; reference: N entities "
        "of type `preference` with the text as observation, written to its MEMORY_FILE_PATH JSONL). "
        "store = one `memory_append_preference_event` vs one `create_entities` call with one entity; "
        "search = `memory_search` (best 25, ranked) vs `search_nodes` (every substring match, unranked), "
        f"same queries. Up to {plan.peer_iters} calls {warm(plan)}. Anchor (2 cores, issue #5): "
        "reference store 2.05 ms at 1k, 25.7 ms at 10k; search 1.83 ms at 1k, 13.6 ms at 10k.",
    )
    reason = peer_available(work)
    if reason is not None:
        for name, items in zip(SIZE_NAMES, plan.peer_sizes):
            for op in ("store", "search"):
                section.add(f"peer {op} {name}", [f"{items:,}", "0", "–", "–", "–", "–",
                                                   f"unavailable: {reason}", "–"])
        report.values["peer.unavailable"] = 1
        return
    for name, items in zip(SIZE_NAMES, plan.peer_sizes):
        store = work / f"peer-ours-{name}"
        rng = random.Random(items)
        texts = [preference_text(rng, i) for i in range(items)]
        holder = ServiceHolder()
        async with running_service(Settings(data_dir=store), holder) as service:
            loader = Loader(service)
            for i, (_, payload) in enumerate(texts):
                await _raw(MemoryService.append_preference_event)(service, 1, "like", payload, "user",
                                                                  T0 + timedelta(seconds=i))
                await loader._tick()
            loader.commit()
        memory_file = work / f"peer-reference-{name}.jsonl"
        with open(memory_file, "w") as out:
            for i, (text, _) in enumerate(texts):
                out.write(json.dumps({"type": "entity", "name": f"pref{i:06d}", "entityType": "preference",
                                      "observations": [text]}) + "\n")
        ours_params = StdioServerParameters(
            command=sys.executable, args=["-m", "service.cli", "serve", "--transport", "stdio", "--data-dir", str(store)],
            env=child_env(), cwd=str(work))
        ref_params = StdioServerParameters(command=shutil.which("npx") or "npx", args=["-y", PEER_PACKAGE],
                                           env={**os.environ, "MEMORY_FILE_PATH": str(memory_file)}, cwd=str(work))
        samples: dict[tuple[str, str], list[float]] = {}
        hits: dict[str, list[int]] = {"ours": [], "ref": []}
        async with stdio_caller(ours_params, work / "peer-ours.log") as (call, _):
            async def our_search(i: int) -> None:
                found = await call("memory_search", {"user_id": 1, "query": QUERIES[i % len(QUERIES)]})
                hits["ours"].append(len(found["result"]["results"]))

            extra = random.Random(items + 1)
            samples["ours", "search"] = await timed(our_search, plan.peer_iters, plan.warmup, plan.budget)
            samples["ours", "store"] = await timed(
                lambda i: call("memory_append_preference_event",
                               {"user_id": 1, "type": "like", "payload": preference_text(extra, i)[1], "source": "user"}),
                plan.peer_iters, plan.warmup, plan.budget)
        async with stdio_caller(ref_params, work / "peer-reference.log") as (call, client):
            tools = {t.name for t in (await client.list_tools()).tools}
            if not {"create_entities", "search_nodes"} <= tools:
                raise BenchError(f"the reference server lists {sorted(tools)}")

            async def their_search(i: int) -> None:
                found = await call("search_nodes", {"query": QUERIES[i % len(QUERIES)]})
                hits["ref"].append(len((found or {}).get("entities", [])))

            extra = random.Random(items + 1)
            samples["ref", "search"] = await timed(their_search, plan.peer_iters, plan.warmup, plan.budget)
            samples["ref", "store"] = await timed(
                lambda i: call("create_entities", {"entities": [{"name": f"new{i:06d}", "entityType": "preference",
                                                                 "observations": [preference_text(extra, i)[0]]}]}),
                plan.peer_iters, plan.warmup, plan.budget)
        for op in ("store", "search"):
            ours, ref = samples["ours", op], samples["ref", op]
            report.values[f"peer.{op}.{name}.ratio"] = pct(ours, 50) / pct(ref, 50)
            report.values[f"peer.{op}.{name}.items"] = items
            found = "–"
            if op == "search":
                found = f"{sum(hits['ours']) / len(hits['ours']):.1f} / {sum(hits['ref']) / len(hits['ref']):.1f}"
            section.add(f"peer {op} {name}", [f"{items:,}", f"{len(ours)} / {len(ref)}", ms(pct(ours, 50)),
                                              ms(pct(ours, 95)), ms(pct(ref, 50)), ms(pct(ref, 95)),
                                              ratio(pct(ours, 50), pct(ref, 50)), found])


async def bench_scale(report: Report, plan: Plan, work: Path) -> None:
    section = report.section(
        "scale", "Scale of the embedded engine: per tool with 1, 10 and 50 users in one store",
        ["users: tool", "in-proc p50", "in-proc p95", "SSE p50", "SSE p95"],
        f"Every user of realistic size ({plan.user.describe()}); reads address user 1, writes the writer "
        f"user. {plan.scale_iters} sequential calls after {plan.warmup} warm-up per tool and transport.",
    )
    for users in plan.scale_users:
        store = work / f"scale-{users}"
        seconds = await build_store(store, users, plan.user, writer_playlists=1)
        print(f"  ({users} {'user' if users == 1 else 'users'} built in {seconds:.1f} s)", flush=True)
        workload = Workload(plan.user)
        inproc: dict[str, list[float]] = {}
        async with in_process(store) as (call, _):
            for tool in TOOLS:
                await workload.prepare(call, tool, plan.warmup + plan.scale_iters)
                inproc[tool] = await timed(lambda i, t=tool: call(t, workload.args(t, 0, i)), plan.scale_iters, plan.warmup)
        sse: dict[str, list[float]] = {}
        with service_sse(store, work) as url:
            async with sse_callers(url, 1) as (call,):
                for tool in TOOLS:
                    await workload.prepare(call, tool, plan.warmup + plan.scale_iters)
                    sse[tool] = await timed(lambda i, t=tool: call(t, workload.args(t, 0, i)), plan.scale_iters, plan.warmup)
        noun = "user" if users == 1 else "users"
        for tool in TOOLS:
            a, b = inproc[tool], sse[tool]
            section.add(f"{users} {noun}: {tool}", [ms(pct(a, 50)), ms(pct(a, 95)), ms(pct(b, 50)), ms(pct(b, 95))])


# --- targets and the document ----------------------------------------------------------------


def judge(report: Report, plan: Plan) -> list[str]:
    v = report.values
    lines = []

    def verdict(ok: bool | None) -> str:
        return "not measured" if ok is None else ("**met**" if ok else "**missed**")

    floor, profile = v.get("floor.sse"), v.get("tool.memory_get_profile.sse.p50")
    if floor and profile:
        lines.append(f"- get_profile over SSE p50 ≤ 1.5× trivial tool's SSE p50: {profile:.2f} ms vs "
                     f"{floor:.2f} ms = {profile / floor:.2f}× — {verdict(profile / floor <= 1.5)}")
    name = SIZE_NAMES[-1]
    if f"ledger.{name}.p95" in v:
        t, m = int(v[f"ledger.{name}.tracks"]), int(v[f"ledger.{name}.mutations"])
        p95, facade = v[f"ledger.{name}.p95"], v[f"ledger.{name}.facade.p95"]
        size = "" if (t, m) == (5_000, 10_000) else f" (this run: {t:,} tracks / {m:,} mutations, not the target size)"
        lines.append(f"- reconstruction 5,000 tracks / 10,000 mutations, in process p95 ≤ 20 ms{size}: "
                     f"{p95:.2f} ms through MCP ({facade:.2f} ms facade alone) — {verdict(p95 <= 20)}")
        b = v[f"ledger.{name}.bytes"]
        lines.append(f"- stored bytes ≤ 3× raw event log{size}: {b:.2f}× — {verdict(b <= 3)}")
    name = SIZE_NAMES[1]
    if f"search.{name}.p95" in v:
        items = int(v[f"search.{name}.items"])
        size = "" if items == 10_000 else f" (this run: {items:,} items, not the target size)"
        p95 = v[f"search.{name}.p95"]
        lines.append(f"- search at 10k items p95 ≤ 10 ms in process{size}: {p95:.2f} ms — {verdict(p95 <= 10)}")
    if v.get("peer.unavailable"):
        lines.append("- store and search faster per call than the reference memory server: not measured "
                     "(reference server unavailable, see the peer rows)")
    else:
        for name in SIZE_NAMES[:len(plan.peer_sizes)]:
            for op in ("store", "search"):
                key = f"peer.{op}.{name}.ratio"
                if key in v:
                    items = int(v[f"peer.{op}.{name}.items"])
                    lines.append(f"- {op} at {items:,} items faster than the reference server: ours/reference p50 = "
                                 f"{v[key]:.2f}× — {verdict(v[key] < 1)}")
    return lines


def _run(args: list[str]) -> str:
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def code_version() -> str:
    commit = _run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
    if not commit:
        return "unknown (not a git checkout)"
    dirty = _run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"])
    return f"commit {commit}" + (" with uncommitted changes" if dirty else "")


def machine() -> list[str]:
    lscpu = _run(["lscpu"])
    fields = {}
    for line in lscpu.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    memory = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    try:
        from importlib.metadata import version

        mcp_version = version("mcp")
    except Exception:  # pragma: no cover
        mcp_version = "?"
    return [
        f"- CPU: {fields.get('Model name', platform.processor() or '?')}, `nproc` = {_run(['nproc'])}"
        f" ({fields.get('Architecture', platform.machine())}, {fields.get('Thread(s) per core', '?')} thread(s) per core, "
        f"hypervisor: {fields.get('Hypervisor vendor', 'none')})",
        f"- Memory: {memory}",
        f"- OS: {platform.platform()}",
        f"- Python {platform.python_version()} ({sys.executable}), mcp {mcp_version}, "
        f"node {_run(['node', '--version']) or 'not installed'}",
    ]


def document(report: Report, plan: Plan, command: str, started: datetime, seconds: float, old: str | None) -> str:
    parts = [
        "# Performance",
        "",
        f"Written by `scripts/bench.py` ({plan.name} run) on {started:%Y-%m-%d %H:%M} UTC in {seconds / 60:.1f} min.",
        "",
        "Command:",
        "",
        "```sh",
        command,
        "```",
        "",
        f"Code: {code_version()}",
        "",
        "Machine:",
        "",
        *machine(),
        f"- 1-minute load average at the start and after each section (the benchmark itself keeps about "
        f"1–2 cores busy; more means other processes competed): {', '.join(report.load)}",
        "",
        "All latencies in milliseconds, measured by the client around one `call_tool` (sequential unless said);"
        " p50/p95 are nearest-rank percentiles; ratios are between figures of this same run.",
        "",
        "## Targets (reported, not asserted)",
        "",
        *report.targets,
        "",
        "## Tables",
        "",
    ]
    for section in report.sections:
        parts.append(section.markdown())
    text = "\n".join(parts).rstrip() + "\n\n" + NOTES_MARKER + "\n"
    if old and NOTES_MARKER in old:
        text += old.split(NOTES_MARKER, 1)[1].lstrip("\n")
    else:
        text += "\n## Notes\n\n(none yet)\n"
    return text


def quiet_logging(path: Path) -> None:
    """The in-process service logs as in production (one JSON line per call, INFO) but into a file,
    so the table stays readable; the client side's per-request INFO lines (httpx) are dropped."""
    import logging

    from service.logging_setup import configure_logging

    configure_logging("INFO")
    handler = logging.getLogger().handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    handler.setStream(open(path, "a"))  # noqa: SIM115 - lives as long as the run
    for name in ("httpx", "httpcore", "mcp.client"):
        logging.getLogger(name).setLevel(logging.WARNING)


SECTIONS = {
    "floor": bench_floor,
    "tools": bench_tools,
    "ledger": bench_ledger,
    "search": bench_search,
    "durability": bench_durability,
    "peer": bench_peer,
    "scale": bench_scale,
}


async def main_async(options: argparse.Namespace) -> int:
    plan = QUICK if options.quick else FULL
    started = datetime.now(UTC)
    begin = time.perf_counter()
    report = Report()
    selected = options.only.split(",") if options.only else list(SECTIONS)
    with tempfile.TemporaryDirectory(prefix="taste-bench-") as tmp:
        work = Path(tmp)
        quiet_logging(work / "in-process.log")
        report.load.append(f"start {os.getloadavg()[0]:.2f}")
        for key in selected:
            section_start = time.perf_counter()
            await SECTIONS[key](report, plan, work)
            report.load.append(f"{key} {os.getloadavg()[0]:.2f}")
            print(f"  [{key}: {time.perf_counter() - section_start:.1f} s, load {os.getloadavg()[0]:.2f}]", flush=True)
    seconds = time.perf_counter() - begin
    report.targets = judge(report, plan)
    print("\n== Targets")
    for line in report.targets:
        print(line)
    out = Path(options.out)
    command = "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(__file__, Path.cwd()), *sys.argv[1:]])
    old = out.read_text() if out.exists() else None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(document(report, plan, command, started, seconds, old))
    print(f"\nwrote {out} ({seconds:.0f} s)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="every row, small sizes, few iterations (< 2 min)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "PERFORMANCE.md"), help="where to write the report")
    parser.add_argument("--only", default="", help=f"comma-separated sections: {','.join(SECTIONS)} (default: all)")
    options = parser.parse_args()
    os.environ.pop("MEMORY_JOURNAL", None)
    for name in list(os.environ):
        if name.startswith("MEMORY_"):
            del os.environ[name]
    try:
        return asyncio.run(main_async(options))
    except BaseExceptionGroup as group:  # the SDK's task groups nest the real error deeply
        for leaf in _leaves(group):
            print(f"bench.py failed: {type(leaf).__name__}: {leaf}", file=sys.stderr)
        raise SystemExit(1) from None


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


if __name__ == "__main__":
    sys.exit(main())
