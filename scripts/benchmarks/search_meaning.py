"""``scripts/bench_search.py``'s measurements, one (size, semantic mode) per fresh process.

A fresh process per mode keeps the modes apart: RSS (read from ``/proc/self/status``, not the
``getrusage`` high-water mark), the model's word cache and the allocator's arenas of one mode never
reach the other's figures. ``measure`` answers a JSON-ready dict; ``model_load`` times the one-off
construction of the embedding model (``shared_model``'s ``lru_cache`` would hide it in-process).
"""

from __future__ import annotations

import asyncio
import gc
import tempfile
import time
from datetime import UTC
from pathlib import Path
from typing import Any

from service.facade import MemoryService
from service.search.semantic.model import shared_model
from service.search.semantic.user import UserMeaning
from service.settings import Settings
from service.storage.database import open_database
from service.storage.embedded.engine import _mock_collection
from service.users import stats as user_stats
from tests.search.corpus import MAIN_USER, build_corpus
from tests.search.evaluate import evaluate
from tests.search.paraphrases import PARAPHRASES
from tests.search.queries import QUERIES

from .report import pct

TICK_S = 0.001


def rss_mb(field: str = "VmRSS") -> float:
    """The process's resident set (or ``VmHWM``, its peak) in MB, from /proc/self/status."""
    gc.collect()
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def documents(size: int) -> tuple[list[dict], list[dict], list[dict], dict[str, str]]:
    """Raw documents of a corpus of about ``size`` items for the main user."""
    half = max(0, (size - 45) // 2)
    corpus = build_corpus(seed=size, filler_playlists=half, filler_events=half, other_users_share=0.0)
    ids = dict(corpus.anchor_playlists)
    playlists, events, profiles = [], [], []
    for user_id, items in corpus.playlists.items():
        for p in items:
            playlists.append(
                {
                    "_id": f"{user_id}:{p['playlist_id']}",
                    "user_id": user_id,
                    "playlist_id": p["playlist_id"],
                    "name": p["name"],
                    "description": p.get("description"),
                    "intent_tags": p.get("intent_tags", []),
                    "seed_context": p.get("seed_context", {}),
                    "created_at": p["created_at"],
                    "updated_at": p["created_at"],
                }
            )
    for user_id, items in corpus.events.items():
        for n, e in enumerate(items):
            event_id = f"ev-{user_id}-{n:08d}"
            if e["key"] and user_id == MAIN_USER:
                ids[e["key"]] = event_id
            events.append(
                {
                    "_id": event_id,
                    "user_id": user_id,
                    "type": e["type"],
                    "source": "user",
                    "payload": e["payload"],
                    "timestamp": e["timestamp"],
                }
            )
    for user_id, profile in corpus.profiles.items():
        profiles.append(
            {
                "_id": user_id,
                "user_id": user_id,
                "profile": profile,
                "version": 1,
                "updated_at": e["timestamp"].astimezone(UTC),
            }
        )
        if user_id == MAIN_USER:
            ids.update({f"profile:{k}": f"profile:{k}" for k in profile})
    return playlists, events, profiles, ids


def summary(samples: list[float]) -> dict[str, float]:
    return {
        "n": len(samples),
        "p50": pct(samples, 50),
        "p95": pct(samples, 95),
        "p99": pct(samples, 99),
        "max": max(samples) if samples else float("nan"),
    }


async def build_with_ticker(service: MemoryService) -> tuple[int, float, float, list[float]]:
    """(entries, build seconds, longest ticker gap in ms, seconds spent in each flush_async)."""
    embedding: list[float] = []
    original = UserMeaning.flush_async

    async def timed_flush(self: UserMeaning) -> None:
        started = time.perf_counter()
        await original(self)
        embedding.append(time.perf_counter() - started)

    UserMeaning.flush_async = timed_flush  # type: ignore[method-assign]
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(TICK_S)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticking = asyncio.ensure_future(ticker())
    await asyncio.sleep(0)  # the ticker has started before the build does
    try:
        entries, seconds = await service.build_search_index()
    finally:
        done.set()
        await ticking
        UserMeaning.flush_async = original  # type: ignore[method-assign]
    return entries, seconds, max(gaps, default=0.0) * 1000, embedding


async def timed_searches(service: MemoryService, queries: list[tuple[str, str, str]], repeat: int) -> list[float]:
    timings = []
    for _ in range(repeat):
        for query, _, _ in queries:
            started = time.perf_counter()
            await service.search.search(MAIN_USER, query, 25)
            timings.append((time.perf_counter() - started) * 1000)
    return timings


async def timed_writes(service: MemoryService, writes: int) -> dict[str, Any]:
    """Writes on the built index, each with a word of its own (as a new artist or title brings)."""
    appends, creates = [], []
    for i in range(writes):
        text = f"Loved the mellow synthpop of artist{i:05d}x while cooking"
        started = time.perf_counter()
        await service.profiles.append_event(MAIN_USER, "note", {"raw_text": text}, "user", None)
        appends.append((time.perf_counter() - started) * 1000)
    for i in range(max(1, writes // 4)):
        arguments = {
            "user_id": MAIN_USER,
            "playlist_id": f"bench-{i:05d}",
            "name": f"Rainy Sunday {i} mixtape{i}z",
            "description": "Slow piano and soft vocals for grey mornings",
            "intent_tags": ["calm", "rain"],
            "track_ids": [f"spotifytrack{i * 10 + k:012d}" for k in range(10)],
            "seed_context": {},
        }
        started = time.perf_counter()
        await service.playlists.create(arguments, None)
        creates.append((time.perf_counter() - started) * 1000)
    out: dict[str, Any] = {"append": summary(appends), "create": summary(creates)}
    index = service.search.held_index(MAIN_USER)
    meaning = index.meaning if index is not None else None
    if meaning is not None:
        noted = meaning.pending
        entries = len(getattr(meaning, "_pending_entries", ())) or noted
        started = time.perf_counter()
        meaning.flush()
        out["flush_batch_ms"] = (time.perf_counter() - started) * 1000
        out["flush_batch_items"], out["flush_batch_entries"] = noted, entries
        singles = []
        for i in range(max(5, writes // 10)):
            text = f"Another note about band{i:05d}y and the mellow synthpop"
            await service.profiles.append_event(MAIN_USER, "note", {"raw_text": text}, "user", None)
            started = time.perf_counter()
            meaning.flush()
            singles.append((time.perf_counter() - started) * 1000)
        out["flush_single"] = summary(singles)
    return out


async def measure(size: int, semantic: bool, repeat: int, writes: int) -> dict[str, Any]:
    """One (size, semantic mode) in this fresh process. Documents are written straight into the
    embedded store (loading 50k items through the tools would measure the writes, not the search);
    the index is then built exactly as start-up builds it. What is timed, in order:

    * the start-up build (``MemoryService.build_search_index``, as the server's warm-up runs it, after
      ``user_stats.recount_all`` as start-up runs it), the model loaded before it so the build is the
      index alone; its embedding part is the time spent in ``UserMeaning.flush_async``, the lexical
      part the rest; meanwhile a ticker coroutine (``asyncio.sleep(0.001)`` in a loop) records the
      longest gap between its wake-ups: the longest stretch the build holds the event loop;
    * searches (limit 25) over the existing labelled queries and over the paraphrases, ``repeat``
      passes each, no warm-up pass, and MRR / top-5 of each set (limit 10, as the tests);
    * writes on the built index: ``append_preference_event`` and ``log_playlist_create`` (writes only
      note what to embed), then ``UserMeaning.flush`` of everything they noted (what the next search
      pays), and the flush after a single write.
    """
    row: dict[str, Any] = {"size": size, "semantic": semantic, "rss_start": rss_mb()}
    playlists, events, profiles, ids = documents(size)
    row["items"] = sum(1 for d in playlists + events if d["user_id"] == MAIN_USER) + len(
        next(p["profile"] for p in profiles if p["user_id"] == MAIN_USER)
    )
    with tempfile.TemporaryDirectory() as data_dir:
        settings = Settings(data_dir=Path(data_dir), semantic_search="on" if semantic else "off", search_warmup=False)
        async with open_database(settings) as db:
            for name, docs in (("playlists", playlists), ("preference_events", events), ("profiles", profiles)):
                store = _mock_collection(db._embedded.client, settings.database_name, name)._store
                for doc in docs:  # straight into the store, as start-up loads the journal
                    store[doc["_id"]] = doc
            await user_stats.recount_all(db)  # as start-up does: the warm-up lists users from these
            del playlists, events
            service = MemoryService(db, settings)
            row["rss_store"] = rss_mb()
            if semantic:
                started = time.perf_counter()
                shared_model()
                row["model_s"] = time.perf_counter() - started
            row["rss_model"] = rss_mb()
            entries, seconds, row["stall_ms"], embedding = await build_with_ticker(service)
            row.update(
                entries=entries, build_s=seconds, embed_s=sum(embedding), rss_built=rss_mb(), hwm_built=rss_mb("VmHWM")
            )
            index = service.search.held_index(MAIN_USER)
            if index is not None and index.meaning is not None:
                sets = index.meaning.entries  # one VectorSet, or one per kind
                sets = list(sets.values()) if isinstance(sets, dict) else [sets]
                row["vectors_mb"] = sum(v.nbytes for v in [*sets, index.meaning.words]) / 2**20
                row["words"] = len(index.meaning.words)
            row["search"] = {
                name: summary(await timed_searches(service, queries, repeat))
                for name, queries in (("existing", QUERIES), ("paraphrase", PARAPHRASES))
            }
            row["quality"] = {
                name: (await evaluate(service, ids, queries=queries))["all"]
                for name, queries in (("existing", QUERIES), ("paraphrase", PARAPHRASES))
            }
            row["writes"] = await timed_writes(service, writes)
    return row


def model_load() -> dict[str, float]:
    """One construction of the embedding model in this (fresh) process: seconds and RSS growth."""
    from service.search.semantic.model import EmbeddingModel

    before = rss_mb()
    started = time.perf_counter()
    model = EmbeddingModel()
    seconds = time.perf_counter() - started
    after = rss_mb()
    started = time.perf_counter()
    model.embed(["songs to help an infant doze off"])
    return {"load_s": seconds, "rss_mb": after - before, "first_embed_ms": (time.perf_counter() - started) * 1000}
