"""Export comes in bounded parts: a large user's parts reassemble into the CLI's single document and
import back into what a client observed, and each part fits the MCP client's 1 MiB message limit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from service.settings import Settings
from tests.support import Caller, connected, playlist, track
from tests.transfer.export_support import ONE_MIB, apply, cli, cli_export, export_parts, reassemble, without_moment


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
