"""Import of an export (one document or its continuation parts) back into the store."""

from __future__ import annotations

import json
from typing import Any

from service.audit.origin import written_by
from service.errors import Conflict, InvalidArgument
from service.idempotency import claim_id
from service.ledger.keys import bucket_id
from service.ledger.projection import rebuild_head
from service.ledger.state import track_id_volume
from service.memories.transfer import SECTIONS as MEMORY_SECTIONS
from service.memories.transfer import import_memories
from service.storage import Database
from service.timeutil import parse_iso
from service.tracks.catalog import track_key
from service.tracks.text import choice_key


def _dates(item: dict[str, Any], *names: str) -> dict[str, Any]:
    return {**item, **{n: parse_iso(item[n]) for n in names if isinstance(item.get(n), str)}}


def _place(merged: dict[str, Any], section: str, body: dict[str, Any], pid: str | None) -> None:
    if section == "profile":
        merged["profile"] = body
    elif section == "preference_event":
        merged["preference_events"].append(body)
    elif section in ("track", "track_choice"):
        merged[f"{section}s"].append(body)
    elif section in MEMORY_SECTIONS:
        merged[MEMORY_SECTIONS[section]].append(body)
    else:
        target = merged["playlists"].setdefault(pid or body["playlist_id"], {"snapshots": [], "events": []})
        if section == "playlist":
            target.update({k: v for k, v in body.items() if k not in ("snapshots", "events")})
        else:
            target[f"{section}s"].append(body)


