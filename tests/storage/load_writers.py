"""Writers for the backup-under-load test: sessions that write continuously and remember when each
write was acknowledged, so a backup can be held to every write acknowledged before it began.

Each session writes one call at a time (profile patches under a key of its own, preference
events, creates and mutations of playlists of its own), so the order of its own writes is known;
several sessions share a user, so the user's documents are written concurrently.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from tests.support import EnvelopeCaller, playlist, track

SESSIONS = 16
USERS = (101, 102, 103, 104)
PLAYLISTS_PER_SESSION = 2
MAX_BACKOFFS = 200  # RATE_LIMITED answers one call may wait out before the test gives up on it


@dataclass
class Ack:
    """One acknowledged write: what it was and when its answer arrived (time.monotonic())."""

    at: float
    kind: str  # "profile" | "event" | "create" | "mutation"
    key: str  # profile: the session's key; event: event_id; create: playlist_id; mutation: event_id
    value: Any = None  # profile: the counter written; mutation: its playlist_id


@dataclass
class Writer:
    index: int
    rng: random.Random
    acks: list[Ack] = field(default_factory=list)
    backoffs: int = 0
    counter: int = 0
    created: list[str] = field(default_factory=list)
    sent_mutations: dict[str, list[str]] = field(default_factory=dict)  # pid -> client_event_ids sent

    @property
    def user(self) -> int:
        return USERS[self.index % len(USERS)]

    @property
    def profile_key(self) -> str:
        return f"writer_{self.index}"

    def pid(self, n: int) -> str:
        return playlist(5000 + self.index * 10 + n)

    async def call(self, caller: EnvelopeCaller, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The tool's result; RATE_LIMITED is waited out as ``retry_after_s`` says (the limiter
        refuses before anything is done, so sending again is safe), any other error fails."""
        for _ in range(MAX_BACKOFFS):
            envelope = await caller(tool, arguments)
            error = envelope.get("error") or {}
            if envelope["success"]:
                return dict(envelope["result"])
            assert error.get("code") == "RATE_LIMITED", f"{tool}({str(arguments)[:200]}) failed: {error}"
            self.backoffs += 1
            await asyncio.sleep(float(error["details"]["retry_after_s"]))
        raise AssertionError(f"{tool} still RATE_LIMITED after {MAX_BACKOFFS} waits")

    async def step(self, caller: EnvelopeCaller) -> None:
        self.counter += 1
        choice = self.rng.choice(["profile", "event", "event", "playlist", "playlist"])
        if choice == "profile":
            patch = {self.profile_key: self.counter}
            result = await self.call(caller, "memory_update_profile", {"user_id": self.user, "patch": patch})
            self.acks.append(Ack(time.monotonic(), "profile", self.profile_key, self.counter))
            assert result["profile"][self.profile_key] == self.counter
        elif choice == "event":
            arguments = {
                "user_id": self.user,
                "type": self.rng.choice(["like", "dislike", "note"]),
                "source": "user",
                "payload": {"raw_text": f"writer {self.index} note {self.counter}"},
            }
            result = await self.call(caller, "memory_append_preference_event", arguments)
            self.acks.append(Ack(time.monotonic(), "event", result["event_id"]))
        elif len(self.created) < PLAYLISTS_PER_SESSION:
            pid = self.pid(len(self.created))
            arguments = {
                "user_id": self.user,
                "playlist_id": pid,
                "name": f"writer {self.index} list",
                "track_ids": [track(self.index * 1000 + n) for n in range(3)],
            }
            await self.call(caller, "memory_log_playlist_create", arguments)
            self.created.append(pid)
            self.sent_mutations[pid] = []
            self.acks.append(Ack(time.monotonic(), "create", pid))
        else:
            pid = self.rng.choice(self.created)
            client_event_id = str(uuid.uuid4())
            self.sent_mutations[pid].append(client_event_id)
            arguments = {
                "user_id": self.user,
                "playlist_id": pid,
                "type": "ADD_TRACKS",
                "payload": {"track_ids": [track(self.index * 1000 + 100 + self.counter)]},
                "client_event_id": client_event_id,
            }
            result = await self.call(caller, "memory_log_playlist_mutation", arguments)
            self.acks.append(Ack(time.monotonic(), "mutation", result["event_id"], pid))

    def acknowledged_before(self, moment: float) -> list[Ack]:
        return [ack for ack in self.acks if ack.at < moment]


def missing_from(exported: dict[str, Any], writer: Writer, moment: float) -> list[str]:
    """Writes of ``writer`` acknowledged before ``moment`` that the user's export does not hold,
    and playlist events it holds that the writer never sent (each named for the failure)."""
    problems: list[str] = []
    events = {e["event_id"] for e in exported["preference_events"]}
    playlists = {p["playlist_id"]: p for p in exported["playlists"]}
    profile = (exported.get("profile") or {}).get("profile") or {}
    for ack in writer.acknowledged_before(moment):
        if ack.kind == "profile":
            if profile.get(ack.key, 0) < ack.value:
                problems.append(f"profile {ack.key}: {profile.get(ack.key)} is older than the acknowledged {ack.value}")
        elif ack.kind == "event" and ack.key not in events:
            problems.append(f"preference event {ack.key}")
        elif ack.kind == "create" and ack.key not in playlists:
            problems.append(f"playlist {ack.key}")
        elif ack.kind == "mutation":
            held = {e["event_id"] for e in playlists.get(ack.value, {}).get("events", [])}
            if ack.key not in held:
                problems.append(f"mutation {ack.key} of {ack.value}")
    for pid, sent in writer.sent_mutations.items():
        stored = [e.get("client_event_id") for e in playlists.get(pid, {}).get("events", [])]
        # One writer sends one mutation at a time: what is stored is a prefix of what it sent.
        if stored != sent[: len(stored)]:
            problems.append(f"{pid}: stored events are not a prefix of the writer's own ({len(stored)} stored)")
    return problems
