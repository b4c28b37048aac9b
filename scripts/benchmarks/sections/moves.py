"""Ledger moves on the ledger section's long histories: undo, redo, resync, diff, fork."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from ..calling import BenchError, Call, timed
from ..data import iso, track
from ..plan import Plan
from ..report import ms, pct

MOVES = ("undo", "redo", "resync", "diff", "fork")


async def measure_moves(
    call: Call, user: int, pid: str, start: datetime, end: datetime, plan: Plan
) -> dict[str, list[float]]:
    """Samples (ms) of each move through the in-process MCP client. Undos walk back one change each
    and the redos re-apply them, so the playlist must end as it began (checked)."""
    before = (await call("memory_reconstruct_playlist", {"user_id": user, "playlist_id": pid}))["result"]["track_ids"]
    undo_ids: list[str] = []

    async def undo(i: int) -> None:
        undo_ids.append(_ok(await call("memory_undo_last_mutation", {"user_id": user, "playlist_id": pid}))["event_id"])

    async def redo(i: int) -> None:
        _ok(await call("memory_undo_last_mutation", {"user_id": user, "playlist_id": pid, "event_id": undo_ids.pop()}))

    samples = {"undo": await timed(undo, plan.ledger_samples, 0, plan.budget)}
    samples["redo"] = await timed(redo, len(undo_ids), 0)
    after = (await call("memory_reconstruct_playlist", {"user_id": user, "playlist_id": pid}))["result"]["track_ids"]
    if after != before:
        raise BenchError(f"undo then redo of {len(samples['undo'])} changes did not restore the playlist")

    current = list(after)

    async def resync(i: int) -> None:
        current[-1] = track(800_000_000 + i)  # the user swapped the last track in the app
        _ok(await call("memory_resync_playlist", {"user_id": user, "playlist_id": pid, "track_ids": current}))

    samples["resync"] = await timed(resync, plan.ledger_samples, 0, plan.budget)
    rng = random.Random(11)
    span = (end - start).total_seconds()
    moments = [
        tuple(sorted((start.timestamp() + rng.uniform(0, span), start.timestamp() + rng.uniform(0, span))))
        for _ in range(plan.ledger_samples)
    ]

    async def diff(i: int) -> None:
        low, high = moments[i % len(moments)]
        _ok(
            await call(
                "memory_diff_playlist",
                {
                    "user_id": user,
                    "playlist_id": pid,
                    "from_time": iso(datetime.fromtimestamp(low, start.tzinfo)),
                    "to_time": iso(datetime.fromtimestamp(high, start.tzinfo)),
                },
            )
        )

    async def fork(i: int) -> None:
        _ok(
            await call(
                "memory_fork_playlist",
                {
                    "user_id": user,
                    "playlist_id": pid,
                    "new_playlist_id": f"benchfork{i:012d}",
                    "at_time": iso(datetime.fromtimestamp(moments[i % len(moments)][0], start.tzinfo)),
                },
            )
        )

    samples["diff"] = await timed(diff, plan.ledger_samples, 0, plan.budget)
    samples["fork"] = await timed(fork, plan.ledger_samples, 0, plan.budget)
    return samples


def _ok(envelope: dict[str, Any]) -> dict[str, Any]:
    if not envelope.get("success"):
        raise BenchError(f"a ledger move failed: {envelope.get('error')}")
    return envelope["result"]


def move_cells(samples: dict[str, list[float]]) -> list[str]:
    return [cell for move in MOVES for cell in (ms(pct(samples[move], 50)), ms(pct(samples[move], 95)))]
