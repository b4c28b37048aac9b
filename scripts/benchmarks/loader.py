"""Bulk loading through ``MemoryService``'s own write paths: no MCP, one commit per batch, so a
store of thousands of users builds in seconds and holds exactly what the tools would write."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from host.running import ServiceHolder, running_service
from service.facade import MemoryService
from service.playlists.service import PlaylistService
from service.profiles.service import ProfileService
from service.settings import Settings

from .constants import ROOT, T0
from .data import ARTISTS, EVENT_TYPES, GENRES, MOODS, MutationGenerator, artist, playlist_id, preference_text, track
from .plan import UserSize

WRITER = 900_000  # the user the write tools write to (creates, appends, mutations)
BATCH = 2000  # writes per commit while bulk loading


def _raw(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """A facade method without its per-call commit: bulk loads commit once per batch."""
    return getattr(method, "__wrapped__", method)


class Loader:
    """Bulk-loads a store through MemoryService's own write paths (no MCP, one commit per batch)."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service
        self.profile = json.loads((ROOT / "models" / "seed_profile.json").read_text())
        self.pending = 0
        # The generator of the last playlist loaded: a caller may go on mutating where the load stopped.
        self.last_generator: MutationGenerator | None = None

    async def tick(self) -> None:
        self.pending += 1
        if self.pending >= BATCH:
            self.commit()

    def commit(self) -> None:
        self.service.database.commit()
        self.pending = 0

    async def event(self, user: int, i: int, rng: random.Random, when: datetime) -> str:
        text, payload = preference_text(rng, i)
        await _raw(ProfileService.append_event)(
            self.service.profiles, user, EVENT_TYPES[i % len(EVENT_TYPES)], payload, "user", when
        )
        await self.tick()
        return text

    async def playlist(
        self,
        user: int,
        n: int,
        tracks: int,
        mutations: int,
        rng: random.Random,
        start: datetime,
        step: timedelta = timedelta(minutes=1),
        timings: list[float] | None = None,
    ) -> list[dict[str, Any]]:
        """Create a playlist and log ``mutations`` changes; returns the raw event log. With
        ``timings``, each mutation goes through the public (committing) facade method and its
        milliseconds are appended there: the cost of one mutation as a tool call pays it."""
        first = [track(user * 10_000_000 + n * 100_000 + j) for j in range(tracks)]
        arguments = {
            "user_id": user,
            "playlist_id": playlist_id(user, n),
            "name": f"{rng.choice(MOODS)} {rng.choice(GENRES)} #{n}",
            "description": f"{rng.choice(MOODS)} mix with {artist(rng.randrange(ARTISTS))} and friends",
            "track_ids": first,
            "intent_tags": rng.sample(MOODS, 3),
            "seed_context": {
                "days": 30,
                "top_artists": [artist(rng.randrange(ARTISTS)) for _ in range(3)],
                "genres": rng.sample(GENRES, 2),
            },
        }
        await _raw(PlaylistService.create)(self.service.playlists, arguments, start)
        await self.tick()
        log = [{"type": "CREATE", "timestamp": start, **{k: v for k, v in arguments.items() if k != "user_id"}}]
        generator = MutationGenerator(rng, first, user * 10_000_000 + n * 100_000 + 50_000)
        if timings is not None:
            self.commit()  # the timed mutations commit one by one, after the creation
        for i in range(mutations):
            kind, payload = next(generator)
            when = start + step * (i + 1)
            mutation = {"user_id": user, "playlist_id": arguments["playlist_id"], "type": kind, "payload": payload}
            if timings is None:
                await _raw(PlaylistService.mutate)(self.service.playlists, mutation, when)
                await self.tick()
            else:
                began = time.perf_counter()
                await self.service.playlists.mutate(mutation, when)
                timings.append((time.perf_counter() - began) * 1000)
            log.append({"type": kind, "timestamp": when, "payload": payload})
        self.last_generator = generator
        return log

    async def user(self, user: int, size: UserSize, seed: int) -> None:
        """A realistic user: the PRD example profile, preference events, playlists with histories."""
        rng = random.Random(seed)
        await _raw(ProfileService.update)(self.service.profiles, user, self.profile, "seed", "user", True)
        for i in range(size.events):
            await self.event(user, i, rng, T0 + timedelta(minutes=i))
        for n in range(size.playlists):
            await self.playlist(user, n, size.tracks, size.mutations, rng, T0 + timedelta(days=1 + n))

    async def small_user(self, user: int) -> None:
        """A small user: a short profile, two preference events, one 10-track playlist."""
        rng = random.Random(user)
        patch = {"core_genres": rng.sample(GENRES, 2), "energy_preferences": {"default": rng.choice(MOODS)}}
        await _raw(ProfileService.update)(self.service.profiles, user, patch, "seed", "user", True)
        for i in range(2):
            await self.event(user, i, rng, T0 + timedelta(minutes=i))
        await self.playlist(user, 0, 10, 0, rng, T0 + timedelta(days=1))


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
    async with running_service(Settings(data_dir=data_dir), ServiceHolder()) as service:
        await populate(service, users, size, writer_playlists)
    return time.perf_counter() - start


async def build_small_store(data_dir: Path, users: int) -> float:
    """Users 1..users, each small; seconds taken."""
    start = time.perf_counter()
    async with running_service(Settings(data_dir=data_dir), ServiceHolder()) as service:
        loader = Loader(service)
        for user in range(1, users + 1):
            await loader.small_user(user)
        loader.commit()
    return time.perf_counter() - start
