"""Property test of the playlist ledger against an independent reference model: random settings
variants with small caps, playlists and mutations (some rejected by the contract), every read tool
checked against the model at many moments, and every bucket seal (by count or by size) predicted
exactly (details on the test). The scenarios are drawn in ``ledger_scenarios``; each example opens
its own store (``settings_factory``), so examples share nothing.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, Phase, given
from hypothesis import event as count_in_statistics
from hypothesis import settings as hsettings

from tests.ledger.ledger_scenarios import (
    CONFIGS,
    MIN_SIZE_SEALED_SHARE,
    PLAYLIST,
    SIZE_SEALED,
    SIZED,
    USER,
    Scenario,
    at_time_probes,
    expected_at,
    predicted_snapshots,
    scenarios,
)
from tests.support import connected
from tests.support.ledger_model import Policy, iso_to_ms, ms_to_iso


@hsettings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(scenario=scenarios())
async def test_ledger_matches_reference_model(settings_factory: Any, scenario: Scenario) -> None:
    """Each example draws a settings variant with small caps (so reconstruction crosses snapshot and
    bucket boundaries and the capped arrays on the playlist document have dropped entries), a
    playlist, and a sequence of mutations with non-decreasing, often equal, millisecond timestamps
    written with sub-millisecond noise and arbitrary UTC offsets. Some mutations are ones the contract
    rejects; the model predicts the error code and that nothing changes. Then every read tool is
    checked against the model at many moments.

    Which mutations open a new history bucket (with a snapshot) is predicted exactly by
    ``ledger_model.Policy`` and asserted in every example. In the "sized" configs the bucket limit is
    the smallest the settings accept and the playlists are long, so a bucket is sealed by size, before
    the count rule would seal it, in 35-60% of examples (``test_strategy_reaches_size_based_sealing``
    asserts at least a fifth; ``--hypothesis-show-statistics`` shows each run's share).
    Reconstruction is probed at every change's moment and the millisecond before it, so on both sides
    of each seal whose change has a moment of its own, and must replay from the nearest snapshot."""
    overrides = CONFIGS[scenario.config]
    settings = settings_factory(**overrides)
    every = Policy.of(overrides).every
    predicted = predicted_snapshots(scenario)
    sealed_by_size = sorted(q for q, why in predicted.items() if why == "size")
    count_in_statistics(SIZE_SEALED if sealed_by_size else "no bucket sealed by size")
    async with connected(settings) as call:
        # A fresh store: nothing from an earlier example is visible.
        assert (await call.ok("memory_get_playlists", {"user_id": USER}))["items"] == []
        await call.error("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": PLAYLIST}, "NOT_FOUND")

        created = await call.ok("memory_log_playlist_create", scenario.create_args)
        assert created["playlist_id"] == PLAYLIST
        assert created["created_at"] == ms_to_iso(scenario.created_ms)
        assert created["stored_track_count"] == len(scenario.create_args["track_ids"])
        snapshots: dict[int, tuple[str, int]] = {0: (created["snapshot_id"], scenario.created_ms)}

        # --- the mutations, each checked as it goes -------------------------------------------
        applied = 0
        for op in scenario.ops:
            arguments = {
                "user_id": USER,
                "playlist_id": PLAYLIST,
                "type": op.kind,
                "payload": op.payload,
                "timestamp": op.ts_text,
            }
            if op.expect is not None:
                await call.error("memory_log_playlist_mutation", arguments, op.expect)
                now = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": PLAYLIST})
                unchanged = list(scenario.history[applied][1].tracks)
                assert now["track_ids"] == unchanged, "a rejected change changed the list"
                continue
            result = await call.ok("memory_log_playlist_mutation", arguments)
            applied += 1
            assert result["playlist_id"] == PLAYLIST
            assert result["timestamp"] == ms_to_iso(op.ts_ms)
            assert (result["new_snapshot_id"] is not None) == (applied in predicted), (applied, predicted, result)
            if result.get("new_snapshot_id") is not None:
                assert result["new_snapshot_id"] not in {sid for sid, _ in snapshots.values()}
                snapshots[applied] = (result["new_snapshot_id"], op.ts_ms)
        assert applied == len(scenario.accepted)
        history = scenario.history
        latest_ts, latest = history[-1]

        # --- the full history, as exported ------------------------------------------------------
        exported = await call.ok("memory_export_user_data", {"user_id": USER})
        assert exported["data"]["continuation"]["next_cursor"] is None
        [record] = exported["data"]["playlists"]
        events = record["events"]
        assert [e["seq"] for e in events] == list(range(1, applied + 1))
        for event, op in zip(events, scenario.accepted):
            assert (event["type"], event["payload"], event["timestamp"]) == (op.kind, op.payload, ms_to_iso(op.ts_ms))
        # Exactly the snapshots the results announced (plus the creation snapshot), each exact.
        announced = {q: sid for q, (sid, _) in snapshots.items()}
        assert {s["seq"]: s["snapshot_id"] for s in record["snapshots"]} == announced
        for snap in record["snapshots"]:
            ts, state = history[snap["seq"]]
            assert snap["track_ids"] == list(state.tracks), snap["seq"]
            assert snap["meta"] == state.meta, snap["seq"]
            assert snap["created_at"] == ms_to_iso(ts)
        assert sorted(snapshots) == sorted(predicted)
        # The documented bound of MEMORY_BUCKET_MAX_TRACK_IDS, from the export alone: a bucket
        # (its snapshot and the track IDs its later events carry) reaches the limit only with its
        # last event; the next change opens a new bucket.
        limit_ids = Policy.of(overrides).max_track_ids
        bounds = [*sorted(snapshots), applied + 1]
        for start, end in itertools.pairwise(bounds):
            if end - start < 2:
                continue  # the bucket holds only its opening change, which its snapshot includes
            held = len(history[start][1].tracks) + sum(
                len(op.payload.get("track_ids", ())) for op in scenario.accepted[start : end - 2]
            )
            assert held < limit_ids, (start, end, held)
        seq_of_snapshot = {sid: q for q, (sid, _) in snapshots.items()}

        # --- reconstruction at many moments -----------------------------------------------------
        read_sealed = False
        for at_ms, at_text in at_time_probes(scenario):
            arguments = {"user_id": USER, "playlist_id": PLAYLIST, "at_time": at_text}
            expected = expected_at(history, at_ms)
            if expected is None:
                await call.error("memory_reconstruct_playlist", arguments, "NOT_FOUND")
                continue
            count, state = expected
            got = await call.ok("memory_reconstruct_playlist", arguments)
            assert got["track_ids"] == list(state.tracks), (at_text, count)
            assert got["playlist_id"] == PLAYLIST
            assert got["as_of"] == ms_to_iso(at_ms)
            used = got["reconstruction"]["used_snapshot_id"]
            assert used in seq_of_snapshot, used
            base = seq_of_snapshot[used]
            assert snapshots[base][1] <= at_ms, "used a snapshot taken after at_time"
            assert base + got["reconstruction"]["applied_event_count"] == count, (at_text, base, got)
            # Replayed from the nearest snapshot: across a sealed bucket, never from the one before.
            assert base == max(q for q in snapshots if q <= count), (at_text, base, sorted(snapshots))
            if base in sealed_by_size:
                read_sealed = True
        if sealed_by_size:
            count_in_statistics(
                "a reconstruction replayed from a size-sealed bucket's snapshot"
                if read_sealed
                else "size-sealed buckets share their moment with a later snapshot"
            )

        now = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": PLAYLIST})
        assert now["track_ids"] == list(latest.tracks)
        assert iso_to_ms(now["as_of"]) >= latest_ts

        # --- one playlist's details -------------------------------------------------------------
        expected_events = [
            {"timestamp": ms_to_iso(op.ts_ms), "type": op.kind, "payload": op.payload} for op in scenario.accepted
        ]
        latest_snapshot_seq = max(snapshots)
        for limit in sorted({0, 1, 2, 3, 4, every, applied, applied + 1, 50}):
            details = await call.ok(
                "memory_get_playlist", {"user_id": USER, "playlist_id": PLAYLIST, "include_events_limit": limit}
            )
            got_events = details["recent_events"]
            want = expected_events[max(0, len(expected_events) - limit) :] if limit else []
            assert [{k: e[k] for k in ("timestamp", "type", "payload")} for e in got_events] == want, limit
            assert [e["event_id"] for e in got_events] == [e["event_id"] for e in events][len(events) - len(want) :]
            assert details["latest_snapshot"]["snapshot_id"] == snapshots[latest_snapshot_seq][0]
            assert details["latest_snapshot"]["track_ids"] == list(history[latest_snapshot_seq][1].tracks)
            assert details["latest_snapshot"]["created_at"] == ms_to_iso(snapshots[latest_snapshot_seq][1])
            info = details["playlist"]
            assert info["name"] == latest.meta["name"]
            assert info["intent_tags"] == latest.meta["intent_tags"]
            assert info.get("description") == latest.meta.get("description")
            assert info["created_at"] == ms_to_iso(scenario.created_ms)
            assert info["updated_at"] == ms_to_iso(latest_ts)
        default = await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": PLAYLIST})
        assert [e["event_id"] for e in default["recent_events"]] == [e["event_id"] for e in events][-50:]

        # --- the listing ------------------------------------------------------------------------
        listing = await call.ok("memory_get_playlists", {"user_id": USER})
        assert listing["next_cursor"] is None
        [item] = listing["items"]
        assert item == {
            "playlist_id": PLAYLIST,
            "name": latest.meta["name"],
            "created_at": ms_to_iso(scenario.created_ms),
            "updated_at": ms_to_iso(latest_ts),
            "intent_tags": latest.meta["intent_tags"],
            "track_count": len(latest.tracks),
        }
        before_restart = await call.ok("memory_export_user_data", {"user_id": USER})

    # --- everything survives a restart of the service on the same store ------------------------
    async with connected(settings) as call:
        after_restart = await call.ok("memory_export_user_data", {"user_id": USER})
        assert after_restart["data"]["playlists"] == before_restart["data"]["playlists"]
        now = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": PLAYLIST})
        assert now["track_ids"] == list(latest.tracks)
        [item_again] = (await call.ok("memory_get_playlists", {"user_id": USER}))["items"]
        assert item_again == item


def test_strategy_reaches_size_based_sealing() -> None:
    """At least a fifth of the scenarios seal a bucket by size before the count rule would, as
    the model predicts; the property test asserts in every example that the service takes exactly
    the predicted snapshots, so the prediction stands for the service. Deterministic (derandomized,
    no example database), model only: no service is opened, so it costs a few seconds."""
    drawn: Counter[str] = Counter()
    sealed: Counter[str] = Counter()

    @hsettings(
        max_examples=200,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(scenario=scenarios())
    def tally(scenario: Scenario) -> None:
        drawn[scenario.config] += 1
        if "size" in predicted_snapshots(scenario).values():
            sealed[scenario.config] += 1

    tally()
    examples, reached = sum(drawn.values()), sum(sealed.values())
    print(
        f"size-based sealing in {reached} of {examples} scenarios ({reached / examples:.0%}); "
        f"per config: { {c: f'{sealed[c]}/{drawn[c]}' for c in sorted(drawn)} }"
    )
    assert examples >= 150, drawn
    assert reached >= MIN_SIZE_SEALED_SHARE * examples, (sealed, drawn)
    assert not sealed.keys() - SIZED, "only the sized configs can reach the bucket limit"
