"""The rule check on a write: a mutation of a long playlist with ``check_rules`` against the same
mutation without it, interleaved so both see the same machine."""

from __future__ import annotations

import json
import random
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from service.facade import MemoryService
from service.timeutil import utc_now

from ..calling import BenchError, Call, timed
from ..constants import ROOT, T0
from ..context import Run
from ..data import ARTISTS, GENRES, artist, playlist_id, track
from ..processes import in_process
from ..report import ms, pct, ratio

USER = 1
REST_PLAYS = 5_000
SPARE = 200  # catalogued tracks outside the playlist, which the timed additions take from
# Entries of the profile's free-text avoid list that the catalog makes machine rules: an artist, a
# genre, a title alone, "title – artist" (and the seed profile's own free text, which is not a rule).
AVOID = [artist(7), "doom metal", "Song 42", f"Song 77 – {artist(77 * 13)}"]


def catalog(size: int) -> list[dict[str, Any]]:
    """``size + SPARE`` tracks with every field the rules read; one in ten has two artists."""
    rng = random.Random(size)
    tracks = []
    for n in range(size + SPARE):
        artists = [artist(n * 13)] + ([artist(n * 7 + 1)] if n % 10 == 0 else [])
        tracks.append(
            {
                "track_id": track(n),
                "name": f"Song {n}",
                "artists": artists,
                "album": f"Album {n // 12}",
                "duration_ms": rng.randint(150_000, 330_000),
                "popularity": rng.randint(0, 100),
                "genres": rng.sample(GENRES, rng.randint(1, 2)),
                "energy": round(rng.random(), 2),
            }
        )
    return tracks


def profile() -> dict[str, Any]:
    """The PRD example profile (at most 3 tracks an artist, 90–180 minutes, a breather mid-way)
    with avoid entries by name and in ``playlist_rules``."""
    seeded: dict[str, Any] = json.loads((ROOT / "models" / "seed_profile.json").read_text())
    seeded["avoid"] = [*seeded["avoid"], *AVOID]
    seeded["playlist_rules"]["avoid_artists"] = [artist(ARTISTS - 1)]
    seeded["playlist_rules"]["avoid_tracks"] = [track(99), "Song 123"]
    return seeded


async def build(service: MemoryService, size: int) -> tuple[str, list[str]]:
    """The catalog, the profile and the playlist of ``size`` tracks; (its id, the spare track ids)."""
    tracks = catalog(size)
    for start in range(0, len(tracks), 1000):
        await service.tracks.upsert_tracks(USER, tracks[start : start + 1000])
    await service.profiles.update(USER, profile(), "bench", "user", True)
    pid = playlist_id(USER, 0)
    ids = [t["track_id"] for t in tracks]
    await service.playlists.create(
        {"user_id": USER, "playlist_id": pid, "name": "long run", "track_ids": ids[:size], "intent_tags": []}, T0
    )
    return pid, ids[size:]


def mutations(pid: str, spare: list[str], check: bool, length: int) -> Callable[[int], dict[str, Any]]:
    """Even calls add 1–3 spare tracks somewhere in a playlist of ``length``, odd calls remove them."""
    rng = random.Random(int(check))
    added: list[str] = []

    def arguments(i: int) -> dict[str, Any]:
        nonlocal added
        if i % 2 == 0:
            added = rng.sample(spare, rng.randint(1, 3))
            payload: dict[str, Any] = {"track_ids": added, "insert_at": rng.randint(0, length)}
            kind = "ADD_TRACKS"
        else:
            payload, kind = {"track_ids": added}, "REMOVE_TRACKS"
        return {"user_id": USER, "playlist_id": pid, "type": kind, "payload": payload} | (
            {"check_rules": True} if check else {}
        )

    return arguments


