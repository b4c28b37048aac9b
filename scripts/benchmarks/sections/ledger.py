"""Ledger: what one playlist's history costs to write, to reconstruct at a random moment, to store."""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime, timedelta

import bson

from ..calling import BenchError, timed
from ..constants import SIZE_NAMES, T0
from ..context import Run
from ..data import iso, playlist_id
from ..loader import Loader
from ..plan import warm
from ..processes import in_process
from ..report import ms, pct
from .moves import MOVES, measure_moves, move_cells


async def run(ctx: Run) -> None:
    report, plan, work = ctx.report, ctx.plan, ctx.work
    section = report.section(
        "ledger",
        "Ledger: reconstruction at a random at_time, stored bytes",
        [
            "ledger row",
            "tracks / mutations",
            "load s",
            "calls",
            "MCP p50",
            "MCP p95",
            "facade p50",
            "facade p95",
            "stored KiB",
            "raw log KiB",
            "stored / raw",
        ],
        "One playlist per row, created then mutated one minute apart: 10% UPDATE_META, 1% REORDER of the "
        "whole list, 89% ADD_TRACKS (1-5 new tracks, 60% at a random index) or REMOVE_TRACKS (1-5 tracks), "
        "balanced to keep the length near its initial value; every mutation of the load is one committed "
        f"`PlaylistService.mutate` call (timed: next table). Up to {plan.ledger_samples} "
        f"`memory_reconstruct_playlist` calls {warm(plan)}, at uniformly random `at_time` between creation and the last "
        'mutation of the load: "MCP" through the in-process MCP client (default, validating settings), '
        '"facade" = `PlaylistService.reconstruct` alone. Stored = BSON of the playlist\'s history buckets + '
        "playlist document; raw log = BSON of the create call's arguments and each mutation's {type, timestamp, payload}.",
    )
    writes: list[tuple[str, list[str]]] = []
    moves: list[tuple[str, list[str]]] = []
    for name, (tracks, mutations) in zip(SIZE_NAMES, plan.ledger):
        store = work / f"ledger-{name}"
        user = 1
        async with in_process(store) as (call, service):
            start = time.perf_counter()
            loader = Loader(service)
            rng = random.Random(tracks * 7 + mutations)
            facade_writes: list[float] = []
            log = await loader.playlist(user, 0, tracks, mutations, rng, T0, timings=facade_writes)
            loader.commit()
            load = time.perf_counter() - start
            pid = playlist_id(user, 0)
            span = (log[-1]["timestamp"] - T0).total_seconds()
            times = [
                T0 + timedelta(seconds=random.Random(i).uniform(0, span))
                for i in range(plan.ledger_samples + plan.warmup)
            ]
            mcp_samples = await timed(
                lambda i: call(
                    "memory_reconstruct_playlist", {"user_id": user, "playlist_id": pid, "at_time": iso(times[i])}
                ),
                plan.ledger_samples,
                plan.warmup,
                plan.budget,
            )
            facade = await timed(
                lambda i: service.playlists.reconstruct(user, pid, times[i]),
                plan.ledger_samples,
                plan.warmup,
                plan.budget,
            )
            generator = loader.last_generator
            assert generator is not None

            async def mutate(i: int) -> None:
                # Timestamp left out: the service stamps max(now, last change), as for an agent's call.
                kind, payload = next(generator)
                await call(
                    "memory_log_playlist_mutation",
                    {"user_id": user, "playlist_id": pid, "type": kind, "payload": payload},
                )
                log.append({"type": kind, "timestamp": datetime.now(UTC), "payload": payload})

            mcp_writes = await timed(mutate, plan.ledger_mcp_mutations, 0)
            # The state at the very end must be what the generator tracked: the figures are of a correct ledger.
            final = await service.playlists.reconstruct(user, pid, None)
            if final.get("track_ids") != generator.tracks:
                raise BenchError(
                    f"ledger {name}: reconstruction differs from the mutations logged "
                    f"({len(final.get('track_ids') or [])} vs {len(generator.tracks)} tracks)"
                )
            db = service.database
            stored = sum(len(bson.encode(d)) for d in await db.history.find({"user_id": user, "playlist_id": pid}))
            stored += sum(len(bson.encode(d)) for d in await db.playlists.find({"user_id": user, "playlist_id": pid}))
            # Last: the moves add events and snapshots the raw log above does not count.
            moved = await measure_moves(call, user, pid, T0, log[-1]["timestamp"], plan)
            for move in MOVES:
                report.values[f"moves.{name}.{move}.p95"] = pct(moved[move], 95)
            moves.append((f"moves {name}", [f"{tracks:,} / {mutations:,}", *move_cells(moved)]))
        raw = sum(len(bson.encode(entry)) for entry in log)
        label = f"ledger {name}"
        values = report.values
        values[f"ledger.{name}.p95"] = pct(mcp_samples, 95)
        values[f"ledger.{name}.facade.p95"] = pct(facade, 95)
        values[f"ledger.{name}.bytes"] = stored / raw
        values[f"ledger.{name}.tracks"] = tracks
        values[f"ledger.{name}.mutations"] = mutations
        values[f"ledger.{name}.write.facade.p50"] = pct(facade_writes, 50)
        values[f"ledger.{name}.write.mcp.p50"] = pct(mcp_writes, 50)
        section.add(
            label,
            [
                f"{tracks:,} / {mutations:,}",
                f"{load:.1f}",
                str(len(mcp_samples)),
                ms(pct(mcp_samples, 50)),
                ms(pct(mcp_samples, 95)),
                ms(pct(facade, 50)),
                ms(pct(facade, 95)),
                f"{stored / 1024:,.0f}",
                f"{raw / 1024:,.0f}",
                f"{stored / raw:.2f}×",
            ],
        )
        writes.append(
            (
                f"mutations {name}",
                [
                    f"{tracks:,} / {mutations:,}",
                    str(len(facade_writes)),
                    ms(pct(facade_writes, 50)),
                    ms(pct(facade_writes, 95)),
                    str(len(mcp_writes)),
                    ms(pct(mcp_writes, 50)),
                    ms(pct(mcp_writes, 95)),
                ],
            )
        )
    table = report.section(
        "ledger-writes",
        "Ledger writes: one mutation of a long history, in process",
        [
            "ledger writes row",
            "tracks / mutations",
            "facade calls",
            "facade p50",
            "facade p95",
            "MCP calls",
            "MCP p50",
            "MCP p95",
        ],
        'The playlists of the table above. "facade": every mutation of the load, each one committed '
        "`PlaylistService.mutate` call (journal on), so the figure covers the whole growth of the "
        f'history; "MCP": {plan.ledger_mcp_mutations} more mutations of the same generator after the '
        "reconstruction rows, through the in-process MCP client, timestamped by the service.",
    )
    for label, cells in writes:
        table.add(label, cells)
    table = report.section(
        "ledger-moves",
        "Ledger moves on the same histories, in process",
        ["ledger moves row", "tracks / mutations", *[f"{m} {q}" for m in MOVES for q in ("p50", "p95")]],
        f"The playlists of the tables above, after their MCP writes, through the in-process MCP client: up to "
        f"{plan.ledger_samples} `memory_undo_last_mutation` calls (each walks back one more change; it reads "
        "the playlist's whole history to find it), then as many redos (event_id = the latest standing UNDO), "
        "checked to restore the playlist exactly; `memory_resync_playlist` with the last track swapped (each "
        "opens a snapshot); `memory_diff_playlist` and `memory_fork_playlist` at random moments of the history.",
    )
    for label, cells in moves:
        table.add(label, cells)
