"""An independent reference model of the playlist ledger, and helpers the ledger tests share.

Written from the tool contract (tools/specs/catalog.py, SPEC §5), not from service/ledger/state.py,
so the service and the model can disagree.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from tests.support import Caller

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class RefState:
    tracks: tuple[str, ...]
    meta: dict[str, Any] = field(default_factory=dict)  # name, intent_tags, and description once set


class Rejected(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def ref_apply(state: RefState, kind: str, payload: dict[str, Any]) -> RefState:
    """The state after one mutation, or ``Rejected(code)`` when the contract says it fails."""
    tracks = list(state.tracks)
    if kind == "ADD_TRACKS":
        block = list(payload["track_ids"])
        if "positions" in payload:
            positions = list(payload["positions"])
            if "insert_at" in payload or len(positions) != len(block) or len(set(positions)) != len(positions):
                raise Rejected("INVALID_ARGUMENT")
            size = len(tracks) + len(block)
            if any(p >= size for p in positions):
                raise Rejected("CONFLICT")
            result: list[str | None] = [None] * size
            for position, track_id in zip(positions, block):
                result[position] = track_id
            remaining = iter(tracks)
            return RefState(tuple(t if t is not None else next(remaining) for t in result), state.meta)
        at = payload.get("insert_at", len(tracks))
        if at > len(tracks):
            raise Rejected("CONFLICT")
        tracks[at:at] = block
        return RefState(tuple(tracks), state.meta)
    if kind == "REMOVE_TRACKS":
        gone = set(payload["track_ids"])
        return RefState(tuple(t for t in tracks if t not in gone), state.meta)
    if kind == "REORDER":
        if sorted(payload["track_ids"]) != sorted(tracks):
            raise Rejected("CONFLICT")
        return RefState(tuple(payload["track_ids"]), state.meta)
    if kind == "UPDATE_META":
        fields = {k: v for k, v in payload.items() if k in ("name", "description", "intent_tags")}
        if not fields:
            raise Rejected("INVALID_ARGUMENT")
        return RefState(state.tracks, {**state.meta, **fields})
    raise AssertionError(kind)


@dataclass(frozen=True)
class Policy:
    """When the ledger opens a new history bucket (with a snapshot), from the settings' documented
    meaning: after ``every`` mutations once the events since the last snapshot carry
    ``min_event_share`` of its length in track IDs (``MEMORY_SNAPSHOT_EVERY``,
    ``MEMORY_SNAPSHOT_MIN_EVENT_SHARE``), and in any case beyond ``max_track_ids`` track IDs in a
    bucket, snapshot included (``MEMORY_BUCKET_MAX_TRACK_IDS``), and once the events since the
    snapshot times its length reach ``replay_budget`` (``MEMORY_SNAPSHOT_REPLAY_BUDGET``). An event carries its payload's
    track IDs, at least 1. The mutation that finds its bucket full opens the next one, and the
    new bucket's snapshot is the state after that mutation."""

    every: int
    min_event_share: float
    max_track_ids: int
    replay_budget: int = 500_000

    @classmethod
    def of(cls, overrides: dict[str, Any]) -> Policy:
        return cls(
            overrides.get("snapshot_every", 10),
            overrides.get("snapshot_min_event_share", 0.1),
            overrides.get("bucket_max_track_ids", 100_000),
            overrides.get("snapshot_replay_budget", 500_000),
        )


def event_volume(payload: dict[str, Any]) -> int:
    return max(1, len(payload.get("track_ids", ())))


def predict_snapshots(policy: Policy, states: list[RefState], payloads: list[dict[str, Any]]) -> dict[int, str]:
    """{seq: why} of every snapshot the ledger takes: 0 "create", then "count" or "size" ("size"
    only where the count rule alone would not have sealed the bucket yet).

    ``states[s]`` is the state after ``s`` accepted mutations (``states[0]`` the creation),
    ``payloads[s - 1]`` the payload of mutation ``s``."""
    snapshots = {0: "create"}
    base, base_len, volume = 0, len(states[0].tracks), 0
    for seq in range(1, len(states)):
        events = seq - 1 - base  # events in the open bucket after its opening one
        by_count = events >= policy.every - 1 and volume >= policy.min_event_share * base_len
        by_size = base_len + volume >= policy.max_track_ids
        by_replay = events * base_len >= policy.replay_budget
        if by_count or by_size or by_replay:
            snapshots[seq] = "count" if by_count else "size" if by_size else "replay"
            base, base_len, volume = seq, len(states[seq].tracks), 0
        else:
            volume += event_volume(payloads[seq - 1])
    return snapshots


