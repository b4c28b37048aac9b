"""Export holds everything (history included), comes in bounded parts, imports back; delete erases all.

The CLI runs as a subprocess on the same store, so every in-process server is closed before it
runs (an embedded data directory is locked while a server holds it).
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from service.settings import Settings
from service.transfer.memories import SECTIONS as MEMORY_SECTIONS
from tests.support import Caller, connected, playlist, track
from tests.support.contract import assert_valid_error, assert_valid_success

REPO = Path(__file__).resolve().parents[2]
ONE_MIB = 1 << 20
FORMAT = "taste-memory-export/1"


# --- helpers ---------------------------------------------------------------------------------


def cli(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    """``memory-service <args>`` on the store ``settings`` names, as a separate process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    command = [sys.executable, "-m", "host.cli", *args]
    if settings.mongodb_uri:
        env["MEMORY_MONGODB_URI"] = settings.mongodb_uri
        env["MEMORY_DATABASE_NAME"] = settings.database_name
    else:
        command += ["--data-dir", str(settings.data_dir)]
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}"
    return done


def cli_export(settings: Settings, user_id: int, out: Path) -> dict[str, Any]:
    cli(settings, "export", "--user-id", str(user_id), "--out", str(out))
    return json.loads(out.read_text())


def at(minutes: int) -> str:
    moment = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(minutes=minutes)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def apply(tracks: list[str], kind: str, payload: dict[str, Any]) -> list[str]:
    """The PRD mutation semantics, written independently of the service."""
    if kind == "ADD_TRACKS":
        new = payload["track_ids"]
        if "positions" in payload:
            placed = dict(zip(payload["positions"], new))
            rest = iter(tracks)
            return [placed[i] if i in placed else next(rest) for i in range(len(tracks) + len(new))]
        where = payload.get("insert_at", len(tracks))
        return tracks[:where] + new + tracks[where:]
    if kind == "REMOVE_TRACKS":
        return [t for t in tracks if t not in set(payload["track_ids"])]
    if kind == "REORDER":
        return list(payload["track_ids"])
    return tracks


def without_moment(data: dict[str, Any]) -> dict[str, Any]:
    # Chunks only carry oversize pieces across parts; reassembly has put them in place.
    return {k: v for k, v in data.items() if k not in ("as_of", "continuation", "chunks")}


async def export_parts(call: Caller, user_id: int, between: Any = None) -> list[tuple[dict[str, Any], int, int]]:
    """Every part of a user's export: (result, size of the text content, size of the MCP message).

    ``between(n)`` runs after part ``n`` arrives, before the next is asked for."""
    parts: list[tuple[dict[str, Any], int, int]] = []
    cursor: str | None = None
    while True:
        arguments: dict[str, Any] = {"user_id": user_id}
        if cursor is not None:
            arguments["cursor"] = cursor
        raw = await call.client.call_tool("memory_export_user_data", arguments)
        text = raw.content[0].text
        envelope = json.loads(text)
        assert envelope == raw.structured_content
        result = assert_valid_success("memory.export_user_data", envelope)
        # What an SSE client receives: the JSON-RPC response carrying both renderings.
        message = json.dumps(
            {"jsonrpc": "2.0", "id": 1, "result": raw.model_dump(mode="json", by_alias=True, exclude_none=True)}
        )
        parts.append((result, len(text.encode()), len(message.encode())))
        cursor = result["data"]["continuation"]["next_cursor"]
        if cursor is None:
            return parts
        if between is not None:
            await between(len(parts))
        assert len(parts) < 5000, "the export never ends"


