#!/usr/bin/env python
"""Typed memories: memory_add (restatements that deduplicate, new memories) and memory_query
(entity exact / folded / typo, text, filters only, combined) through the in-process MCP client at
100, 1,000 and 10,000 memories of one user, and at 100 with another user's 10,000 in the same
store; p50 / p95 / p99 in ms. ``--write`` puts the section into docs/PERFORMANCE.md.

    python scripts/bench_memories.py [--calls 200] [--write]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import unicodedata
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from benchmarks.constants import ROOT  # noqa: E402
from benchmarks.document import NOTES_MARKER, code_version, machine  # noqa: E402
from benchmarks.report import ms, pct  # noqa: E402

from host.loop_lag import watching_loop_lag  # noqa: E402
from service.settings import Settings  # noqa: E402
from tests.support import connected  # noqa: E402

ADJ = [
    "Velvet",
    "Crimson",
    "Silver",
    "Electric",
    "Hollow",
    "Midnight",
    "Golden",
    "Paper",
    "Neon",
    "Quiet",
    "Wild",
    "Frozen",
    "Broken",
    "Lunar",
    "Static",
    "Amber",
    "Scarlet",
    "Iron",
    "Glass",
    "Violet",
    "Copper",
    "Gentle",
    "Savage",
    "Northern",
    "Burning",
    "Sleeping",
    "Distant",
    "Marble",
    "Hidden",
    "Restless",
    "Crystal",
    "Wandering",
    "Polar",
    "Rusty",
    "Silent",
    "Bitter",
    "Cosmic",
    "Faded",
    "Honey",
    "Jagged",
    "Lucky",
    "Mellow",
    "Royal",
    "Shallow",
    "Tender",
    "Twisted",
    "Wooden",
    "Yellow",
]
NOUN = [
    "Zombie",
    "Lantern",
    "Harbor",
    "Comet",
    "Orchard",
    "Machine",
    "Sparrow",
    "Canyon",
    "Mirror",
    "Tide",
    "Engine",
    "Garden",
    "Signal",
    "Ghost",
    "River",
    "Forest",
    "Falcon",
    "Meadow",
    "Prophet",
    "Cathedral",
    "Monsoon",
    "Lighthouse",
    "Glacier",
    "Pilgrim",
    "Satellite",
    "Ember",
    "Thistle",
    "Raven",
    "Voyager",
    "Minaret",
    "Harvest",
    "Avalanche",
    "Tangerine",
    "Compass",
    "Serpent",
    "Balloon",
    "Saint",
    "Pylon",
    "Carousel",
    "Wolf",
    "Drifter",
    "Oracle",
    "Beacon",
    "Kingdom",
    "Marauder",
    "Nomad",
    "Quarry",
    "Rocket",
]
ACCENTED = [
    "Sigur Rós",
    "Björk",
    "Beyoncé",
    "Motörhead",
    "Mötley Crüe",
    "Céline Dion",
    "Françoise Hardy",
    "Röyksopp",
    "Ólafur Arnalds",
    "Blue Öyster Cult",
    "Hüsker Dü",
    "Jóhann Jóhannsson",
    "Måneskin",
    "Chloé",
]
# 302 names, each word in about 6 of them (3 artists, 3 albums): names share words now and then
NAMES = (
    ACCENTED
    + [f"The {a} {NOUN[(i + s) % 48]}s" for s in (0, 7, 19) for i, a in enumerate(ADJ)]
    + [f"{a} {NOUN[(i + s) % 48]}" for s in (3, 11, 29) for i, a in enumerate(ADJ)]
)
VOCAB = [
    "baroque",
    "pop",
    "arrangement",
    "harmonies",
    "strings",
    "chorus",
    "bridge",
    "melancholic",
    "upbeat",
    "loved",
    "skipped",
    "replay",
    "album",
    "track",
    "vinyl",
    "concert",
    "tour",
    "tickets",
    "festival",
    "venue",
    "guitar",
    "solo",
    "drums",
    "bass",
    "synth",
    "vocals",
    "falsetto",
    "lyrics",
    "production",
    "mix",
    "remaster",
    "acoustic",
    "live",
    "session",
    "debut",
    "sophomore",
    "classic",
    "underrated",
    "overplayed",
    "gym",
    "commute",
    "rainy",
    "sunday",
    "morning",
    "night",
    "road",
    "trip",
    "dinner",
    "party",
    "focus",
    "study",
    "workout",
    "breakup",
    "nostalgia",
    "summer",
    "winter",
    "discovery",
    "recommendation",
    "friend",
    "sister",
    "playlist",
    "radio",
    "shuffle",
    "repeat",
    "favourite",
    "hated",
    "boring",
    "catchy",
    "dark",
    "heavy",
    "gentle",
    "ambient",
    "orchestral",
    "cinematic",
    "folk",
    "jazz",
    "metal",
    "punk",
    "soul",
    "funk",
    "disco",
    "house",
    "techno",
    "reggae",
]
TYPES = ["recommendation", "insight", "event", "feedback", "discussion"]


def plain(name: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))


def spelled(name: str, rng: random.Random) -> str:
    """The same entity as people type it: case, a dropped "The", accents dropped."""
    return rng.choice([name, name, name.lower(), name.removeprefix("The "), plain(name), name.upper()])


def typo(name: str, rng: random.Random) -> str:
    """Two neighbouring letters of the longest word swapped."""
    words = name.split()
    i = max(range(len(words)), key=lambda k: len(words[k]))
    if len(w := words[i]) >= 5:
        j = rng.randrange(1, len(w) - 2)
        words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
    return " ".join(words)


def new_memory(rng: random.Random) -> dict:
    kind = rng.choices(TYPES, [3, 3, 1, 2, 2])[0]
    metadata = {
        "recommendation": {"reason": "like " + rng.choice(NAMES), "check_after_days": 7},
        "event": {"date": "2026-06-01"},
        "feedback": {"sentiment": rng.choice(["negative", "positive"])},
    }
    entities = rng.sample(NAMES, rng.choices([1, 2, 3], [6, 3, 1])[0])
    return {
        "type": kind,
        "entities": [spelled(e, rng) for e in entities],
        "metadata": metadata.get(kind, {}),
        "summary": " ".join(rng.choice(VOCAB) for _ in range(rng.randint(8, 25))).capitalize() + ".",
        "importance": rng.choices(range(1, 11), [1, 1, 3, 2, 6, 6, 6, 8, 5, 2])[0],
    }


def restatement(m: dict, rng: random.Random) -> dict:
    """The same type and entities (spelled anew), half its words again and three new ones, now."""
    words = m["summary"].rstrip(".").split()
    again = rng.sample(words, max(3, len(words) // 2)) + rng.sample(VOCAB, 3)
    return {
        "type": m["type"],
        "entities": [spelled(e, rng) for e in m["entities"]],
        "summary": " ".join(again).capitalize() + ".",
        "importance": m["importance"],
    }


async def load(service, user: int, count: int, rng: random.Random) -> list[dict]:
    """``count`` stored memories over the last two years, oldest first; returns what was written."""
    now, stored, written = datetime.now(UTC), 0, []
    while stored < count:  # the n-th stored memory in the n-th slot of the two years
        m = {**new_memory(rng), "timestamp": now - timedelta(days=730) * (1 - (stored + rng.random()) / count)}
        result = await service.memories.add(
            user, m["type"], m["entities"], m["summary"], m["importance"], m["metadata"], m["timestamp"], False
        )
        stored += not result["deduplicated"]
        written.append(m)
    return written


async def watched(work) -> tuple[float, float]:
    """(ms the awaitable took, worst event-loop gap meanwhile in ms, 5 ms ticker)."""
    gaps: list[float] = [0.0]
    async with watching_loop_lag(gaps.append, 0.005):
        await asyncio.sleep(0.02)
        start = time.perf_counter()
        await work
        took = (time.perf_counter() - start) * 1000
        await asyncio.sleep(0.01)
    return took, max(gaps) * 1000


def queries(written: list[dict], rng: random.Random) -> dict[str, object]:
    """Each row's arguments, drawn from the user's stored memories."""

    def entity() -> str:
        return rng.choice(rng.choice(written)["entities"])

    def filters() -> dict:  # one to three of them; loose ones (since_days 3650, importance_min 1) admit most
        every = {
            "type": rng.choice(TYPES),
            "importance_min": rng.randint(1, 9),
            "since_days": rng.choice([7, 30, 365, 3650]),
        }
        return dict(rng.sample(sorted(every.items()), rng.randint(1, 3)))

    def combined() -> dict:  # about one stored memory: an entity, two of its words, its type, since before it
        m = rng.choice(written)
        return {
            "entity": plain(rng.choice(m["entities"])).lower(),
            "type": m["type"],
            "since_days": (datetime.now(UTC) - m["timestamp"]).days + 30,
            "text": " ".join(rng.sample(m["summary"].rstrip(".").split(), 2)),
        }

    return {
        "entity, exact": lambda: {"entity": entity()},
        "entity, folded": lambda: {"entity": plain(entity()).lower().removeprefix("the ")},
        "entity, typo": lambda: {"entity": typo(entity(), rng)},
        "text": lambda: {"text": " ".join(rng.sample(VOCAB, rng.randint(1, 3)))},
        "filters only": filters,
        "combined": combined,
    }


def rows(user: int, written: list[dict], calls: int, rng: random.Random) -> dict[str, tuple]:
    """Per row: the tool, the arguments of each call, what a result counts, and how."""
    recent = [m for m in written if m["timestamp"] > datetime.now(UTC) - timedelta(days=25)]
    makers = {
        f"query: {kind}": ("memory_query", make, "found", lambda r: bool(r["memories"]))
        for kind, make in queries(written, rng).items()
    }
    makers["add: restatement of a recent memory"] = (
        "memory_add",
        lambda: restatement(rng.choice(recent), rng),
        "deduplicated",
        lambda r: r["deduplicated"],
    )
    makers["add: new memory"] = ("memory_add", lambda: new_memory(rng), "deduplicated", lambda r: r["deduplicated"])
    return {
        label: (tool, [{"user_id": user, **make()} for _ in range(calls + 5)], what, counted)
        for label, (tool, make, what, counted) in makers.items()
    }


async def measure(targets: list[tuple], calls: int) -> list[dict[str, str]]:
    """Each target (caller, user, its rows) just restarted: its first call, 5 rebuilds, then every row
    with the targets' calls interleaved, so a change of the machine's load hits every column alike."""
    outs: list[dict[str, str]] = [{} for _ in targets]
    for out, (call, user, _) in zip(outs, targets, strict=True):
        builds = []
        for n in range(6):  # the first after the restart, then 5 after dropping the kept index
            if n:
                call.service.memories.forget_user(user)
            builds.append(await watched(call.ok("memory_query", {"user_id": user, "importance_min": 8})))
        out["first call after restart (index build) / worst loop gap"] = " / ".join(map(ms, builds[0]))
        out["rebuild, median of 5 / worst loop gap"] = " / ".join(
            map(ms, (statistics.median(b for b, _ in builds[1:]), max(g for _, g in builds[1:])))
        )
    for label in targets[0][2]:
        samples: list[list[float]] = [[] for _ in targets]
        hits = [0] * len(targets)
        for i in range(calls + 5):  # the first 5 untimed
            for k, (call, _, table) in enumerate(targets):
                tool, arguments, _, counted = table[label]
                start = time.perf_counter()
                result = await call.ok(tool, arguments[i])
                if i >= 5:
                    samples[k].append((time.perf_counter() - start) * 1000)
                    hits[k] += counted(result)
        for k, (_, _, table) in enumerate(targets):
            cells = " / ".join(ms(pct(samples[k], q)) for q in (50, 95, 99))
            outs[k][label] = f"{cells} ({hits[k]} {table[label][2]})"
    return outs


async def run(calls: int) -> list[str]:
    """Memories are loaded through ``service.memories.add`` (the real write path, deduplication on);
    the service is then restarted on the same data, so the first call builds the user's analysed
    index as in production: that call and the worst event-loop gap meanwhile (5 ms ticker) are
    reported apart, as are 5 rebuilds after the kept index is dropped (as an import does)."""
    stores = {"a": {1: 100}, "b": {1: 100, 2: 10_000}, "c": {1: 1000}}
    columns = {"100": ("a", 1), "100, user 2 has 10,000": ("b", 1), "1,000": ("c", 1), "10,000": ("b", 2)}
    written: dict[tuple[str, int], list[dict]] = {}
    with tempfile.TemporaryDirectory() as work:
        for key, users in stores.items():
            async with connected(Settings(data_dir=Path(work) / key, search_warmup=False)) as call:
                for user, count in users.items():
                    started = time.perf_counter()
                    written[key, user] = await load(call.service, user, count, random.Random(user * count))
                    print(
                        f"  loaded {count:,} memories of user {user} in {time.perf_counter() - started:.1f} s "
                        f"({len(written[key, user]) - count} restated while loading)",
                        flush=True,
                    )
        async with contextlib.AsyncExitStack() as stack:  # every store restarted, all open at once
            calls_to = {
                key: await stack.enter_async_context(
                    connected(Settings(data_dir=Path(work) / key, search_warmup=False))
                )
                for key in stores
            }
            targets = [
                (calls_to[key], user, rows(user, written[key, user], calls, random.Random(7)))
                for key, user in columns.values()
            ]
            found = dict(zip(columns, await measure(targets, calls), strict=True))
    lines = [
        f"| memories of the user measured ({calls} calls a row) | " + " | ".join(columns) + " |",
        "|---|" + "---:|" * len(columns),
    ]
    return lines + [f"| {row} | " + " | ".join(c[row] for c in found.values()) + " |" for row in found["100"]]


def measured_code() -> str:
    """The commit, and whether the code measured (not the docs) differed from it."""
    dirty = subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", "HEAD", "--", "service", "tools", "models"])
    return code_version().split(" with ")[0] + (" with uncommitted changes to the code" if dirty.returncode else "")


NOTE = (
    "Through the in-process MCP client, {calls} calls a row after 5 untimed, the columns' calls interleaved (one "
    "process, every store open); p50 / p95 / p99 in ms (nearest rank). Stores loaded through `service.memories.add` "
    "(deduplication on), then reopened: the first memory call builds the user's analysed index; the loop gap is "
    "the worst lateness of a 5 ms ticker meanwhile. Restatements: a memory of the last 25 days, same type, "
    "entities spelled anew, half its summary again plus three words, timestamped now. Query arguments drawn from "
    'the user\'s stored memories; "found" counts non-empty answers.'
)


def write(table: list[str], calls: int, load: str, code: str) -> None:
    """The section after the notes marker of docs/PERFORMANCE.md, replacing an earlier one up to the next heading."""
    path, heading = ROOT / "docs" / "PERFORMANCE.md", "## Typed memories: memory_add and memory_query"
    section = "\n".join(
        [
            heading,
            "",
            f"`python scripts/bench_memories.py --write` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {code}.",
            "",
            "Machine:",
            "",
            *machine(),
            f"- 1-minute load average at the start / the end of the run (other work shares the machine): {load}",
            "",
            *textwrap.wrap(NOTE.format(calls=calls), 100, break_on_hyphens=False),
            "",
            *table,
            "",
        ]
    )
    text = path.read_text()
    if heading in text:
        before, rest = text.split(heading, 1)
        text = before + section + (rest[rest.find("\n## ") :] if "\n## " in rest else "\n")
    else:
        text = text.replace(NOTES_MARKER, NOTES_MARKER + "\n\n" + section.rstrip("\n"), 1)
    path.write_text(text)


if __name__ == "__main__":
    import logging

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--write", action="store_true", help="put the section into docs/PERFORMANCE.md")
    options, load_before, code = parser.parse_args(), f"{os.getloadavg()[0]:.2f}", measured_code()
    logging.disable(logging.INFO)
    print("\n".join(table := asyncio.run(run(options.calls))))
    if options.write:
        write(table, options.calls, f"{load_before} / {os.getloadavg()[0]:.2f}", code)