def ms_to_iso(ms: int) -> str:
    """The service's output form: UTC, millisecond precision, ``Z``."""
    moment = EPOCH + timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def input_iso(ms: int, extra_us: int = 0, offset_minutes: int = 0) -> str:
    """A client's form of the moment ``ms`` (+ ``extra_us`` sub-millisecond noise, which the
    service truncates away), written in an arbitrary UTC offset."""
    assert 0 <= extra_us < 1000
    zone = timezone(timedelta(minutes=offset_minutes))
    moment = (EPOCH + timedelta(milliseconds=ms, microseconds=extra_us)).astimezone(zone)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S.%f")
    if offset_minutes == 0:
        return text + "Z"
    sign = "+" if offset_minutes > 0 else "-"
    hours, minutes = divmod(abs(offset_minutes), 60)
    return f"{text}{sign}{hours:02d}:{minutes:02d}"


def iso_to_ms(text: str) -> int:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return (moment - EPOCH) // timedelta(milliseconds=1)


async def export_all(call: Caller, user_id: int) -> dict[str, Any]:
    """Every export part of a user, joined: {"profile", "preference_events", "playlists": {id: {...}}}."""
    joined: dict[str, Any] = {"profile": None, "preference_events": [], "playlists": {}}

    def place(section: str, body: dict[str, Any], pid: str | None) -> None:
        if section == "profile":
            joined["profile"] = body
        elif section == "preference_event":
            joined["preference_events"].append(body)
        else:
            entry = joined["playlists"].setdefault(pid or body["playlist_id"], {"snapshots": [], "events": []})
            if section == "playlist":
                entry.update({k: v for k, v in body.items() if k not in ("snapshots", "events")})
            else:
                entry[f"{section}s"].append(body)

    cursor: str | None = None
    pending = ""  # a piece larger than one part arrives as consecutive text chunks
    for _ in range(1000):
        arguments: dict[str, Any] = {"user_id": user_id}
        if cursor is not None:
            arguments["cursor"] = cursor
        part = (await call.ok("memory_export_user_data", arguments))["data"]
        if part.get("profile") is not None:
            place("profile", part["profile"], None)
        for event in part["preference_events"]:
            place("preference_event", event, None)
        for chunk in part["playlists"]:
            place("playlist", chunk, chunk["playlist_id"])
            for section in ("snapshot", "event"):
                for body in chunk.get(f"{section}s", []):
                    place(section, body, chunk["playlist_id"])
        for chunk in part.get("chunks", []):
            pending += chunk["text"]
            if chunk["index"] == chunk["count"] - 1:
                place(chunk["section"], json.loads(pending), chunk.get("playlist_id"))
                pending = ""
        cursor = part["continuation"]["next_cursor"]
        if cursor is None:
            assert pending == "", "the export ended inside a chunked piece"
            return joined
    raise AssertionError("export never ended")


def without_moment(export_result: dict[str, Any]) -> dict[str, Any]:
    """An export answer without the fields that name the moment it was taken."""
    data = dict(export_result["data"])
    data.pop("as_of", None)
    return {**{k: v for k, v in export_result.items() if k != "exported_at"}, "data": data}


@contextlib.contextmanager
def yielding_storage(enabled: bool, jitter_seed: int | None = None) -> Iterator[list[int]]:
    """Make every storage call of the embedded engine give up the event loop first, as a real
    network driver does, so concurrent tool calls really interleave between reads and writes.

    The embedded engine (mongomock-motor) never suspends inside a query, so without this two
    concurrent writers can never race on it. Yields the list of asyncio task ids in the order
    their storage calls ran, so a test can assert that interleaving really happened.

    With ``jitter_seed`` each call gives up the loop a seeded random number of times, as uneven
    network latency does: one writer then gets through several calls while another waits in the
    middle of its own, which plain round-robin scheduling never produces.
    """
    order: list[int] = []
    if not enabled:
        yield order
        return
    from service.storage.collection import TrackedCollection

    original = TrackedCollection._run
    rng = random.Random(jitter_seed)
    pauses = [1] if jitter_seed is None else [0, 1, 1, 2, 5, 20]

    async def run(self: Any, operation: Any) -> Any:
        for _ in range(rng.choice(pauses)):
            await asyncio.sleep(0)
        task = asyncio.current_task()
        order.append(id(task))
        return await original(self, operation)

    TrackedCollection._run = run  # type: ignore[method-assign]
    try:
        yield order
    finally:
        TrackedCollection._run = original  # type: ignore[method-assign]


def interleavings(order: list[int]) -> int:
    """How many times consecutive storage calls came from different tasks."""
    return sum(1 for a, b in itertools.pairwise(order) if a != b)
