"""One load-test session: a seeded mix of reads, writes, exports and deletes on its own users,
backing off on RATE_LIMITED as an agent must, bounded in time and in calls."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any

from mcp.client.client import Client
from mcp.shared.exceptions import MCPError
from mcp.types import REQUEST_TIMEOUT

from .calling import envelope_of
from .data import QUERIES, preference_text, track
from .workload import VICTIM_BASE

# (action, weight in 100): 56% reads, 34% writes, 4% exports, 6% deletes (a delete with no victim
# ready makes one first: two write calls, so about 3% of calls are deletes).
MIX = [
    ("memory_get_profile", 14),
    ("memory_get_playlists", 8),
    ("memory_get_playlist", 8),
    ("memory_reconstruct_playlist", 10),
    ("memory_search", 12),
    ("ops_list_users", 4),
    ("memory_append_preference_event", 12),
    ("memory_log_playlist_mutation", 12),
    ("memory_update_profile", 6),
    ("memory_log_playlist_create", 4),
    ("memory_export_user_data", 4),
    ("memory_delete_user_data", 6),
]
CATEGORIES = ("reads", "writes", "exports", "deletes")
WRITES = {
    "memory_append_preference_event",
    "memory_log_playlist_mutation",
    "memory_update_profile",
    "memory_log_playlist_create",
}
MAX_BACKOFFS = 20  # per call; a call still refused after that counts as an error
MAX_BACKOFF_S = 10.0
LOSS_AFTER = 5  # consecutive failures after which a session counts as lost and stops


def category(tool: str) -> str:
    if tool == "memory_export_user_data":
        return "exports"
    if tool == "memory_delete_user_data":
        return "deletes"
    return "writes" if tool in WRITES else "reads"


@dataclass
class Outcome:
    latencies: list[float] = field(default_factory=list)  # ms of successful calls
    errors: list[str] = field(default_factory=list)
    timeouts: int = 0
    backoffs: int = 0  # RATE_LIMITED answers waited out

    def add(self, other: Outcome) -> None:
        self.latencies += other.latencies
        self.errors += other.errors
        self.timeouts += other.timeouts
        self.backoffs += other.backoffs


def victims_of(session: int, count: int) -> list[int]:
    return [VICTIM_BASE + session * 1000 + k for k in range(count)]


class LoadSession:
    def __init__(
        self, index: int, client: Client, reader: int, writer: int, victims: list[int], playlists: int, timeout: float
    ) -> None:
        self.index, self.client, self.reader, self.writer = index, client, reader, writer
        self.fresh_victims = list(reversed(victims))  # ids not used yet
        self.ready_victims: list[int] = []  # made, waiting to be deleted
        self.playlists = playlists  # the reader's playlists (realistic user)
        self.timeout = timeout
        self.rng = random.Random(1000 + index)  # what to call: the same sequence whatever the timing
        self.think_rng = random.Random(2000 + index)
        self.outcomes = {name: Outcome() for name in CATEGORIES}
        self.failures_in_row = 0
        self.lost = False
        self.created = 0
        self.mutated = 0
        self.mutable = f"load{index:02d}mutated"

    async def setup(self) -> None:
        """Untimed: the writer's profile, the playlist its mutations change, and a first victim, so
        even a short window deletes from its first delete on."""
        await self.call("memory_update_profile", {"user_id": self.writer, "patch": {"core_genres": ["folk"]}})
        await self.call(
            "memory_log_playlist_create",
            {"user_id": self.writer, "playlist_id": self.mutable, "name": "load", "track_ids": [track(1), track(2)]},
        )
        victim = self.fresh_victims.pop()
        if await self.call(
            "memory_log_playlist_create",
            {"user_id": victim, "playlist_id": f"victim{victim}", "name": "to delete", "track_ids": [track(3)]},
        ):
            self.ready_victims.append(victim)
        self.outcomes = {name: Outcome() for name in CATEGORIES}

    async def call(self, tool: str, arguments: dict[str, Any]) -> bool:
        outcome = self.outcomes[category(tool)]
        for _ in range(MAX_BACKOFFS + 1):
            start = time.perf_counter()
            try:
                result = await self.client.call_tool(tool, arguments, read_timeout_seconds=self.timeout)
            except Exception as exc:
                if (isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT) or "timed out" in str(exc).lower():
                    outcome.timeouts += 1
                else:
                    outcome.errors.append(f"{tool}: {type(exc).__name__}: {str(exc)[:200]}")
                return self.failed()
            elapsed = (time.perf_counter() - start) * 1000
            envelope = envelope_of(result)
            if isinstance(envelope, dict) and envelope.get("success") is True and not result.is_error:
                outcome.latencies.append(elapsed)
                self.failures_in_row = 0
                return True
            error = envelope.get("error") if isinstance(envelope, dict) else None
            error = error if isinstance(error, dict) else {}
            if error.get("code") == "RATE_LIMITED":
                outcome.backoffs += 1
                wait = (error.get("details") or {}).get("retry_after_s", 1.0)
                await asyncio.sleep(min(float(wait), MAX_BACKOFF_S))
                continue
            outcome.errors.append(f"{tool}: {error.get('code')}: {str(error.get('message'))[:200]}")
            return self.failed()
        outcome.errors.append(f"{tool}: still RATE_LIMITED after {MAX_BACKOFFS} back-offs")
        return self.failed()

    def failed(self) -> bool:
        self.failures_in_row += 1
        self.lost = self.failures_in_row >= LOSS_AFTER
        return False

    def next_call(self) -> tuple[str, dict[str, Any]]:
        tool = self.rng.choices([t for t, _ in MIX], weights=[w for _, w in MIX])[0]
        rng, reader, writer = self.rng, self.reader, self.writer
        if tool == "memory_delete_user_data":
            if self.ready_victims:
                return tool, {"user_id": self.ready_victims.pop(), "confirm": True}
            if self.fresh_victims:  # make one: it is deleted at a later draw
                victim = self.fresh_victims.pop()
                self.ready_victims.append(victim)
                return "memory_log_playlist_create", {
                    "user_id": victim,
                    "playlist_id": f"victim{victim}",
                    "name": "to delete",
                    "track_ids": [track(j) for j in range(10)],
                }
            tool = "memory_get_profile"  # no victim left: a read instead
        if tool == "memory_get_profile":
            return tool, {"user_id": reader}
        if tool == "memory_get_playlists":
            return tool, {"user_id": reader, "limit": 20}
        if tool in ("memory_get_playlist", "memory_reconstruct_playlist"):
            return tool, {"user_id": reader, "playlist_id": f"pl{reader:07d}x{rng.randrange(self.playlists):06d}"}
        if tool == "memory_search":
            return tool, {"user_id": reader, "query": rng.choice(QUERIES)}
        if tool == "ops_list_users":
            return tool, {"limit": 50}
        if tool == "memory_append_preference_event":
            return tool, {"user_id": writer, "type": "feedback", "payload": preference_text(rng, self.index)[1]}
        if tool == "memory_log_playlist_mutation":
            self.mutated += 1
            kind = "ADD_TRACKS" if self.mutated % 2 else "REMOVE_TRACKS"
            return tool, {
                "user_id": writer,
                "playlist_id": self.mutable,
                "type": kind,
                "payload": {"track_ids": [track(900_000 + self.index)]},
            }
        if tool == "memory_update_profile":
            return tool, {"user_id": writer, "patch": {"energy_preferences": {"load_level": rng.randrange(5)}}}
        if tool == "memory_log_playlist_create":
            self.created += 1
            return tool, {
                "user_id": writer,
                "playlist_id": f"load{self.index:02d}c{self.created:06d}",
                "name": f"load {self.created}",
                "track_ids": [track(j) for j in range(20)],
            }
        return "memory_export_user_data", {"user_id": reader}

    async def run(self, deadline: float, max_calls: int, think_s: float) -> None:
        """Call until the deadline (a call started before it may finish after), ``max_calls`` or a
        lost session, whichever comes first. ``think_s`` > 0: wait a random time of that mean
        before each call (exponential, at most 5× the mean), as an agent whose model thinks between
        tool calls; 0: call again at once (the server saturated)."""
        self.outcomes = {name: Outcome() for name in CATEGORIES}
        for _ in range(max_calls):
            if think_s > 0:
                pause = min(self.think_rng.expovariate(1 / think_s), 5 * think_s)
                await asyncio.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            if time.monotonic() >= deadline or self.lost:
                return
            tool, arguments = self.next_call()
            if not await self.call(tool, arguments) and arguments.get("user_id") in self.ready_victims:
                self.ready_victims.remove(arguments["user_id"])  # the victim was not made
