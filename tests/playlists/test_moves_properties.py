"""Property test of undo, redo, resync, diff and fork against the plain model in ``moves_model``.

Each example draws small snapshot caps (so histories cross buckets, and every resync seals one),
a playlist over eight track IDs (duplicates are common), and a run of changes, undos, redos (of the
latest standing undo, and of an older one, which must be refused) and resyncs with non-decreasing,
often equal, millisecond timestamps, some stepping back (refused). After every step the current
contents must equal the model's; at the end reconstruction at every event's moment and the
millisecond before it, diffs between drawn moments, a fork at a drawn moment, a retried undo, an
export imported as another user and a restart must all agree with the model.
"""

from __future__ import annotations

import random
import uuid
from typing import Any

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from tests.playlists.moves_model import RefLedger, check_diff
from tests.support import Caller, connected, playlist, track
from tests.support.contract import assert_valid_success
from tests.support.ledger_model import RefState, Rejected, ms_to_iso

USER, COPY_USER = 1, 2
PLAYLIST, FORK = playlist(1), playlist(2)
TRACKS = [track(i) for i in range(8)]
START_MS = 1_700_000_000_000
CONFIGS = [
    {"snapshot_every": 2, "recent_events_cap": 2, "recent_snapshots_cap": 1, "snapshot_min_event_share": 0.0},
    {"snapshot_every": 3, "recent_events_cap": 3, "recent_snapshots_cap": 2, "snapshot_min_event_share": 0.0},
    {"snapshot_every": 10, "recent_events_cap": 50, "recent_snapshots_cap": 10},
]

track_lists = st.lists(st.sampled_from(TRACKS), min_size=0, max_size=7)
steps = st.one_of(
    st.tuples(st.just("ADD_TRACKS"), st.lists(st.sampled_from(TRACKS), min_size=1, max_size=3)),
    st.tuples(st.just("REMOVE_TRACKS"), st.lists(st.sampled_from(TRACKS), min_size=1, max_size=2)),
    st.tuples(st.just("REORDER"), st.integers(0, 1000)),
    st.tuples(
        st.just("UPDATE_META"),
        st.sampled_from(
            [
                {"name": "Renamed"},
                {"description": "about"},
                {"intent_tags": ["calm"]},
                {"name": "Mix", "intent_tags": []},
            ]
        ),
    ),
    st.tuples(st.just("RESYNC"), track_lists),
    st.tuples(st.just("UNDO"), st.just(None)),
    st.tuples(st.just("UNDO"), st.just(None)),
    st.tuples(st.just("REDO"), st.booleans()),  # True: the latest standing undo; False: an older one
)
scenario = st.fixed_dictionaries(
    {
        "config": st.sampled_from(range(len(CONFIGS))),
        "tracks": st.lists(st.sampled_from(TRACKS), min_size=1, max_size=6),
        "steps": st.lists(st.tuples(steps, st.sampled_from([0, 0, 1, 2, 5, -1])), min_size=1, max_size=22),
    }
)


