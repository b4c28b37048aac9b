"""What the export tests share: the CLI run as a subprocess on the same store (every in-process
server closed first: an embedded data directory is locked while a server holds it), an export read
back part by part, and the parts joined again.
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
from tests.support import Caller
from tests.support.contract import assert_valid_success

REPO = Path(__file__).resolve().parents[2]
ONE_MIB = 1 << 20
FORMAT = "taste-memory-export/1"


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
