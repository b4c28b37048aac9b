"""The event lines the embedded engine keeps between calls (``service.context.kept``) give the block
and diagnostics that reading every event afresh gives (the MongoDB path, ``_read_whole``), on random
histories written one event at a time: back-dated events, equal timestamps, subjects liked and
disliked in turn, pairwise choices, memories of the same importance and moment as events, any
budget and focus; and after a forget, an import and a failed call, nothing stale is served.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from host.running import ServiceHolder, running_service
from service.facade import MemoryService
from service.profiles.choices import choice_payload
from service.settings import Settings

USER, OTHER = 7, 8
BASE = datetime(2025, 1, 1, tzinfo=UTC)
NAMES = ["Nightwish", "Epica", "the Zombies", "Delain", "Mötley Crüe"]
GENRES = ["symphonic metal", "baroque pop", "synthwave"]
BUDGETS = [50, 90, 160, 300, 800, 4000]
FOCUSES = [None, "nightwish", "symphonic metal", "epica delain", "nothing matches this"]


@contextmanager
def read_whole(service: MemoryService) -> Iterator[None]:
    """The service as on MongoDB: nothing kept, every event read by the call."""
    kept, service.context._kept = service.context._kept, None
    try:
        yield
    finally:
        service.context._kept = kept


async def assert_same_as_read_whole(service: MemoryService, user: int = USER) -> None:
    assert service.context._kept is not None
    for focus in FOCUSES:
        for budget in BUDGETS:
            kept = await service.context.get_context(user, budget, focus)
            with read_whole(service):
                whole = await service.context.get_context(user, budget, focus)
            assert kept == whole, (budget, focus)


def moment(rng: random.Random) -> datetime:
    # Few distinct moments: equal timestamps and back-dated writes are common.
    return BASE + timedelta(hours=rng.randrange(40))


def opinion(rng: random.Random, n: int) -> dict[str, Any]:
    payload: dict[str, Any] = {}
    field = rng.choice(["artist", "genre", "subject", "track_id", None])
    if field == "genre":
        payload["genre"] = rng.choice(GENRES)
    elif field is not None:
        payload[field] = rng.choice(NAMES)
    if rng.random() < 0.7:
        payload["raw_text"] = f"said {n} " + "long " * rng.randrange(0, 30)
    return payload


async def write_one(service: MemoryService, rng: random.Random, n: int, user: int = USER) -> None:
    roll = rng.random()
    when = moment(rng)
    if roll < 0.6:
        kind = rng.choice(["like", "like", "dislike", "rule"])
        await service.profiles.append_event(user, kind, opinion(rng, n), "user", when)
    elif roll < 0.8:
        chose, over = rng.sample(NAMES, 2)
        payload = choice_payload({"kind": "artist", "name": chose}, {"kind": "artist", "name": over}, None, None)
        await service.profiles.append_event(user, "feedback", payload, "user", when)
    elif roll < 0.9:
        kind = rng.choice(["insight", "feedback", "recommendation"])
        metadata = {"sentiment": rng.choice(["positive", "negative"])} if kind == "feedback" else {}
        await service.memories.add(
            user, kind, [rng.choice(NAMES)], f"memory {n}", rng.choice([6, 7, 9]), metadata, when, True
        )
    else:
        await service.profiles.append_event(user, rng.choice(["note", "feedback"]), {"raw_text": f"n{n}"}, "user", when)


def settings_at(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", semantic_search="off")


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_kept_lines_give_the_block_reading_everything_gives(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    async with running_service(settings_at(tmp_path), ServiceHolder()) as service:
        await service.profiles.update(USER, {"likes": ["Nightwish"], "avoid": ["Epica"]}, None, "user", True)
        await service.context.get_context(USER, 800)  # kept from here on: every write below goes through the hook
        for n in range(90):
            await write_one(service, rng, n)
            if n % 30 == 29:
                await assert_same_as_read_whole(service)
        served = await service.context.get_context(USER, 800, "nightwish")
        service.context._kept.forget(USER)  # a build from the store gives the same
        assert await service.context.get_context(USER, 800, "nightwish") == served


async def test_a_build_is_the_same_on_a_long_history(tmp_path: Path) -> None:
    rng = random.Random(9)
    async with running_service(settings_at(tmp_path), ServiceHolder()) as service:
        for n in range(300):
            await write_one(service, rng, n)
        await assert_same_as_read_whole(service)


async def test_forget_import_and_a_failed_call_leave_nothing_stale(tmp_path: Path) -> None:
    rng = random.Random(4)
    async with running_service(settings_at(tmp_path), ServiceHolder()) as service:
        for n in range(40):
            await write_one(service, rng, n)
            await write_one(service, rng, n, OTHER)
        await service.context.get_context(USER, 800)
        exported = await service.transfer.export_all(USER)
        like = await service.profiles.append_event(USER, "like", {"artist": "Forgotten Band"}, "user", None)
        assert "Forgotten Band" in (await service.context.get_context(USER, 4000))["block"]
        await service.forgetter.forget(USER, "preference_event", like["event_id"])
        assert "Forgotten Band" not in (await service.context.get_context(USER, 4000))["block"]
        await assert_same_as_read_whole(service)

        # A call that fails after its event was written and taken into the kept lines: the store
        # undoes the event, and the kept lines go with it.
        async def fail(user_id: int, event_id: str) -> None:
            kept = service.context._kept.get(user_id)
            assert kept is not None and event_id in kept.seen  # the line was taken in
            raise RuntimeError("fails after the write")

        service.profiles.on_event_appended(fail)
        with pytest.raises(RuntimeError):
            await service.profiles.append_event(USER, "like", {"artist": "Undone Band"}, "user", None)
        service.profiles._appended.remove(fail)
        assert service.context._kept.get(USER) is None
        assert "Undone Band" not in (await service.context.get_context(USER, 4000))["block"]
        await assert_same_as_read_whole(service)

        await service.transfer.import_user([exported], USER, replace=True)
        await assert_same_as_read_whole(service)
        await assert_same_as_read_whole(service, OTHER)
