"""Context: ``memory_get_context`` (budget 800) as a life of listening grows: one store holding users
of growing histories (preference events and typed memories) and an empty one, each measured in
process; then the same call right after a preference event was written, each time."""

from __future__ import annotations

import random
import time
from datetime import timedelta
from pathlib import Path

from host.running import ServiceHolder, running_service
from service.facade import MemoryService
from service.memories.service import MemoryStore
from service.profiles.choices import choice_payload
from service.profiles.service import ProfileService
from service.settings import Settings

from ..calling import Call, timed
from ..constants import T0
from ..context import Run
from ..data import ARTISTS, PHRASES, artist
from ..loader import Loader, _raw
from ..plan import warm
from ..processes import in_process
from ..report import ms, pct

EMPTY = 999_999  # a user with nothing stored, in the same store
MEMORY_TYPES = ["insight", "feedback", "recommendation", "event", "discussion"]
BUDGET = 800


async def load_history(service: MemoryService, loader: Loader, user: int, size: int) -> None:
    """``size`` preference events (like, dislike, rule, feedback, note; one in ten a pairwise
    choice) and ``size`` typed memories (insights, feedback, due recommendations...), through the
    service's own write paths, one commit per batch (``Loader``)."""
    rng = random.Random(user)
    await _raw(ProfileService.update)(service.profiles, user, loader.profile, "seed", "user", True)
    for i in range(size):
        when = T0 + timedelta(minutes=i)
        if i % 10 == 9:
            a = rng.randrange(ARTISTS)
            b = (a + 1 + rng.randrange(ARTISTS - 1)) % ARTISTS
            payload = choice_payload(
                {"kind": "artist", "name": artist(a)}, {"kind": "artist", "name": artist(b)}, None, None
            )
            await _raw(ProfileService.append_event)(service.profiles, user, "feedback", payload, "user", when)
            await loader.tick()
        else:
            await loader.event(user, i, rng, when)
    for i in range(size):
        kind = MEMORY_TYPES[i % len(MEMORY_TYPES)]
        metadata = {"sentiment": rng.choice(["positive", "negative"])} if kind == "feedback" else None
        await _raw(MemoryStore.add)(
            service.memories,
            user,
            kind,
            [artist(rng.randrange(ARTISTS)), f"album {i}"],
            f"{rng.choice(PHRASES)} ({i})",
            rng.randint(1, 10),
            metadata,
            T0 + timedelta(minutes=i),
            True,
        )
        await loader.tick()


async def build(data_dir: Path, sizes: tuple[int, ...]) -> float:
    start = time.perf_counter()
    async with running_service(Settings(data_dir=data_dir), ServiceHolder()) as service:
        loader = Loader(service)
        for user, size in enumerate(sizes, start=1):
            await load_history(service, loader, user, size)
        loader.commit()
    return time.perf_counter() - start


async def run(ctx: Run) -> None:
    report, plan, work = ctx.report, ctx.plan, ctx.work
    sizes = plan.context_sizes
    store = work / "context"
    seconds = await build(store, sizes)
    section = report.section(
        "context",
        f"Context: memory_get_context (budget {BUDGET}) by the size of the user's history, in process",
        ["events / memories", "first call", "calls", "p50", "p95", "after a write p50", "after a write p95"],
        f"One store holds every user below (and nothing else), built in {seconds:.0f} s through the "
        "service's write paths: per user N preference events (like, dislike, rule, feedback, note; one "
        "in ten a pairwise choice) and N typed memories (insight, feedback, recommendation, event, "
        "discussion; random importance), the PRD example profile. *First call*: the user's first block "
        "since start-up (the embedded engine then reads the whole history once). *p50 / p95*: "
        f"{plan.context_iters} calls {warm(plan)}; *calls*: timed calls, then timed calls after a write. *After a write*: each timed call follows a "
        "memory_append_preference_event (a like) of the same user, untimed (the same sampling).",
    )
    async with in_process(store) as (call, _):
        for user, size in [(EMPTY, 0), *enumerate(sizes, start=1)]:
            args = {"user_id": user, "budget_tokens": BUDGET}
            began = time.perf_counter()
            await call("memory_get_context", args)
            first = (time.perf_counter() - began) * 1000
            plain = await timed(
                lambda i, a=args: call("memory_get_context", a), plan.context_iters, plan.warmup, plan.budget
            )
            written = await _after_writes(call, user, plan.context_iters, plan.budget)
            label = "context, empty user" if size == 0 else f"context {size:,} / {size:,}"
            report.values[f"context.{size}.p50"] = pct(plain, 50)
            report.values[f"context.{size}.written.p50"] = pct(written, 50)
            cells = [ms(pct(plain, 50)), ms(pct(plain, 95)), ms(pct(written, 50)), ms(pct(written, 95))]
            section.add(label, [ms(first), f"{len(plain)} / {len(written)}", *cells])


async def _after_writes(call: Call, user: int, n: int, budget: float | None) -> list[float]:
    """get_context timed right after each of ``n`` likes; stops as ``timed`` does once ``budget`` is spent."""
    samples: list[float] = []
    began = time.perf_counter()
    for i in range(n):
        if budget is not None and len(samples) >= 10 and time.perf_counter() - began > budget:
            break
        payload = {"artist": artist(i * 31), "raw_text": f"another one {i}"}
        await call("memory_append_preference_event", {"user_id": user, "type": "like", "payload": payload})
        start = time.perf_counter()
        await call("memory_get_context", {"user_id": user, "budget_tokens": BUDGET})
        samples.append((time.perf_counter() - start) * 1000)
    return samples
