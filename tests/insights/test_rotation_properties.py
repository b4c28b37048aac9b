"""Property test: memory_rotation_report equals the plain reference in ``rotation_model``.

Each example draws snapshot caps (histories cross buckets), up to four playlists created over a
year or more of client timestamps (some in the future), changes of every kind the ledger records
(adds with duplicates, removes, reorders, metadata, resyncs, undos) and forks at drawn moments,
then asks for the report with a drawn window and compares every entry and total.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from service.insights.presence import read_presence
from tests.insights.rotation_model import DAY_MS, RefPlaylists, report
from tests.support import Caller, connected, playlist, track
from tests.support.contract import assert_valid_success
from tests.support.ledger_model import iso_to_ms, ms_to_iso

USER = 7
TRACKS = [track(i) for i in range(10)]
CONFIGS = [
    {"snapshot_every": 2, "recent_events_cap": 2, "recent_snapshots_cap": 1, "snapshot_min_event_share": 0.0},
    {"snapshot_every": 10, "recent_events_cap": 50, "recent_snapshots_cap": 10},
]
STEPS_MS = [60_000, 3_600_000, DAY_MS, 10 * DAY_MS, 45 * DAY_MS, 95 * DAY_MS]

some_tracks = st.lists(st.sampled_from(TRACKS), min_size=1, max_size=4)
operations = st.one_of(
    st.tuples(st.just("CREATE"), st.lists(st.sampled_from(TRACKS), min_size=1, max_size=5)),
    st.tuples(st.just("ADD_TRACKS"), some_tracks),
    st.tuples(st.just("ADD_TRACKS"), some_tracks),
    st.tuples(st.just("REMOVE_TRACKS"), st.lists(st.sampled_from(TRACKS), min_size=1, max_size=2)),
    st.tuples(st.just("REORDER"), st.integers(0, 1000)),
    st.tuples(st.just("UPDATE_META"), st.just({"name": "Renamed"})),
    st.tuples(st.just("RESYNC"), st.lists(st.sampled_from(TRACKS), max_size=6)),
    st.tuples(st.just("UNDO"), st.none()),
)
scenario = st.fixed_dictionaries(
    {
        "config": st.sampled_from(range(len(CONFIGS))),
        "start_days_ago": st.sampled_from([5, 60, 200, 500]),
        "steps": st.lists(st.tuples(operations, st.integers(0, 3), st.sampled_from(STEPS_MS)), min_size=1, max_size=18),
        "forks": st.lists(st.tuples(st.integers(0, 3), st.integers(-1, 20)), max_size=2),
        "days": st.sampled_from([1, 7, 30, 90, 200, 3650]),
    }
)


async def _step(call: Caller, model: RefPlaylists, op: tuple[str, Any], target: int, at_ms: int) -> None:
    kind, value = op
    existing = sorted(model.timelines)
    if kind == "CREATE" or not existing:
        playlist_id = playlist(len(existing))
        tracks = value if kind == "CREATE" else [TRACKS[-1]]  # a playlist starts with a track
        if len(existing) == 4:
            return
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": USER,
                "playlist_id": playlist_id,
                "name": "Mix",
                "track_ids": tracks,
                "created_at": ms_to_iso(at_ms),
            },
        )
        model.create(playlist_id, tracks, at_ms)
        return
    playlist_id = existing[target % len(existing)]
    current = list(model.current(playlist_id))
    base = {"user_id": USER, "playlist_id": playlist_id, "timestamp": ms_to_iso(at_ms)}
    if kind == "UNDO":
        if model.undo_last(playlist_id, at_ms):
            await call.ok("memory_undo_last_mutation", base)
        else:
            await call.error("memory_undo_last_mutation", base, "CONFLICT")
        return
    if kind == "RESYNC":
        await call.ok("memory_resync_playlist", {**base, "track_ids": value})
        model.change(playlist_id, value, at_ms)
        return
    if kind == "REORDER":
        if not current:
            return
        value = {"track_ids": random.Random(value).sample(current, len(current))}
        after = value["track_ids"]
    elif kind == "ADD_TRACKS":
        after, value = current + value, {"track_ids": value}
    elif kind == "REMOVE_TRACKS":
        after, value = [t for t in current if t not in value], {"track_ids": value}
    else:
        after = current
    await call.ok("memory_log_playlist_mutation", {**base, "type": kind, "payload": value})
    model.change(playlist_id, after, at_ms)


async def _fork(call: Caller, model: RefPlaylists, source: int, moment: int) -> None:
    existing = sorted(model.timelines)
    source_id, new_id = existing[source % len(existing)], playlist(len(existing))
    timeline = model.timelines[source_id]
    arguments = {"user_id": USER, "playlist_id": source_id, "new_playlist_id": new_id}
    if moment < 0 and timeline[0][0] > iso_to_ms(datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:23] + "Z"):
        moment = 0  # "now" would precede a source created in the future (NOT_FOUND)
    if moment >= 0:  # a moment of the source's history; -1: now
        arguments["at_time"] = ms_to_iso(timeline[moment % len(timeline)][0])
    forked = await call.ok("memory_fork_playlist", arguments)
    at_ms = iso_to_ms(forked["forked_from"]["at"])
    model.create(new_id, list(model.at(source_id, at_ms)), iso_to_ms(forked["created_at"]))


def _comparable(entry: dict[str, Any]) -> dict[str, Any]:
    shown = {k: v for k, v in entry.items() if k not in ("name", "artists")}
    return {**shown, "first_seen": iso_to_ms(shown["first_seen"]), "present_since": iso_to_ms(shown["present_since"])}


@hsettings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(drawn=scenario)
async def test_rotation_report_matches_the_reference(settings_factory: Any, drawn: dict[str, Any]) -> None:
    settings = settings_factory(**CONFIGS[drawn["config"]])
    model = RefPlaylists()
    now_ms = iso_to_ms(datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z"))
    at_ms = now_ms - drawn["start_days_ago"] * DAY_MS
    async with connected(settings) as call:
        for op, target, step_ms in drawn["steps"]:
            await _step(call, model, op, target, at_ms)
            at_ms += step_ms
        for source, moment in drawn["forks"]:
            if 0 < len(model.timelines) < 5:
                await _fork(call, model, source, moment)
        arguments = {"user_id": USER, "days": drawn["days"], "limit": 500}
        got = assert_valid_success("memory.rotation_report", await call("memory_rotation_report", arguments))
        new, staples, in_rotation = report(model, iso_to_ms(got["as_of"]), drawn["days"])
        assert [_comparable(e) for e in got["new"]] == new
        assert [_comparable(e) for e in got["staples"]] == staples
        assert got["totals"] == {
            "playlists": len(model.timelines),
            "tracks_in_rotation": in_rotation,
            "new": len(new),
            "staples": len(staples),
            "other": in_rotation - len(new) - len(staples),
        }
        assert got["truncated"] is False
        assert iso_to_ms(got["as_of"]) - iso_to_ms(got["window_start"]) == drawn["days"] * DAY_MS
        # Both ways of reading the histories (embedded: bucket chain; MongoDB: two finds) agree.
        database = call.service.database
        assert await read_presence(database, USER, chained=True) == await read_presence(database, USER, chained=False)
        # A smaller limit keeps each list's first entries, and says it cut.
        small = await call.ok("memory_rotation_report", {**arguments, "limit": 1})
        assert [_comparable(e) for e in small["new"]] == new[:1]
        assert [_comparable(e) for e in small["staples"]] == staples[:1]
        assert small["truncated"] == (len(new) > 1 or len(staples) > 1)