async def _now(call: Caller) -> list[str]:
    return (await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": PLAYLIST}))["track_ids"]


def _call_for(model: RefLedger, kind: str, value: Any, at_ms: int) -> tuple[str, dict[str, Any]] | None:
    """The tool call a step makes (None: a redo with no UNDO to name, a reorder of nothing)."""
    base = {"user_id": USER, "playlist_id": PLAYLIST, "timestamp": ms_to_iso(at_ms)}
    if kind == "UNDO":
        return "memory.undo_last_mutation", base
    if kind == "REDO":
        target = _redo_target(model, latest=value)
        return None if target is None else ("memory.undo_last_mutation", {**base, "event_id": model.event_ids[target]})
    if kind == "RESYNC":
        return "memory.resync_playlist", {**base, "track_ids": value, "reason": "edited in the app"}
    payload = value if kind == "UPDATE_META" else {"track_ids": value}
    if kind == "REORDER" and not model.current.tracks:
        return None  # nothing to reorder (the contract needs at least one track)
    if kind == "REORDER":
        payload = {"track_ids": random.Random(value).sample(list(model.current.tracks), len(model.current.tracks))}
    return "memory.log_playlist_mutation", {**base, "type": kind, "payload": payload}


def _redo_target(model: RefLedger, latest: bool) -> int | None:
    """The latest standing undo, or an UNDO that is not it (a redo the service must refuse)."""
    standing = model.redo[-1][0] if model.redo else None
    if latest:
        return standing
    return next((s for s, t in enumerate(model.types) if t == "UNDO" and s != standing), None)


def _apply_to_model(model: RefLedger, kind: str, arguments: dict[str, Any], at_ms: int) -> tuple[int, int | None]:
    """(seq of the new event, seq of the change an undo reverses); raises Rejected like the contract."""
    if kind == "UNDO":
        return model.undo(at_ms)
    if kind == "REDO":
        return model.redo_of(model.event_ids.index(arguments["event_id"]), at_ms), None
    if kind == "RESYNC":
        return model.change("RESYNC", {"track_ids": arguments["track_ids"]}, at_ms), None
    return model.change(kind, arguments["payload"], at_ms), None


async def _step(call: Caller, model: RefLedger, kind: str, value: Any, at_ms: int) -> None:
    planned = _call_for(model, kind, value, at_ms)
    if planned is None:
        return
    tool, arguments = planned
    try:
        seq, reversed_seq = _apply_to_model(model, kind, arguments, at_ms)
    except Rejected as refused:
        await call.error(tool.replace(".", "_"), arguments, refused.code)
        assert await _now(call) == list(model.current.tracks), "a refused move changed the playlist"
        return
    result = assert_valid_success(tool, await call(tool.replace(".", "_"), arguments))
    model.event_ids[seq] = result["event_id"]
    if reversed_seq is not None:
        assert result["undid"] == {
            "event_id": model.event_ids[reversed_seq],
            "type": model.types[reversed_seq],
            "redo": False,
        }
    if kind == "REDO":
        assert result["undid"]["redo"] is True
    if kind == "RESYNC":
        assert result["new_snapshot_id"] is not None, "a resync always takes a snapshot"
    assert await _now(call) == list(model.current.tracks), (kind, value)


async def replayed(call: Any, drawn: dict[str, Any]) -> RefLedger:
    """The drawn playlist created and every drawn step made through the tools (a step of -1 ms:
    a moment before the last logged change, which every move must refuse), with the reference
    model of what the ledger must then hold."""
    model = RefLedger.created(RefState(tuple(drawn["tracks"]), {"name": "Drive", "intent_tags": []}), START_MS)
    await call.ok(
        "memory_log_playlist_create",
        {
            "user_id": USER,
            "playlist_id": PLAYLIST,
            "name": "Drive",
            "track_ids": drawn["tracks"],
            "created_at": ms_to_iso(START_MS),
        },
    )
    for (kind, value), step_ms in drawn["steps"]:
        await _step(call, model, kind, value, model.times[-1] + step_ms)
    return model


@hsettings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(drawn=scenario, probes=st.data())
async def test_moves_match_the_reference_model(settings_factory: Any, drawn: dict[str, Any], probes: Any) -> None:
    settings = settings_factory(**CONFIGS[drawn["config"]])
    async with connected(settings) as call:
        model = await replayed(call, drawn)

        # Reconstruction at every moment of the history and just before it.
        moments = sorted({t + d for t in model.times for d in (-1, 0)})
        for at_ms in moments:
            expected = model.at(at_ms)
            arguments = {"user_id": USER, "playlist_id": PLAYLIST, "at_time": ms_to_iso(at_ms)}
            if expected is None:
                await call.error("memory_reconstruct_playlist", arguments, "NOT_FOUND")
            else:
                got = await call.ok("memory_reconstruct_playlist", arguments)
                assert got["track_ids"] == list(expected.tracks), at_ms

        # Diffs between drawn moments (from_time may precede the creation: everything is added).
        for _ in range(4):
            from_ms = probes.draw(st.sampled_from(moments))
            to_ms = probes.draw(st.sampled_from([m for m in moments if m >= from_ms and m >= START_MS]))
            diff = assert_valid_success(
                "memory.diff_playlist",
                await call(
                    "memory_diff_playlist",
                    {
                        "user_id": USER,
                        "playlist_id": PLAYLIST,
                        "from_time": ms_to_iso(from_ms),
                        "to_time": ms_to_iso(to_ms),
                    },
                ),
            )
            before = model.at(from_ms) or RefState((), {})
            check_diff(diff, before, model.at(to_ms))  # type: ignore[arg-type]
            assert diff["existed_at_from_time"] == (from_ms >= START_MS)
            after_ms = from_ms if from_ms >= START_MS else None
            assert [e["event_id"] for e in diff["events"]] == model.events_between(after_ms, to_ms)

        # A fork at a drawn moment holds exactly the contents then, and names its source.
        fork_ms = probes.draw(st.sampled_from([m for m in moments if m >= START_MS]))
        fork_args = {"user_id": USER, "playlist_id": PLAYLIST, "new_playlist_id": FORK, "at_time": ms_to_iso(fork_ms)}
        forked = assert_valid_success("memory.fork_playlist", await call("memory_fork_playlist", fork_args))
        assert await call.ok("memory_fork_playlist", fork_args) == forked, "a retried fork answers the same"
        source_then = model.at(fork_ms)
        assert source_then is not None
        fork_now = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": FORK})
        assert fork_now["track_ids"] == list(source_then.tracks)
        details = await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": FORK})
        assert details["playlist"]["name"] == source_then.meta["name"]
        assert details["playlist"]["forked_from"]["playlist_id"] == PLAYLIST
        assert details["playlist"]["forked_from"]["at"] == ms_to_iso(fork_ms)
        assert [e["type"] for e in details["recent_events"]] == ["FORK"]
        await call.error("memory_undo_last_mutation", {"user_id": USER, "playlist_id": FORK}, "CONFLICT")
        await call.error(
            "memory_fork_playlist",
            {**fork_args, "new_playlist_id": playlist(3), "at_time": ms_to_iso(START_MS - 1)},
            "NOT_FOUND",
        )

        # An undo sent twice with the same client_event_id is applied once.
        if model.done:
            key = str(uuid.uuid4())
            later = model.times[-1] + 1
            seq, _ = model.undo(later)
            once = await call.ok(
                "memory_undo_last_mutation",
                {"user_id": USER, "playlist_id": PLAYLIST, "client_event_id": key, "timestamp": ms_to_iso(later)},
            )
            again = await call.ok(
                "memory_undo_last_mutation",
                {"user_id": USER, "playlist_id": PLAYLIST, "client_event_id": key, "timestamp": ms_to_iso(later)},
            )
            assert again == once
            model.event_ids[seq] = once["event_id"]
            assert await _now(call) == list(model.current.tracks)

        # The export, imported as another user, replays to the same contents at every moment.
        parts, cursor = [], None
        while True:
            data = (
                await call.ok("memory_export_user_data", {"user_id": USER, **({"cursor": cursor} if cursor else {})})
            )["data"]
            parts.append(data)
            cursor = data["continuation"]["next_cursor"]
            if cursor is None:
                break
        await call.service.transfer.import_counts(parts, COPY_USER)
        for at_ms in [*moments[::3], model.times[-1]]:
            expected = model.at(at_ms)
            if expected is not None:
                got = await call.ok(
                    "memory_reconstruct_playlist",
                    {"user_id": COPY_USER, "playlist_id": PLAYLIST, "at_time": ms_to_iso(at_ms)},
                )
                assert got["track_ids"] == list(expected.tracks)
        copied = await call.ok("memory_get_playlist", {"user_id": COPY_USER, "playlist_id": FORK})
        assert copied["playlist"]["forked_from"] == details["playlist"]["forked_from"]

    # After a restart on the same store the ledger still agrees, and undo still finds its place.
    async with connected(settings) as call:
        assert await _now(call) == list(model.current.tracks)
        if model.done:
            later = model.times[-1] + 1
            model.undo(later)
            await call.ok(
                "memory_undo_last_mutation", {"user_id": USER, "playlist_id": PLAYLIST, "timestamp": ms_to_iso(later)}
            )
            assert await _now(call) == list(model.current.tracks)
