"""Verification of the load test: the union of the sessions' models is exactly what is stored.

Run after the load and again after a restart: every acknowledged write of every user, each user
through a fresh session with its own token, exactly one audit entry per acknowledged write, and
every scratch user (``load_exports``) deleted for good. On MongoDB the change-stream watcher writes
audit entries after the fact, so audit trails are read again until they settle (``AUDIT_WAIT``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service.settings import Settings
from tests.host.load_exports import is_empty_export
from tests.host.load_model import USERS, SessionModel, apply, shared_initial_tracks, shared_playlist_id
from tests.support.mcp_sessions import WireCaller, sse_session
from tests.support.server_process import ServerProcess

AUDIT_WAIT = 30.0  # seconds the MongoDB change-stream watcher gets to write the entries of the load

# The bearer token a session presents, for its user ids (its user and its scratch user). It is
# called once per session as it opens, and once per user for verification: every session is its
# own agent with its own user token, as in production (and the per-token rate limit applies to each).
TokenFor = Callable[..., str | None]


@dataclass
class SessionRun:
    """What one session of the load did: its model, and its calls during the load window."""

    model: SessionModel
    calls: int = 0  # successful calls during the load window (joining the shared playlist excluded)
    last_call_end: float | None = None  # time.monotonic() of its latest answer
    token_id: str | None = None


def replay(stored: dict[str, Any], meta: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """Contents from the exported creation snapshot and events; every later snapshot must agree."""
    pid, events = stored["playlist_id"], stored["events"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1)), f"{pid}: event seq not contiguous"
    snapshots = {s["seq"]: s["track_ids"] for s in stored["snapshots"]}
    tracks = list(snapshots[0])
    for event in events:
        tracks, meta = apply(tracks, meta, event["type"], event["payload"])
        assert snapshots.get(event["seq"], tracks) == tracks, f"{pid}: snapshot at seq {event['seq']} differs"
    return tracks, meta


async def verify_user(call: WireCaller, user: int, models: list[SessionModel]) -> None:
    exported = await call.export(user)
    by_pid = {p["playlist_id"]: p for p in exported["playlists"]}
    owned = [plist for model in models for plist in model.owned]
    shared = shared_playlist_id(user)
    assert sorted(by_pid) == sorted([p.pid for p in owned] + [shared]), f"user {user}: stored playlists differ"
    listing = await call.ok("memory_get_playlists", {"user_id": user, "limit": 200})
    counts = {item["playlist_id"]: item.get("track_count") for item in listing["items"]}
    assert listing["next_cursor"] is None and sorted(counts) == sorted(by_pid), f"user {user}: listing differs"

    for plist in owned:
        stored = by_pid[plist.pid]
        assert [e["event_id"] for e in stored["events"]] == plist.event_ids, (
            f"{plist.pid}: exported events differ from the {len(plist.event_ids)} acknowledged, in order"
        )
        assert stored["snapshots"][0]["snapshot_id"] == plist.snapshot_id
        initial = {k: plist.create_args[k] for k in ("name", "description", "intent_tags")}
        assert replay(stored, initial) == (plist.tracks, plist.meta), f"{plist.pid}: replayed export differs"
        rebuilt = await call.ok("memory_reconstruct_playlist", {"user_id": user, "playlist_id": plist.pid})
        assert rebuilt["track_ids"] == plist.tracks, f"{plist.pid}: reconstruct differs from the model"
        details = await call.ok("memory_get_playlist", {"user_id": user, "playlist_id": plist.pid})
        assert {k: details["playlist"].get(k, "") for k in initial} == plist.meta, f"{plist.pid}: metadata"
        latest = max(stored["snapshots"], key=lambda s: s["seq"])
        assert (details["latest_snapshot"]["snapshot_id"], details["latest_snapshot"]["track_ids"]) == (
            latest["snapshot_id"],
            latest["track_ids"],
        ), f"{plist.pid}: get_playlist's latest snapshot"
        assert counts[plist.pid] == len(plist.tracks), f"{plist.pid}: track_count {counts[plist.pid]}"

    # The shared playlist: 4 sessions appended at once, so only the multiset and each session's
    # own order are known; track IDs are unique per append, so every instance can be accounted for.
    stored = by_pid[shared]
    acked = sorted(e for model in models for e in model.shared_event_ids)
    assert sorted(e["event_id"] for e in stored["events"]) == acked, f"{shared}: events differ from acknowledged"
    assert {m.shared_snapshot_id for m in models} == {stored["snapshots"][0]["snapshot_id"]}, (
        f"{shared}: the concurrent creations with one key did not all get the one stored result"
    )
    rebuilt = (await call.ok("memory_reconstruct_playlist", {"user_id": user, "playlist_id": shared}))["track_ids"]
    initial_tracks = shared_initial_tracks(user)
    appended = [t for model in models for t in model.shared_appends]
    assert sorted(rebuilt) == sorted(initial_tracks + appended), (
        f"{shared}: {len(rebuilt)} tracks, expected {len(initial_tracks)} initial + {len(appended)} appended"
    )
    assert rebuilt[: len(initial_tracks)] == initial_tracks
    for model in models:
        mine = set(model.shared_appends)
        assert [t for t in rebuilt if t in mine] == model.shared_appends, f"{shared}: {model.tag}'s order"
    assert replay(stored, {})[0] == rebuilt, f"{shared}: replayed export differs from reconstruct"
    assert counts[shared] == len(rebuilt), f"{shared}: track_count {counts[shared]} != {len(rebuilt)}"

    patches = sum(m.profile_patches for m in models)
    expected_profile: dict[str, Any] = (
        {
            "load": {k: v for m in models for k, v in m.profile_keys.items()},
            "last": {m.tag: m.profile_last for m in models if m.profile_patches},
        }
        if patches
        else {}
    )
    profile = await call.ok("memory_get_profile", {"user_id": user})
    shown_keys = set(profile["profile"].get("load", {}).items())
    expected_keys = set(expected_profile.get("load", {}).items())
    assert (profile["profile"], profile["version"]) == (expected_profile, patches), (
        f"user {user}: profile v{profile['version']} after {patches} acknowledged patches; 'load' entries "
        f"missing {sorted(expected_keys - shown_keys)[:5]}, unexpected {sorted(shown_keys - expected_keys)[:5]}"
    )
    if patches:
        assert (exported["profile"]["profile"], exported["profile"]["version"]) == (expected_profile, patches)
    preferences = sorted(e for m in models for e in m.preference_ids)
    assert sorted(e["event_id"] for e in exported["preference_events"]) == preferences, (
        f"user {user}: {len(exported['preference_events'])} preference events stored, {len(preferences)} acknowledged"
    )
    rows = {u["user_id"]: u for u in (await call.ok("ops_list_users", {}))["users"]}
    shown = tuple(rows[user][k] for k in ("profile_version", "playlist_count", "preference_event_count"))
    assert shown == (patches, len(owned) + 1, len(preferences)), f"user {user}: ops_list_users shows {shown}"


def acknowledged_writes(models: list[SessionModel]) -> int:
    # + 1: the shared playlist, created once for the 4 sessions that asked with one key.
    return 1 + sum(
        len(m.owned)
        + sum(len(p.event_ids) for p in m.owned)
        + len(m.shared_event_ids)
        + m.profile_patches
        + len(m.preference_ids)
        for m in models
    )


async def audit_trail(call: WireCaller, user: int) -> list[dict[str, Any]]:
    """Every entry of the user's audit trail."""
    entries: list[dict[str, Any]] = []
    arguments: dict[str, Any] = {"user_id": user, "limit": 500}
    while True:
        page = await call.ok("ops_audit", arguments)
        entries += page["entries"]
        if page["next_cursor"] is None:
            return entries
        arguments = {"user_id": user, "limit": 500, "cursor": page["next_cursor"]}