def reassemble(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Join continuation parts into one document, asserting nothing is repeated.

    A piece larger than a part arrives as ``chunks``: consecutive slices of its JSON text."""
    out: dict[str, Any] = {
        "format": FORMAT,
        "profile": None,
        "preference_events": [],
        "playlists": [],
        "tracks": [],
        "track_choices": [],
        **{name: [] for name in MEMORY_SECTIONS.values()},
    }
    profiles = 0

    by_pid: dict[str, dict[str, Any]] = {}

    def playlist_entry(pid: str, header: dict[str, Any] | None) -> dict[str, Any]:
        # Chunks of a part travel beside its playlists, so an entry may be joined out of order.
        has_header = header is not None and set(header) != {"playlist_id", "snapshots", "events"}
        if pid in by_pid:
            entry = by_pid[pid]
            if has_header:
                assert "created_at" not in entry, "a playlist header was repeated"
                entry.update({k: v for k, v in copy.deepcopy(header).items() if k not in ("snapshots", "events")})
            return entry
        entry = {**copy.deepcopy(header or {"playlist_id": pid}), "snapshots": [], "events": []}
        by_pid[pid] = entry
        out["playlists"].append(entry)
        return entry

    pending, expected_index = "", 0
    for data in parts:
        assert data["format"] == FORMAT
        if data["profile"] is not None:
            profiles += 1
            out["profile"] = data["profile"]
        out["preference_events"] += data["preference_events"]
        out["tracks"] += data["tracks"]
        out["track_choices"] += data["track_choices"]
        for name in MEMORY_SECTIONS.values():
            out[name] += data[name]
        for entry in data["playlists"]:
            target = playlist_entry(entry["playlist_id"], entry)
            target["snapshots"] += copy.deepcopy(entry["snapshots"])
            target["events"] += entry["events"]
        for chunk in data.get("chunks", []):
            assert chunk["index"] == expected_index, "a chunk was repeated or skipped"
            pending += chunk["text"]
            expected_index += 1
            if chunk["index"] == chunk["count"] - 1:
                body, section = json.loads(pending), chunk["section"]
                pending, expected_index = "", 0
                if section == "profile":
                    profiles += 1
                    out["profile"] = body
                elif section in ("preference_event", "track", "track_choice"):
                    out[f"{section}s"].append(body)
                elif section in MEMORY_SECTIONS:
                    out[MEMORY_SECTIONS[section]].append(body)
                elif section == "playlist":
                    playlist_entry(body["playlist_id"], {**body, "snapshots": [], "events": []})
                else:
                    playlist_entry(chunk["playlist_id"], None)[f"{section}s"].append(body)
    assert pending == "", "the export ended inside a chunked piece"
    assert profiles <= 1, "the profile came in more than one part"
    for entry in out["playlists"]:
        entry["snapshots"].sort(key=lambda snap: snap["seq"])
        entry["events"].sort(key=lambda event: event["seq"])
    # Nothing repeated: ids unique, sequences strictly increasing and without gaps.
    event_ids = [e["event_id"] for e in out["preference_events"]]
    assert len(event_ids) == len(set(event_ids)), "a preference event was repeated"
    track_ids = [t["track_id"] for t in out["tracks"]]
    assert track_ids == sorted(set(track_ids)), "a catalog track was repeated or out of order"
    playlist_ids = [p["playlist_id"] for p in out["playlists"]]
    assert len(playlist_ids) == len(set(playlist_ids)), "a playlist was split non-contiguously or repeated"
    for entry in out["playlists"]:
        seqs = [e["seq"] for e in entry["events"]]
        assert seqs == list(range(1, len(seqs) + 1)), f"{entry['playlist_id']}: events repeated or skipped: {seqs[:20]}"
        snap_seqs = [s["seq"] for s in entry["snapshots"]]
        assert snap_seqs == sorted(set(snap_seqs)) and snap_seqs[:1] == [0], snap_seqs
    return out


# --- 1. completeness -------------------------------------------------------------------------


async def test_export_has_all_history_even_where_capped_arrays_dropped_it(
    settings_factory: Any, tmp_path: Path
) -> None:
    settings = settings_factory(snapshot_every=3, recent_events_cap=3, recent_snapshots_cap=2)
    pid, other = playlist(1), playlist(2)
    patches = [
        ({"genres": ["jazz"]}, "first", "user"),
        ({"energy": {"morning": "low"}}, "second", "assistant"),
        ({"genres": ["jazz", "soul"], "avoid": ["country"]}, "third", "inferred"),
        ({"avoid": None}, "fourth", "user"),
        ({"energy": {"evening": "high"}}, "fifth", "user"),
    ]
    async with connected(settings) as call:
        for patch, reason, source in patches:
            await call.ok("memory_update_profile", {"user_id": 1, "patch": patch, "reason": reason, "source": source})
        pref_events = {}
        for n in range(7):
            args = {
                "user_id": 1,
                "type": ["like", "dislike", "rule", "feedback", "note"][n % 5],
                "payload": {"raw_text": f"preference number {n}", "n": n},
                "timestamp": at(n),
            }
            pref_events[(await call.ok("memory_append_preference_event", args))["event_id"]] = args
        created = await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": 1,
                "playlist_id": pid,
                "name": "Ledger",
                "description": "long history",
                "track_ids": [track(i) for i in range(5)],
                "intent_tags": ["history"],
                "seed_context": {"why": "test"},
                "created_at": at(0),
                "idempotency_key": "ledger-create-1",
            },
        )
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 1, "playlist_id": other, "name": "Untouched", "track_ids": [track(100)], "created_at": at(0)},
        )
        state = [track(i) for i in range(5)]
        expected_events: list[dict[str, Any]] = []
        snapshot_ids = [created["snapshot_id"]]
        states_after = {0: list(state)}
        next_track = 1000
        for i in range(34):
            kind = ["ADD_TRACKS", "REMOVE_TRACKS", "REORDER", "UPDATE_META", "ADD_TRACKS"][i % 5]
            if kind == "ADD_TRACKS" and i % 2:
                payload: dict[str, Any] = {"track_ids": [track(next_track), track(next_track + 1)], "positions": [0, 2]}
            elif kind == "ADD_TRACKS":
                payload = {"track_ids": [track(next_track), track(next_track + 1)], "insert_at": len(state) // 2}
            elif kind == "REMOVE_TRACKS":
                payload = {"track_ids": [state[-1]]}
            elif kind == "REORDER":
                payload = {"track_ids": state[::-1]}
            else:
                payload = {"name": f"Ledger v{i}", "intent_tags": ["history", f"v{i}"]}
            next_track += 2
            result = await call.ok(
                "memory_log_playlist_mutation",
                {
                    "user_id": 1,
                    "playlist_id": pid,
                    "type": kind,
                    "payload": payload,
                    "timestamp": at(10 + i),
                    **({"client_event_id": f"00000000-0000-4000-8000-{i:012d}"} if i % 3 == 0 else {}),
                },
            )
            state = apply(state, kind, payload)
            states_after[i + 1] = list(state)
            expected_events.append(
                {"event_id": result["event_id"], "type": kind, "payload": payload, "timestamp": at(10 + i)}
            )
            if result.get("new_snapshot_id"):
                snapshot_ids.append(result["new_snapshot_id"])
        now = await call.ok("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": pid})
        detail = await call.ok("memory_get_playlist", {"user_id": 1, "playlist_id": pid, "include_events_limit": 3})
        parts = await export_parts(call, 1)
    assert now["track_ids"] == state
    assert len(detail["recent_events"]) == 3
    # The caps really dropped entries from the playlist document.
    assert len(snapshot_ids) > 2 + 1 and len(expected_events) > 3

    assert len(parts) == 1, "a small export fits in one part"
    export = parts[0][0]
    data = export["data"]
    assert data["format"] == FORMAT and data["continuation"] == {"part": 1, "next_cursor": None}

    profile = data["profile"]
    assert profile["profile"] == {"genres": ["jazz", "soul"], "energy": {"morning": "low", "evening": "high"}}
    assert profile["version"] == 5
    history = profile["history"]
    assert [h["version"] for h in history] == [1, 2, 3, 4, 5]
    assert [(h["patch"], h["reason"], h["source"]) for h in history] == patches and all(
        h["applied_at"] for h in history
    )

    assert {e["event_id"] for e in data["preference_events"]} == set(pref_events)
    for event in data["preference_events"]:
        sent = pref_events[event["event_id"]]
        assert (event["type"], event["payload"], event["timestamp"]) == (
            sent["type"],
            sent["payload"],
            sent["timestamp"],
        )

    by_id = {p["playlist_id"]: p for p in data["playlists"]}
    assert set(by_id) == {pid, other}
    ledger = by_id[pid]
    assert ledger["created_at"] == at(0) and ledger["seed_context"] == {"why": "test"}
    assert [s["snapshot_id"] for s in ledger["snapshots"]] == snapshot_ids
    for snapshot in ledger["snapshots"]:
        assert snapshot["track_ids"] == states_after[snapshot["seq"]], f"snapshot at seq {snapshot['seq']}"
    got = [{k: e[k] for k in ("event_id", "type", "payload", "timestamp")} for e in ledger["events"]]
    assert got == expected_events
    assert [s["track_ids"] for s in by_id[other]["snapshots"]] == [[track(100)]] and by_id[other]["events"] == []

    # The CLI's single document holds the same data.
    document = cli_export(settings, 1, tmp_path / "full.json")
    assert document["user_id"] == 1
    assert without_moment(document["data"]) == without_moment(data)


# --- 2. parts, reassembly, import --------------------------------------------------------------


def long_track(n: int) -> str:
    return f"t{n:079d}"  # 80 characters, the longest SpotifyTrackId


BIG = playlist(7000)
SMALL = [playlist(7001 + i) for i in range(3)]


async def build_large_user(call: Caller, user_id: int) -> dict[str, Any]:
    """A 10,000-track playlist of 80-character IDs (with a full reorder), plus many events."""
    big = [long_track(i) for i in range(10_000)]
    await call.ok(
        "memory_log_playlist_create",
        {
            "user_id": user_id,
            "playlist_id": BIG,
            "name": "Everything",
            "track_ids": big,
            "seed_context": {"note": "the big one"},
        },
    )
    moments: dict[str, list[str]] = {BIG: [], **{p: [] for p in SMALL}}
    for i in range(8):
        kind = "REMOVE_TRACKS" if i % 2 == 0 else "ADD_TRACKS"
        payload = (
            {"track_ids": [big[i]]}
            if kind == "REMOVE_TRACKS"
            else {"track_ids": [long_track(20_000 + i)], "insert_at": 17}
        )
        result = await call.ok(
            "memory_log_playlist_mutation", {"user_id": user_id, "playlist_id": BIG, "type": kind, "payload": payload}
        )
        big = apply(big, kind, payload)
        moments[BIG].append(result["timestamp"])
    # One realistic large event: the whole playlist in a new order (about 830 kB of IDs).
    result = await call.ok(
        "memory_log_playlist_mutation",
        {"user_id": user_id, "playlist_id": BIG, "type": "REORDER", "payload": {"track_ids": big[::-1]}},
    )
    moments[BIG].append(result["timestamp"])
    for version in range(30):
        await call.ok(
            "memory_update_profile",
            {
                "user_id": user_id,
                "patch": {"version_note": f"note {version} " + "x" * 200},
                "reason": f"patch {version}",
            },
        )
    for n in range(120):
        await call.ok(
            "memory_append_preference_event",
            {"user_id": user_id, "type": "note", "payload": {"raw_text": f"event {n}: " + "words " * 50, "n": n}},
        )
    for index, pid in enumerate(SMALL):
        tracks = [track(index * 100 + i) for i in range(20)]
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": user_id,
                "playlist_id": pid,
                "name": f"Small {index}",
                "track_ids": tracks,
                "description": f"small playlist {index}",
                "intent_tags": ["small"],
            },
        )
        for i in range(25):
            kind = ["ADD_TRACKS", "REMOVE_TRACKS", "UPDATE_META"][i % 3]
            payload = (
                {"track_ids": [track(5000 + i)], "insert_at": 0}
                if kind == "ADD_TRACKS"
                else {"track_ids": [tracks[i % 20]]}
                if kind == "REMOVE_TRACKS"
                else {"description": f"edit {i}"}
            )
            result = await call.ok(
                "memory_log_playlist_mutation",
                {"user_id": user_id, "playlist_id": pid, "type": kind, "payload": payload},
            )
            moments[pid].append(result["timestamp"])
    return moments


async def views(call: Caller, user_id: int, moments: dict[str, list[str]]) -> dict[str, Any]:
    """What a client can observe of the user's data through the read tools."""
    out: dict[str, Any] = {"profile": await call.ok("memory_get_profile", {"user_id": user_id})}
    out["profile"].pop("user_id")
    for pid, times in moments.items():
        states = []
        for moment in [None, *times[::5]]:
            args = {"user_id": user_id, "playlist_id": pid, **({"at_time": moment} if moment else {})}
            states.append((await call.ok("memory_reconstruct_playlist", args))["track_ids"])
        out[pid] = states
        detail = await call.ok(
            "memory_get_playlist", {"user_id": user_id, "playlist_id": pid, "include_events_limit": 500}
        )
        detail["playlist"].pop("user_id")
        out[pid + ":detail"] = {"playlist": detail["playlist"], "events": detail["recent_events"]}
    listed = (await call.ok("memory_get_playlists", {"user_id": user_id, "limit": 200}))["items"]
    out["listing"] = sorted((i["playlist_id"], i["name"], i.get("track_count")) for i in listed)
    return out


async def test_large_export_comes_in_parts_that_reassemble_and_import(settings_factory: Any, tmp_path: Path) -> None:
    budget = 20_000
    settings = settings_factory(export_part_bytes=budget, snapshot_every=5, snapshot_min_event_share=0.0)
    async with connected(settings) as call:
        moments = await build_large_user(call, 1)
        original = await views(call, 1, moments)
    document = cli_export(settings, 1, tmp_path / "full.json")

    async def write_between(n: int) -> None:
        # Writes after the first part must not leak into later parts (the export is as of part 1).
        if n == 2:
            await call.ok(
                "memory_append_preference_event", {"user_id": 1, "type": "note", "payload": {"raw_text": "late"}}
            )
            await call.ok(
                "memory_log_playlist_create",
                {"user_id": 1, "playlist_id": playlist(7999), "name": "Late", "track_ids": [track(1)]},
            )
            for i in range(6):  # enough to open a new history bucket after the export's moment
                await call.ok(
                    "memory_log_playlist_mutation",
                    {
                        "user_id": 1,
                        "playlist_id": SMALL[-1],
                        "type": "ADD_TRACKS",
                        "payload": {"track_ids": [track(9000 + i)]},
                    },
                )

    async with connected(settings) as call:
        parts = await export_parts(call, 1, write_between)
    results = [p[0] for p in parts]
    assert len(results) > 10, f"expected many parts at a {budget}-byte budget, got {len(results)}"
    assert [r["data"]["continuation"]["part"] for r in results] == list(range(1, len(results) + 1))
    assert all(r["data"]["continuation"]["next_cursor"] for r in results[:-1])
    assert len({r["data"]["as_of"] for r in results}) == 1, "every part is of the same moment"
    assert all(r["user_id"] == 1 for r in results)

    merged = reassemble([r["data"] for r in results])
    assert merged == without_moment(document["data"]), "the parts differ from the single-document CLI export"
    assert len(merged["preference_events"]) == 120
    assert {p["playlist_id"] for p in merged["playlists"]} == {BIG, *SMALL}

    # Import the parts (a JSON list of tool results) for another user into a fresh store.
    parts_file = tmp_path / "parts.json"
    parts_file.write_text(json.dumps(results))
    fresh = settings_factory()
    cli(fresh, "import", "--file", str(parts_file), "--user-id", "7")
    async with connected(fresh) as call:
        imported = await views(call, 7, moments)
        listed = (await call.ok("ops_list_users", {}))["users"]
        reexport = await export_parts(call, 7)
    assert imported == original
    assert [(u["user_id"], u["playlist_count"], u["preference_event_count"]) for u in listed] == [(7, 4, 120)]
    assert imported["profile"]["version"] == 30
    again = reassemble([r["data"] for r, _, _ in reexport])
    assert json.loads(json.dumps(again).replace('"user_id": 7', '"user_id": 1')) == merged

    # Every part fits the official MCP client's 1 MiB message limit with room to spare.
    oversized = [
        (n + 1, text, message)
        for n, (_, text, message) in enumerate(parts)
        if message >= ONE_MIB // 2 or text > 2 * budget
    ]
    assert not oversized, (
        f"parts over the budget of {budget} bytes or near 1 MiB (part, text bytes, message bytes): {oversized}"
    )


async def test_export_parts_at_the_default_budget_fit_the_1_mib_message_limit(settings: Settings) -> None:
    async with connected(settings) as call:
        await build_large_user(call, 1)
        parts = await export_parts(call, 1)
    sizes = [(n + 1, text, message) for n, (_, text, message) in enumerate(parts)]
    assert len(parts) > 1, f"a 10,000-track playlist with a full reorder should need several parts: {sizes}"
    too_big = [s for s in sizes if s[2] >= ONE_MIB]
    assert not too_big, f"parts whose MCP message reaches 1 MiB (part, text bytes, message bytes): {too_big}"


# --- 3. delete ----------------------------------------------------------------------------------


async def test_delete_user_data_erases_everything(settings_factory: Any, tmp_path: Path) -> None:
    settings = settings_factory(snapshot_every=3, recent_events_cap=3, recent_snapshots_cap=2)
    pid = playlist(1)
    used_event_ids = [f"00000000-0000-4000-8000-{i:012d}" for i in range(7)]
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": 1, "patch": {"notes": "loves marimba"}})
        await call.ok("memory_update_profile", {"user_id": 1, "patch": {"genres": ["marimba"]}})
        await call.ok(
            "memory_append_preference_event", {"user_id": 1, "type": "like", "payload": {"raw_text": "marimba!"}}
        )
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": 1,
                "playlist_id": pid,
                "name": "Marimba",
                "track_ids": [track(1), track(2)],
                "idempotency_key": "marimba-create-1",
                "created_at": at(0),
            },
        )
        for i, key in enumerate(used_event_ids):
            await call.ok(
                "memory_log_playlist_mutation",
                {
                    "user_id": 1,
                    "playlist_id": pid,
                    "type": "ADD_TRACKS",
                    "payload": {"track_ids": [track(10 + i)]},
                    "client_event_id": key,
                    "timestamp": at(1 + i),
                },
            )
        await call.ok("memory_update_profile", {"user_id": 2, "patch": {"notes": "marimba too"}})
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 2, "playlist_id": playlist(2), "name": "Marimba 2", "track_ids": [track(1)]},
        )
        hits_before = await call.ok("memory_search", {"user_id": 1, "query": "marimba"})
        user2_before = without_moment((await call.ok("memory_export_user_data", {"user_id": 2}))["data"])
        assert {h["kind"] for h in hits_before["results"]} == {"playlist", "preference_event", "profile"}

        deleted = assert_valid_success(
            "memory.delete_user_data", await call("memory_delete_user_data", {"user_id": 1, "confirm": True})
        )
        export = await call.ok("memory_export_user_data", {"user_id": 1})
        hits_after = await call.ok("memory_search", {"user_id": 1, "query": "marimba"})
        profile = await call.ok("memory_get_profile", {"user_id": 1})
        listed = await call.ok("ops_list_users", {})
        playlists = await call.ok("memory_get_playlists", {"user_id": 1})
        gone = [
            assert_valid_error(await call("memory_get_playlist", {"user_id": 1, "playlist_id": pid})),
            assert_valid_error(await call("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": pid})),
            assert_valid_error(
                await call("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": pid, "at_time": at(3)})
            ),
            assert_valid_error(
                await call(
                    "memory_log_playlist_mutation",
                    {"user_id": 1, "playlist_id": pid, "type": "REMOVE_TRACKS", "payload": {"track_ids": [track(1)]}},
                )
            ),
            assert_valid_error(
                await call("memory_update_profile", {"user_id": 1, "patch": {"x": 1}, "create_if_missing": False})
            ),
        ]
        user2_after = without_moment((await call.ok("memory_export_user_data", {"user_id": 2}))["data"])
    assert deleted["user_id"] == 1 and deleted["deleted"] is True
    data = export["data"]
    assert data["profile"] is None and data["preference_events"] == [] and data["playlists"] == []
    assert data["continuation"]["next_cursor"] is None
    assert hits_after == {"results": []}
    assert profile == {"user_id": 1, "profile": {}, "version": 0, "updated_at": None}
    assert [u["user_id"] for u in listed["users"]] == [2]
    assert playlists == {"items": [], "next_cursor": None}
    assert [e["code"] for e in gone] == ["NOT_FOUND"] * 5
    assert user2_after == user2_before

    # The CLI sees the same empty export (the store as persisted, not only in memory).
    document = cli_export(settings, 1, tmp_path / "after-delete.json")
    assert document["data"]["profile"] is None
    assert document["data"]["preference_events"] == [] and document["data"]["playlists"] == []

    # Idempotency records and history went too: the same key with a new payload is a new request,
    # and a re-created playlist starts a fresh history (no leftover snapshots or events).
    async with connected(settings) as call:
        recreated = await call(
            "memory_log_playlist_create",
            {
                "user_id": 1,
                "playlist_id": pid,
                "name": "Marimba again",
                "track_ids": [track(50)],
                "idempotency_key": "marimba-create-1",
                "created_at": at(100),
            },
        )
        mutations = [
            await call(
                "memory_log_playlist_mutation",
                {
                    "user_id": 1,
                    "playlist_id": pid,
                    "type": "ADD_TRACKS",
                    "payload": {"track_ids": [track(60 + i)]},
                    "client_event_id": key,
                    "timestamp": at(101 + i),
                },
            )
            for i, key in enumerate(used_event_ids)
        ]
        now = await call.ok("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": pid})
        before_recreation = await call(
            "memory_reconstruct_playlist", {"user_id": 1, "playlist_id": pid, "at_time": at(5)}
        )
        export_again = await call.ok("memory_export_user_data", {"user_id": 1})
    assert recreated["success"], recreated.get("error")
    assert recreated["result"]["stored_track_count"] == 1
    assert all(m["success"] for m in mutations), [m.get("error") for m in mutations]
    assert now["track_ids"] == [track(50)] + [track(60 + i) for i in range(len(used_event_ids))]
    assert assert_valid_error(before_recreation)["code"] == "NOT_FOUND"
    (entry,) = export_again["data"]["playlists"]
    assert len(entry["events"]) == len(used_event_ids)
    assert export_again["data"]["profile"] is None and export_again["data"]["preference_events"] == []


async def test_export_of_a_user_with_no_data_is_empty(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": 2, "patch": {"genres": ["jazz"]}})
        export = assert_valid_success("memory.export_user_data", await call("memory_export_user_data", {"user_id": 1}))
        bogus = assert_valid_error(await call("memory_export_user_data", {"user_id": 1, "cursor": "not-a-cursor"}))
    data = export["data"]
    assert (data["profile"], data["preference_events"], data["playlists"]) == (None, [], [])
    assert data["continuation"] == {"part": 1, "next_cursor": None}
    assert bogus["code"] == "INVALID_ARGUMENT" and bogus["details"]["field"] == "cursor"
