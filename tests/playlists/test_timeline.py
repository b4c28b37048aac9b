"""memory_get_playlist_timeline: the track count after every event, against plain models.

- ``apply_event_to_counts`` against a plain list replay of random events of every type, duplicates
  included; ``downsample`` on random histories: at most max_points bins covering every event once,
  in order, min ≤ end ≤ max, type counts summing to the events, one bin per event when they fit.
- Through the MCP tool, on the random histories of the moves property test: one point per event
  with the reference model's count and type at every seq; binned, each bin's end count is the
  model's contents at its ``to``.
- Another user's playlist answers byte for byte as an unknown one; a disabled memory answers as an
  empty store; a fork starts with a FORK point."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from service.ledger.edits import edit_script
from service.ledger.state import apply_event_to_counts
from service.ledger.timeline import Moment, downsample
from tests.playlists.test_moves_properties import CONFIGS, PLAYLIST, USER, replayed, scenario
from tests.support import connected, playlist, track
from tests.support.contract import assert_valid_success
from tests.support.ledger_model import iso_to_ms

TRACKS = [track(i) for i in range(6)]
TOOL = "memory_get_playlist_timeline"

plain_events = st.lists(
    st.one_of(
        st.tuples(st.just("ADD_TRACKS"), st.lists(st.sampled_from(TRACKS), min_size=1, max_size=4), st.integers(0, 99)),
        st.tuples(st.just("REMOVE_TRACKS"), st.lists(st.sampled_from(TRACKS), min_size=1, max_size=3), st.just(0)),
        st.tuples(st.just("REORDER"), st.just([]), st.integers(0, 99)),
        st.tuples(st.just("UPDATE_META"), st.just([]), st.just(0)),
        st.tuples(st.sampled_from(["RESYNC", "UNDO"]), st.lists(st.sampled_from(TRACKS), max_size=8), st.just(0)),
    ),
    max_size=40,
)


@given(start=st.lists(st.sampled_from(TRACKS), max_size=8), events=plain_events)
def test_count_projection_matches_a_plain_replay(start: list[str], events: list[Any]) -> None:
    tracks = list(start)  # the plain model: a Python list edited as the README says
    counts = dict(Counter(start))
    total = len(start)
    for kind, ids, knob in events:
        if kind == "ADD_TRACKS":
            at = knob % (len(tracks) + 1)
            payload: dict[str, Any] = {"track_ids": ids, "insert_at": at}
            tracks[at:at] = ids
        elif kind == "REMOVE_TRACKS":
            payload = {"track_ids": ids}
            tracks = [t for t in tracks if t not in set(ids)]
        elif kind == "REORDER":
            tracks = tracks[knob % (len(tracks) or 1) :] + tracks[: knob % (len(tracks) or 1)]
            payload = {"track_ids": list(tracks)}
        elif kind == "UPDATE_META":
            payload = {"name": "n"}
        else:
            payload = edit_script(tracks, ids)
            tracks = list(ids)
        total += apply_event_to_counts(counts, kind, payload)
        assert total == len(tracks), (kind, payload)
        assert counts == dict(Counter(tracks))


moment_lists = st.lists(
    st.tuples(
        st.integers(0, 5000),
        st.integers(0, 50),
        st.sampled_from(["ADD_TRACKS", "REMOVE_TRACKS", "UNDO", "UPDATE_META"]),
    ),
    min_size=1,
    max_size=300,
)


@given(drawn=moment_lists, max_points=st.integers(1, 400))
def test_downsampling_keeps_every_event_once_and_the_counts_bounded(drawn: list[Any], max_points: int) -> None:
    start = datetime(2025, 1, 1, tzinfo=UTC)
    elapsed, moments = 0, []
    for seq, (step_ms, count, kind) in enumerate(drawn):
        elapsed += step_ms
        moments.append(Moment(seq, start + timedelta(milliseconds=elapsed), kind, count))
    points = downsample(moments, max_points)
    assert 1 <= len(points) <= max_points
    if len(moments) <= max_points:
        assert len(points) == len(moments)
    assert points[0]["seq_from"] == 0 and points[-1]["seq_to"] == len(moments) - 1
    for before, after in itertools.pairwise(points):
        assert after["seq_from"] == before["seq_to"] + 1 and before["to"] <= after["from"]
    for point in points:
        inside = moments[point["seq_from"] : point["seq_to"] + 1]
        assert point["from"] == inside[0].time and point["to"] == inside[-1].time
        assert point["track_count_min"] <= point["track_count_end"] <= point["track_count_max"]
        assert point["track_count_min"] == min(m.track_count for m in inside)
        assert point["track_count_max"] == max(m.track_count for m in inside)
        assert point["track_count_end"] == inside[-1].track_count
        assert point["types"] == dict(Counter(m.type for m in inside))
        assert sum(point["types"].values()) == len(inside)


@hsettings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(drawn=scenario, max_points=st.integers(10, 12))
async def test_timeline_matches_the_reference_model_at_every_seq(
    settings_factory: Any, drawn: dict[str, Any], max_points: int
) -> None:
    settings = settings_factory(**CONFIGS[drawn["config"]])
    async with connected(settings) as call:
        model = await replayed(call, drawn)
        arguments = {"user_id": USER, "playlist_id": PLAYLIST, "max_points": 2000}
        full = assert_valid_success("memory.get_playlist_timeline", await call(TOOL, arguments))
        assert full["events_total"] == len(model.states)
        assert full["track_count"] == len(model.current.tracks)
        assert [(p["seq_from"], p["seq_to"]) for p in full["points"]] == [(s, s) for s in range(len(model.states))]
        assert [p["track_count_end"] for p in full["points"]] == [len(s.tracks) for s in model.states]
        assert [p["types"] for p in full["points"]] == [{t: 1} for t in model.types]
        assert [iso_to_ms(p["from"]) for p in full["points"]] == model.times

        binned = assert_valid_success(
            "memory.get_playlist_timeline", await call(TOOL, {**arguments, "max_points": max_points})
        )
        assert len(binned["points"]) <= max_points
        assert sum(sum(p["types"].values()) for p in binned["points"]) == len(model.states)
        for point in binned["points"]:
            counts = [len(s.tracks) for s in model.states[point["seq_from"] : point["seq_to"] + 1]]
            assert (point["track_count_min"], point["track_count_max"]) == (min(counts), max(counts))
            assert point["track_count_end"] == counts[-1]
            if len(model.states) > max_points:  # time bins: a bin ends after every event of its last moment
                assert point["track_count_end"] == len(model.at(iso_to_ms(point["to"])).tracks)  # type: ignore[union-attr]


async def test_another_users_playlist_is_an_unknown_one_and_a_disabled_memory_is_empty(settings: Any) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": playlist(1), "name": "Mine", "track_ids": [track(1), track(2)]},
        )
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 2, "playlist_id": playlist(2), "name": "Theirs", "track_ids": [track(3)]},
        )
        theirs = await call(TOOL, {"user_id": 1, "playlist_id": playlist(2)})
        unknown = await call(TOOL, {"user_id": 1, "playlist_id": playlist(9)})
        assert theirs["error"]["code"] == "NOT_FOUND"
        assert json.dumps(theirs, sort_keys=True) == json.dumps(unknown, sort_keys=True)

        await call.ok(
            "memory_fork_playlist", {"user_id": 1, "playlist_id": playlist(1), "new_playlist_id": playlist(3)}
        )
        fork = await call.ok(TOOL, {"user_id": 1, "playlist_id": playlist(3)})
        assert [p["types"] for p in fork["points"]] == [{"FORK": 1}] and fork["track_count"] == 2

        await call.ok("memory_set_enabled", {"user_id": 1, "enabled": False})
        off = await call(TOOL, {"user_id": 1, "playlist_id": playlist(1)})
        unknown_off = await call(TOOL, {"user_id": 1, "playlist_id": playlist(9)})
        assert off["error"]["code"] == "NOT_FOUND" and off == unknown_off
        await call.ok("memory_set_enabled", {"user_id": 1, "enabled": True})
        assert (await call.ok(TOOL, {"user_id": 1, "playlist_id": playlist(1)}))["track_count"] == 2