async def settled_trail(
    call: WireCaller, user: int, settings: Settings, done: Callable[[list[dict[str, Any]]], bool]
) -> list[dict[str, Any]]:
    """The user's trail once ``done`` holds for it. The embedded engine writes an entry in the same
    unit of work as its change, so the first read is final; on MongoDB the change-stream watcher
    writes entries after the fact, so the trail is read again until ``done`` or AUDIT_WAIT."""
    deadline = time.monotonic() + (AUDIT_WAIT if settings.mongodb_uri else 0.0)
    while True:
        entries = await audit_trail(call, user)
        if done(entries) or time.monotonic() >= deadline:
            return entries
        await asyncio.sleep(0.25)


async def verify_scratch(call: WireCaller, run: SessionRun, settings: Settings, listed: set[int]) -> None:
    """A scratch user ends every cycle deleted: nothing exported, not listed, and its trail is one
    tombstone per delete, each naming the session's token."""
    user, cycles = run.model.scratch_user, run.model.scratch_cycles
    assert is_empty_export(await call.export(user)), f"scratch user {user}: data left after {cycles} deletes"
    assert user not in listed, f"scratch user {user}: listed by ops_list_users after its deletion"
    trail = await settled_trail(
        call,
        user,
        settings,
        lambda entries: len(entries) == cycles and all(e["operation"] == "delete_user_data" for e in entries),
    )
    assert [(e["operation"], e["principal"]) for e in trail] == [("delete_user_data", run.token_id)] * cycles, (
        f"scratch user {user}: trail after {cycles} deletes: {[(e['operation'], e['principal']) for e in trail][:8]}"
    )


async def verify(
    server: ServerProcess, token_for: TokenFor, operator: str, runs: list[SessionRun], settings: Settings
) -> float:
    """Every acknowledged write, user by user, each through a fresh session, exactly one audit
    entry per acknowledged write, and every scratch user empty; returns the seconds spent."""
    started = time.monotonic()
    models = [run.model for run in runs]
    for user in range(1, USERS + 1):
        mine = [m for m in models if m.user == user]
        async with sse_session(server, token=token_for(user)) as call:
            await verify_user(call, user, mine)
        expected = acknowledged_writes(mine)
        async with sse_session(server, token=operator) as call:
            trail = await settled_trail(call, user, settings, lambda entries: len(entries) >= expected)
        principals = {e["principal"] for e in trail}
        assert len(trail) == expected, f"user {user}: {len(trail)} audit entries for {expected} acknowledged writes"
        assert len(principals) >= len(mine) and None not in principals, principals
    async with sse_session(server, token=operator) as call:
        listed = {u["user_id"] for u in (await call.ok("ops_list_users", {"limit": 200}))["users"]}
        for run in runs:
            await verify_scratch(call, run, settings, listed)
    return time.monotonic() - started
