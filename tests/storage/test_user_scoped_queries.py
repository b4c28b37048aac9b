"""Every query a one-user call sends filters by ``user_id``, so a sharded MongoDB cluster with
``user_id`` as shard key routes it to one shard (a filter by ``_id`` alone goes to every shard,
although our ``_id``s encode the user). The filter of every storage call made for a one-user tool
(all but ``ops_*``), and for the one-user CLI paths (export, import), must carry ``user_id`` at its
top level, at the storage interface and at the driver (``tests/support/query_recorder.py``), over
the scenario of ``user_scoped_scenario.py``.

Work that has no user by nature is exempt, and listed below with its reason; only code paths
that are not one-user calls may be exempt.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from tests.storage.user_scoped_scenario import (
    USER,
    export_delete_import,
    playlists_scenario,
    profile_and_events,
    reads_scenario,
)
from tests.support import connected, every_tool
from tests.support.query_recorder import (
    INTERFACE_METHODS,
    Query,
    Recorder,
    RecordingCaller,
    record_driver,
    record_interface,
)

# Paths that are not one-user calls, so their storage calls may span users.
EXEMPT_PHASES = {
    "ops_list_users": "operator bootstrap over every user the caller may see (reads per-user counters)",
    "ops_audit": "operator query, optionally across users",
}

# Start-up runs once per process before any call; these sweeps read every user's documents (on
# MongoDB each is one scatter-gather per collection at start-up); every per-user repair they
# trigger is itself scoped. The HTTP server's background search warm-up (embedded engine only,
# not started here) lists users from ``user_stats`` once, then reads user by user.
EXEMPT_AT_STARTUP = {
    "service/ledger/recovery.py:roll_forward_all": "crash recovery: finds playlist documents behind their history",
    "service/users/stats.py:recount_all": "per-user counters recounted from the records (a crash may leave one behind)",
}

EXEMPT_COLLECTIONS = {
    "audit_state": "the change-stream watcher's resume position: one document, no user (MongoDB only)"
}

# Unscoped queries in code this file's author may not change, each with the change it awaits.
# The test tolerates exactly these and fails once one no longer occurs, so the list stays true:
# remove an entry when its fix lands.
AWAITING_OWNER: dict[str, tuple[set[str], Any]] = {
    # Preference events are keyed by their own uuid, unique across users (every other collection's
    # _id names its user). An import must not write an event id another user holds, so it looks the
    # imported ids up across users, once per import. Fixed when events get "<user>:<event>" ids.
    "import: imported preference-event ids checked across users (events lack per-user _ids)": (
        {"interface", "driver"},
        lambda q: (
            q.collection == "preference_events"
            and q.method == "find"
            and isinstance(q.filter, dict)
            and q.filter.get("user_id") == {"$ne": USER}
        ),
    )
}

NOT_IN_ONE_USER_CALLS = {"find_one_and_update", "aggregate", "count_by_user"}


def _summary(queries: list[Query]) -> str:
    shapes: dict[str, set[str]] = defaultdict(set)
    calls: dict[str, int] = defaultdict(int)
    for q in queries:
        shapes[q.collection].add(f"{q.method} {q.shape}")
        calls[q.collection] += 1
    return "\n".join(f"  {name}: {calls[name]} calls, {len(shapes[name])} distinct filters" for name in sorted(shapes))


def _unscoped(queries: list[Query]) -> list[Query]:
    return [
        q
        for q in queries
        if not q.scoped
        and q.phase not in EXEMPT_PHASES
        and q.collection not in EXEMPT_COLLECTIONS
        and q.phase != "startup"
    ]


def _assert_scoped(level: str, queries: list[Query]) -> None:
    unscoped = _unscoped(queries)
    awaiting = {reason: test for reason, (levels, test) in AWAITING_OWNER.items() if level in levels}
    unexpected = [q for q in unscoped if not any(test(q) for test in awaiting.values())]
    assert not unexpected, f"{level}: storage calls of one-user paths without a user_id equality:\n" + "\n".join(
        sorted({str(q) for q in unexpected})
    )
    fixed = [reason for reason, test in awaiting.items() if not any(test(q) for q in unscoped)]
    assert not fixed, f"{level}: fixed, remove from AWAITING_OWNER: {fixed}"


async def _run(settings_factory: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Recorder, bool, set[str]]:
    recorder = Recorder()
    record_interface(monkeypatch, recorder)
    settings = settings_factory(
        snapshot_every=3,
        bucket_max_track_ids=100,
        recent_events_cap=5,
        recent_snapshots_cap=2,
        export_part_bytes=10_000,
    )
    async with connected(settings) as inner:
        listed = {tool.name for tool in await every_tool(inner.client)}
        driver = record_driver(inner.service, recorder)
        call = RecordingCaller(inner, recorder)
        with recorder.during("scenario"):
            await profile_and_events(call)
            await playlists_scenario(call)
            await reads_scenario(call, inner.service)
            await export_delete_import(call, recorder, inner.service)
        untouched = {t for t in listed if not t.startswith("ops_") and t != "memory_enable_toolsets"} - call.tools
        assert not untouched, f"one-user tools the scenario does not drive (add them): {sorted(untouched)}"
    # A restart: the recovery sweep and the search index rebuild, recorded as start-up.
    async with connected(settings):
        pass
    return recorder, driver, listed


async def test_every_one_user_call_filters_by_user_id_at_the_storage_interface(
    settings_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder, _, _ = await _run(settings_factory, monkeypatch)
    queries = recorder.at("interface")
    calls = [q for q in queries if q.phase not in ("startup", "scenario", *EXEMPT_PHASES)]
    print("\nstorage interface, one-user calls:\n" + _summary(calls))
    touched = {q.collection for q in calls}
    assert touched >= {
        "profiles",
        "preference_events",
        "playlists",
        "playlist_history",
        "idempotency",
        "listing_cursors",
        "audit_log",
        "user_stats",
    }, touched
    assert {q.method for q in calls} >= INTERFACE_METHODS - NOT_IN_ONE_USER_CALLS
    _assert_scoped("interface", queries)
    assert all(q.phase != "scenario" for q in queries), "a storage call outside any tool call"
    startup = {q.site for q in queries if q.phase == "startup" and not q.scoped}
    assert startup <= set(EXEMPT_AT_STARTUP), f"start-up queries without user_id not listed as exempt: {startup}"


async def test_every_one_user_call_filters_by_user_id_at_the_driver(
    settings_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder, driver, _ = await _run(settings_factory, monkeypatch)
    if not driver:
        pytest.skip("the storage layer does not expose its driver collection; the interface test covers it")
    calls = [q for q in recorder.at("driver") if q.phase not in EXEMPT_PHASES]
    print("\ndriver, one-user calls:\n" + _summary(calls))
    _assert_scoped("driver", calls)