async def interleaved(
    write: Callable[[dict[str, Any]], Awaitable[Any]], pid: str, spare: list[str], length: int, calls: int, warmup: int
) -> tuple[list[float], list[float]]:
    """(without, with) ms: each add-and-remove pair without the check, then one with it."""
    plain, checked = mutations(pid, spare, False, length), mutations(pid, spare, True, length)
    without: list[float] = []
    with_check: list[float] = []
    for pair in range(calls // 2 + warmup):
        for make, into in ((plain, without), (checked, with_check)):
            samples = await timed(lambda i, m=make, p=pair: write(m(2 * p + i)), 2, 0)
            if pair >= warmup:
                into.extend(samples)
    return without, with_check


async def run(ctx: Run) -> None:
    report, plan, work = ctx.report, ctx.plan, ctx.work
    size = plan.rules_tracks
    section = report.section(
        "rules",
        "Rule check on a write: a mutation of a long playlist with and without check_rules, in process",
        [
            "rule check row",
            "tracks",
            "calls",
            "without p50",
            "without p95",
            "with p50",
            "with p95",
            "with / without p50",
        ],
        f"One user: a catalog of {size + SPARE:,} tracks (every field the rules read), the PRD example profile "
        f"(at most 3 tracks an artist, 90–180 minutes, a breather mid-way) with avoid entries naming an artist, a "
        f'genre, a title and a "title – artist", plus `playlist_rules.avoid_artists` and `avoid_tracks` (an id '
        f"and a title), and one playlist of {size:,} of the tracks. `memory_log_playlist_mutation`: even calls add "
        "1–3 catalogued tracks at a random position, odd calls remove them; each add-and-remove pair without "
        "`check_rules` is followed by one with it (its `rule_report` checks the whole playlist after the write). "
        f'{plan.rules_calls} calls of each after {plan.warmup} warm-up pairs; "MCP": the in-process MCP client '
        '(default, validating settings), "facade": `PlaylistService.mutate` alone (committing).',
    )
    async with in_process(work / "rules") as (call, service):
        pid, spare = await build(service, size)
        probe = mutations(pid, spare, True, size)
        found = (await call("memory_log_playlist_mutation", probe(0)))["result"].get("rule_report")
        if not found or found["violation_count"] == 0:
            raise BenchError(f"rule check: the report finds nothing to measure: {found}")
        await call("memory_log_playlist_mutation", probe(1))

        async def by_mcp(arguments: dict[str, Any], c: Call = call) -> Any:
            return await c("memory_log_playlist_mutation", arguments)

        async def by_facade(arguments: dict[str, Any]) -> Any:
            return await service.playlists.mutate(arguments, None)

        async def resting() -> str:
            """The rest rule too (3 plays in 30 days), over a heavy listener's month: REST_PLAYS plays
            of the playlist's tracks in the last 30 days (every tenth track played 3 times or more)."""
            seeded = profile()
            seeded["playlist_rules"]["rest"] = {"max_plays": 3, "days": 30}
            await service.profiles.update(USER, seeded, "bench", "user", True)
            rng, now = random.Random(3), utc_now()
            played = [
                {
                    "artist": artist((n % size) * 13),
                    "track": f"Song {n % size}",
                    "track_id": track(n % size) if i % 2 else None,
                    "played_at": (now - timedelta(seconds=rng.randint(60, 29 * 86_400))).isoformat(),
                }
                for i, n in enumerate(rng.choices(range(0, size, 10), k=REST_PLAYS))
            ]
            for start in range(0, len(played), 1000):
                await service.followups.log_plays(USER, played[start : start + 1000])
            return f"MCP, rest (3 in 30 days, {REST_PLAYS:,} plays)"

        clients: list[tuple[str, Callable[[dict[str, Any]], Awaitable[Any]]]] = [("MCP", by_mcp), ("facade", by_facade)]
        for label, write in [*clients, ("rest", by_mcp)]:
            if label == "rest":
                label = await resting()
            without, checked = await interleaved(write, pid, spare, size, plan.rules_calls, plan.warmup)
            key = "rules.rest" if label.startswith("MCP, rest") else f"rules.{label.lower()}"
            report.values[f"{key}.without.p50"] = pct(without, 50)
            report.values[f"{key}.with.p50"] = pct(checked, 50)
            report.values["rules.tracks"] = size
            section.add(
                f"rule check {label}",
                [
                    f"{size:,}",
                    f"{len(without)} / {len(checked)}",
                    ms(pct(without, 50)),
                    ms(pct(without, 95)),
                    ms(pct(checked, 50)),
                    ms(pct(checked, 95)),
                    ratio(pct(checked, 50), pct(without, 50)),
                ],
            )