def merge_parts(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Join continuation parts: playlists split across parts, oversize pieces sent as chunks."""
    merged: dict[str, Any] = {"profile": None, "preference_events": [], "playlists": {}, "tracks": [],
                              "track_choices": [], **{name: [] for name in MEMORY_SECTIONS.values()}}
    pending = ""
    for data in parts:
        if data.get("format") != "taste-memory-export/1":
            raise InvalidArgument("not a taste-memory export (format taste-memory-export/1)", {"field": "format"})
        if data.get("profile"):
            _place(merged, "profile", data["profile"], None)
        for event in data.get("preference_events", []):
            _place(merged, "preference_event", event, None)
        for entry in data.get("playlists", []):
            pid = entry["playlist_id"]
            _place(merged, "playlist", entry, pid)
            for section in ("snapshot", "event"):
                for body in entry[f"{section}s"]:
                    _place(merged, section, body, pid)
        for section in ("track", "track_choice"):  # absent from exports made before the catalog existed
            for body in data.get(f"{section}s", []):
                _place(merged, section, body, None)
        for section, name in MEMORY_SECTIONS.items():  # absent from exports made before memories existed
            for body in data.get(name, []):
                _place(merged, section, body, None)
        for chunk in data.get("chunks", []):
            pending += chunk["text"]
            if chunk["index"] == chunk["count"] - 1:
                _place(merged, chunk["section"], json.loads(pending), chunk.get("playlist_id"))
                pending = ""
    if pending:
        raise InvalidArgument("the export ends inside a chunked piece: a part is missing", {"field": "chunks"})
    return merged


def _buckets(user_id: int, pid: str, entry: dict[str, Any]) -> list[dict[str, Any]]:
    snapshots = sorted(entry["snapshots"], key=lambda s: s["seq"])
    events = sorted((_dates(e, "timestamp", "recorded_at") for e in entry["events"]), key=lambda e: e["seq"])
    if not snapshots or snapshots[0]["seq"] != 0:
        raise InvalidArgument(f"playlist {pid} has no creation snapshot", {"field": "playlists"})
    created = _dates({k: entry[k] for k in ("created_at", "recorded_ns", "seed_context", "idempotency_key",
                                             "request_hash")}, "created_at")
    if entry.get("written_by"):
        created["written_by"] = entry["written_by"]
    if entry.get("forked_from"):
        created["forked_from"] = _dates(entry["forked_from"], "at")
    buckets: list[dict[str, Any]] = []
    for index, raw in enumerate(snapshots):
        snapshot = _dates({k: v for k, v in raw.items() if k != "track_ids_continued"}, "created_at")
        base = snapshot["seq"]
        end = snapshots[index + 1]["seq"] if index + 1 < len(snapshots) else None
        own = [e for e in events if e["seq"] >= base and (end is None or e["seq"] < end)]
        buckets.append({
            "_id": bucket_id(user_id, pid, base),
            "user_id": user_id,
            "playlist_id": pid,
            "base_seq": base,
            "last_seq": own[-1]["seq"] if own else base,
            "prev_base_seq": buckets[-1]["base_seq"] if buckets else None,
            "start_time": snapshot["created_at"],
            "end_time": own[-1]["timestamp"] if own else snapshot["created_at"],
            "track_id_volume": sum(track_id_volume(e["type"], e["payload"]) for e in own if e["seq"] > base),
            "snapshot_track_count": len(snapshot["track_ids"]),
            "snapshot": snapshot,
            "events": own,
            "created": created if base == 0 else None,
            "written_by": written_by(),  # the import is this document's latest write
        })
    return buckets


async def import_user(db: Database, parts: list[dict[str, Any]], user_id: int, caps: dict[str, int]) -> dict[str, int]:
    """Load an export for ``user_id``; refuses a user who already has data."""
    for collection in db.user_collections():
        if await collection.count_documents({"user_id": user_id}):
            raise Conflict(f"user {user_id} already has data; delete it first", {"field": "user_id"})
    merged = merge_parts(parts)
    counts = {"profile": 0, "preference_events": 0, "playlists": 0, "events": 0}
    if merged["profile"]:
        profile = _dates(merged["profile"], "created_at", "updated_at")
        profile["history"] = [_dates(h, "applied_at") for h in profile.get("history", [])]
        await db.profiles.insert_one({**profile, "_id": user_id, "user_id": user_id, "written_by": written_by()})
        counts["profile"] = 1
    for event in merged["preference_events"]:
        body = _dates({k: v for k, v in event.items() if k != "event_id"}, "timestamp", "recorded_at")
        # An event is its own record: it keeps the stamp of the call that recorded it, and names
        # the import that wrote it here (what its audit entry is attributed to).
        await db.preference_events.insert_one({**body, "_id": event["event_id"], "user_id": user_id,
                                               "imported_by": written_by()})
        counts["preference_events"] += 1
    for pid, entry in merged["playlists"].items():
        for bucket in _buckets(user_id, pid, entry):
            await db.history.insert_one(bucket)
            for event in bucket["events"]:
                if event.get("client_event_id"):
                    await _claim(db, user_id, "mutation", event["client_event_id"], event["request_hash"], pid)
            counts["events"] += len(bucket["events"])
        if entry.get("idempotency_key"):
            await _claim(db, user_id, "create", entry["idempotency_key"], entry["request_hash"], pid)
        await rebuild_head(db, user_id, pid, caps)
        counts["playlists"] += 1
    await _import_tracks(db, user_id, merged, counts)
    await import_memories(db, user_id, merged, counts)
    return counts


async def _import_tracks(db: Database, user_id: int, merged: dict[str, Any], counts: dict[str, int]) -> None:
    """The catalog and the confirmed choices, keyed as the service keys them (the ids are derived
    from the user, the track id and the folded text, so a renumbered user gets its own)."""
    counts["tracks"] = counts["track_choices"] = 0
    for track in merged["tracks"]:
        body = _dates(track, "first_seen_at", "updated_at")
        await db.tracks.insert_one({**body, "_id": track_key(user_id, body["track_id"]), "user_id": user_id,
                                    "written_by": written_by()})
        counts["tracks"] += 1
    for choice in merged["track_choices"]:
        body = _dates(choice, "confirmed_at")
        await db.track_choices.insert_one({**body, "_id": choice_key(user_id, body["folded"]), "user_id": user_id,
                                           "written_by": written_by()})
        counts["track_choices"] += 1


async def _claim(db: Database, user_id: int, scope: str, key: str, digest: str, pid: str) -> None:
    await db.idempotency.replace_one({
        "_id": claim_id(user_id, scope, key), "user_id": user_id, "scope": scope, "key": key,
        "request_hash": digest, "playlist_id": pid, "created_at": None,
    })
