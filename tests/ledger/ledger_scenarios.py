"""The scenarios of the ledger property test (``test_ledger_properties``): settings variants, a
playlist and a sequence of mutations drawn by Hypothesis, with the reference model's history of
every accepted change, and the snapshots and states the ledger must show.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from tests.support import playlist, track
from tests.support.ledger_model import Policy, RefState, Rejected, input_iso, predict_snapshots, ref_apply

USER = 7
PLAYLIST = playlist(42)
BASE_MS = 1_700_000_000_000  # 2023-11-14

# name -> settings overrides. Every config's snapshots are predicted exactly (``Policy``); the
# "sized" ones have the smallest bucket size the settings accept and draw long playlists and big
# blocks, so buckets are sealed by size, before the count rule would seal them, in a good share of
# examples (``test_strategy_reaches_size_based_sealing`` measures it).
CONFIGS: dict[str, dict[str, Any]] = {
    "every3": {"snapshot_every": 3, "recent_events_cap": 3, "recent_snapshots_cap": 2, "snapshot_min_event_share": 0.0},
    "every2": {"snapshot_every": 2, "recent_events_cap": 2, "recent_snapshots_cap": 1, "snapshot_min_event_share": 0.0},
    "every1": {"snapshot_every": 1, "recent_events_cap": 1, "recent_snapshots_cap": 1, "snapshot_min_event_share": 0.0},
    "sized": {
        "snapshot_every": 3,
        "recent_events_cap": 3,
        "recent_snapshots_cap": 2,
        "snapshot_min_event_share": 0.5,
        "bucket_max_track_ids": 100,
    },
    # The default count rule (every 10, share 0.1) with the smallest bucket: size decides.
    "sized_default_count": {"recent_events_cap": 4, "recent_snapshots_cap": 2, "bucket_max_track_ids": 100},
    "default_share": {"snapshot_every": 3, "recent_events_cap": 3, "recent_snapshots_cap": 2},
}
SIZED = frozenset({"sized", "sized_default_count"})
# Drawn with these weights: the sized configs in about 60% of examples (they have small caps too,
# and every kind of change), so about half the examples seal a bucket by size (a run of 50 varies:
# Hypothesis draws configs in clusters).
CONFIG_DRAW = [
    "every3",
    "every2",
    "every1",
    "default_share",
    "sized",
    "sized",
    "sized_default_count",
    "sized_default_count",
    "sized_default_count",
    "sized_default_count",
]
SIZE_SEALED = "a bucket sealed by size before the count rule"
MIN_SIZE_SEALED_SHARE = 0.2

KINDS = [
    "append",
    "append",
    "insert_at",
    "insert_at",
    "positions",
    "positions",
    "remove",
    "remove",
    "reorder",
    "reorder",
    "meta",
    "bad_insert_at",
    "bad_positions_range",
    "bad_positions_shape",
    "bad_reorder",
    "bad_meta",
    "stale_timestamp",
]
# Every kind, with more of the changes that grow a bucket.
BIG_KINDS = [*KINDS, "append", "append", "insert_at", "positions"]
STEPS_MS = [0, 0, 0, 1, 2, 999, 1000, 60_000, 86_400_000]
OFFSETS = [0, 0, 0, 60, -300, 330, 14 * 60, -12 * 60]


@dataclass
class Op:
    kind: str
    payload: dict[str, Any]
    ts_ms: int
    ts_text: str
    expect: str | None  # None: succeeds; else the error code


@dataclass
class Scenario:
    config: str
    create_args: dict[str, Any]
    created_ms: int
    ops: list[Op]
    # Reference history: (timestamp ms, state) after creation and after each accepted mutation.
    history: list[tuple[int, RefState]] = field(default_factory=list)
    accepted: list[Op] = field(default_factory=list)
    extra_at_times: list[tuple[int, int, int]] = field(default_factory=list)  # (ms, extra_us, offset)


def _text(max_size: int) -> st.SearchStrategy[str]:
    letters = st.characters(min_codepoint=32, max_codepoint=0x2FFF, exclude_categories=("Cs",))
    return st.text(letters, min_size=1, max_size=max_size)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    config = draw(st.sampled_from(CONFIG_DRAW))
    big = config in SIZED
    # Sized configs: many distinct IDs (a removal takes every occurrence, which would soon empty a
    # list drawn from a few), long initial lists and big blocks, their lengths drawn uniformly
    # (list strategies favour short lists) so the bucket limit is reached within a few changes.
    pool = [track(i) for i in range(draw(st.integers(20, 200) if big else st.integers(1, 6)))]
    absent = track(999_999)  # never in any playlist
    tid = st.sampled_from(pool)

    def tracks(low: int, high: int) -> list[str]:
        if not big:
            return draw(st.lists(tid, min_size=low, max_size=high))
        size = draw(st.integers(low, high))
        return draw(st.lists(tid, min_size=size, max_size=size))

    initial = tracks(50, 95) if big else tracks(1, 8)
    meta: dict[str, Any] = {"name": draw(_text(30)), "intent_tags": draw(st.lists(_text(8), max_size=3))}
    create_args: dict[str, Any] = {
        "user_id": USER,
        "playlist_id": PLAYLIST,
        "name": meta["name"],
        "track_ids": initial,
        "intent_tags": meta["intent_tags"],
    }
    if draw(st.booleans()):
        meta["description"] = draw(st.text(max_size=40))
        create_args["description"] = meta["description"]
    created_ms = BASE_MS + draw(st.integers(0, 10**9))
    create_args["created_at"] = input_iso(created_ms, draw(st.integers(0, 999)), draw(st.sampled_from(OFFSETS)))

    state = RefState(tuple(initial), meta)
    history = [(created_ms, state)]
    accepted: list[Op] = []
    ops: list[Op] = []
    last_ms = created_ms
    for _ in range(draw(st.integers(4 if big else 0, 16))):
        kind = draw(st.sampled_from(BIG_KINDS if big else KINDS))
        ts_ms = last_ms + draw(st.sampled_from(STEPS_MS))
        current = list(state.tracks)
        block = tracks(1, 30) if big else tracks(1, 4)
        if kind == "append":
            mtype, payload = "ADD_TRACKS", {"track_ids": block}
        elif kind == "insert_at":
            mtype, payload = "ADD_TRACKS", {"track_ids": block, "insert_at": draw(st.integers(0, len(current)))}
        elif kind == "bad_insert_at":
            mtype = "ADD_TRACKS"
            payload = {"track_ids": block, "insert_at": len(current) + draw(st.integers(1, 3))}
        elif kind == "positions":
            size = len(current) + len(block)
            positions = draw(st.lists(st.integers(0, size - 1), unique=True, min_size=len(block), max_size=len(block)))
            mtype, payload = "ADD_TRACKS", {"track_ids": block, "positions": positions}
        elif kind == "bad_positions_range":
            size = len(current) + len(block)
            positions = draw(st.lists(st.integers(0, size - 1), unique=True, min_size=len(block), max_size=len(block)))
            positions[draw(st.integers(0, len(block) - 1))] = size + draw(st.integers(0, 2))
            mtype, payload = "ADD_TRACKS", {"track_ids": block, "positions": positions}
        elif kind == "bad_positions_shape":
            size = len(current) + len(block)
            variant = draw(st.sampled_from(["duplicate", "too_few", "too_many", "with_insert_at"]))
            positions = draw(st.lists(st.integers(0, size - 1), unique=True, min_size=len(block), max_size=len(block)))
            payload = {"track_ids": block, "positions": positions}
            if variant == "duplicate" and len(block) >= 2:
                positions[1] = positions[0]
            elif variant == "too_many":
                positions.append(size + 5)
            elif variant == "with_insert_at":
                payload["insert_at"] = 0
            else:
                positions.pop()
            mtype = "ADD_TRACKS"
        elif kind == "remove":
            doomed = draw(st.lists(st.sampled_from([*pool, absent]), min_size=1, max_size=4))
            if current and draw(st.booleans()):
                doomed.append(draw(st.sampled_from(current)))
                doomed.append(doomed[-1])  # the same ID listed twice
            mtype, payload = "REMOVE_TRACKS", {"track_ids": doomed}
        elif kind == "reorder":
            if current:
                mtype, payload = "REORDER", {"track_ids": list(draw(st.permutations(current)))}
            else:
                mtype, payload = "REORDER", {"track_ids": block}  # nothing to reorder: CONFLICT
        elif kind == "bad_reorder":
            variant = draw(st.sampled_from(["drop", "extra", "swap"]))
            order = list(draw(st.permutations(current))) if current else []
            if variant == "drop" and len(order) >= 2:
                order.pop(draw(st.integers(0, len(order) - 1)))
            elif variant == "swap" and order:
                order[draw(st.integers(0, len(order) - 1))] = absent
            else:
                order.insert(draw(st.integers(0, len(order))), draw(st.sampled_from([*pool, absent])))
            assert Counter(order) != Counter(current)
            mtype, payload = "REORDER", {"track_ids": order}
        elif kind == "meta":
            fields = draw(st.sets(st.sampled_from(["name", "description", "intent_tags"]), min_size=1))
            payload = {}
            if "name" in fields:
                payload["name"] = draw(_text(30))
            if "description" in fields:
                payload["description"] = draw(st.text(max_size=40))
            if "intent_tags" in fields:
                payload["intent_tags"] = draw(st.lists(_text(8), max_size=3))
            mtype = "UPDATE_META"
        elif kind == "bad_meta":
            mtype, payload = "UPDATE_META", {}
        else:  # stale_timestamp: a valid change, dated before the last logged change
            ts_ms = last_ms - draw(st.sampled_from([1, 2, 1000, 86_400_000]))
            mtype, payload = "ADD_TRACKS", {"track_ids": block}

        ts_text = input_iso(ts_ms, draw(st.integers(0, 999)), draw(st.sampled_from(OFFSETS)))
        if kind == "stale_timestamp":
            op = Op(mtype, payload, ts_ms, ts_text, "CONFLICT")
        else:
            try:
                new_state = ref_apply(state, mtype, payload)
            except Rejected as rejected:
                op = Op(mtype, payload, ts_ms, ts_text, rejected.code)
            else:
                op = Op(mtype, payload, ts_ms, ts_text, None)
                state, last_ms = new_state, ts_ms
                history.append((ts_ms, state))
                accepted.append(op)
        ops.append(op)

    extra = draw(
        st.lists(
            st.tuples(st.integers(created_ms - 2000, last_ms + 2000), st.integers(0, 999), st.sampled_from(OFFSETS)),
            max_size=5,
        )
    )
    return Scenario(config, create_args, created_ms, ops, history, accepted, extra)


def predicted_snapshots(scenario: Scenario) -> dict[int, str]:
    """{seq: "create" | "count" | "size"} of the snapshots the ledger must take in ``scenario``."""
    return predict_snapshots(
        Policy.of(CONFIGS[scenario.config]),
        [state for _, state in scenario.history],
        [op.payload for op in scenario.accepted],
    )


def expected_at(history: list[tuple[int, RefState]], at_ms: int) -> tuple[int, RefState] | None:
    """(number of mutations applied, state) at ``at_ms``; None before creation."""
    found = None
    for index, (ts, state) in enumerate(history):
        if ts <= at_ms:
            found = (index, state)
    return found


def at_time_probes(scenario: Scenario) -> list[tuple[int, str]]:
    """(ms, at_time text): before creation, exactly at each change, between changes, after the last."""
    times = sorted({ts for ts, _ in scenario.history})
    probes: set[tuple[int, int, int]] = {(scenario.created_ms - 1, 999, 0), (scenario.created_ms - 86_400_000, 0, 60)}
    for ts in times:
        probes.add((ts, 0, 0))
        probes.add((ts, 999, 330))  # same millisecond, sub-ms noise: truncated to ts
        probes.add((ts - 1, 0, -300))
        probes.add((ts + 1, 0, 0))
    probes.add((times[-1] + 10**9, 0, 0))
    probes.update(scenario.extra_at_times)
    return [(ms, input_iso(ms, us, off)) for ms, us, off in sorted(probes)]
