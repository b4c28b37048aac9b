"""Export of everything stored for one user, as JSON the importer reads back.

The export is a sequence of pieces in a fixed order (profile, preference events, then each
playlist's header, snapshots and events by sequence, then the track catalog and the confirmed
track choices, then typed memories, play buckets and aging records; exports made before the later
sections existed import as before). It holds no derivable data: the playlist document, idempotency
claims, the events' ``superseded_by`` marks and indexes are rebuilt on import. A tool answer
carries one *part* of at most ``export_part_bytes``; the cursor names the last piece sent and the
moment of the first part, so later parts neither repeat nor skip anything recorded by then.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from service.errors import InvalidArgument
from service.storage.database import Database
from service.timeutil import format_iso
from service.transfer.memories import SECTIONS as MEMORY_SECTIONS
from service.transfer.memories import memory_pieces

FORMAT = "taste-memory-export/1"
Piece = tuple[str, list[Any], dict[str, Any]]  # (section, sort key, body)


def to_json(value: Any, top: bool = True) -> Any:
    """Stored values as JSON: dates become ISO-8601 UTC strings; the document's own ``_id`` goes
    (user data below it keeps any ``_id`` key it has)."""
    if isinstance(value, dict):
        return {k: to_json(v, False) for k, v in value.items() if not (top and k == "_id")}
    if isinstance(value, list):
        return [to_json(v, False) for v in value]
    if hasattr(value, "isoformat"):
        return format_iso(value)
    return value


def _size(body: dict[str, Any]) -> int:
    return len(json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode())


def _fit(section: str, key: list[Any], body: dict[str, Any], budget: int, pid: str | None = None) -> list[Piece]:
    """The piece itself, or, if it is larger than a part, consecutive text chunks of its JSON
    (``chunks`` in the export), which the importer joins and parses."""
    if _size(body) <= budget:
        return [(section, key, body)]
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    spans, start, step = [], 0, max(1, budget // 2)  # escaping as a JSON string about doubles it at most
    while start < len(text):
        end = min(len(text), start + step)
        while end - start > 1 and _size({"text": text[start:end]}) > budget - 200:
            end = start + (end - start) // 2
        spans.append((start, end))
        start = end
    return [
        (
            "chunk",
            [*key, i],
            {"section": section, "playlist_id": pid, "index": i, "count": len(spans), "text": text[a:b]},
        )
        for i, (a, b) in enumerate(spans)
    ]


async def pieces(
    db: Database, user_id: int, as_of_ns: int, budget: int, after: list[Any] | None = None
) -> AsyncIterator[Piece]:
    """The export's pieces in key order; with ``after`` (a later part's cursor) the sections and
    records wholly before it are not read again, so each part costs what it carries."""
    produced = 0
    async for piece in _pieces(db, user_id, as_of_ns, budget, after):
        yield piece
        produced += 1
        if produced % YIELD_EVERY == 0:
            await asyncio.sleep(0)  # converting thousands of records is work other sessions wait on


YIELD_EVERY = 64


async def _pieces(
    db: Database, user_id: int, as_of_ns: int, budget: int, after: list[Any] | None
) -> AsyncIterator[Piece]:
    section = after[0] if after else 0
    if section == 0:
        profile = await db.profiles.find_one({"_id": user_id, "user_id": user_id})
        if profile is not None:
            # The document-level stamp only names its latest write (for the change stream); each
            # history entry keeps its own.
            body = to_json({k: v for k, v in profile.items() if k != "written_by"})
            for piece in _fit("profile", [0], body, budget):
                yield piece
    if section <= 1:
        query: dict[str, Any] = {"user_id": user_id}
        if section == 1 and after:  # a section past 0 comes from a cursor (after)
            query["recorded_ns"] = {"$gte": after[1]}
        events = await db.preference_events.find(query, sort=[("recorded_ns", 1), ("_id", 1)])
        for event in events:
            if event["recorded_ns"] <= as_of_ns:
                # Which import wrote it here is this store's history, not the user's data; the
                # supersession mark is derived from the events (an import recomputes it).
                body = {"event_id": event["_id"]} | to_json(
                    {k: v for k, v in event.items() if k not in ("imported_by", "superseded_by", "marked_by")}
                )
                for piece in _fit("preference_event", [1, event["recorded_ns"], event["_id"]], body, budget):
                    yield piece
    if section <= 2:
        async for piece in _playlist_pieces(db, user_id, as_of_ns, budget, after if section == 2 else None):
            yield piece
    if section <= 4:
        async for piece in _track_pieces(db, user_id, as_of_ns, budget, section, after):
            yield piece
    async for piece in memory_pieces(
        db, user_id, as_of_ns, section, after, to_json, lambda name, key, body: _fit(name, key, body, budget)
    ):
        yield piece


async def _playlist_pieces(
    db: Database, user_id: int, as_of_ns: int, budget: int, after: list[Any] | None
) -> AsyncIterator[Piece]:
    firsts = await db.history.find({"user_id": user_id, "base_seq": 0}, {"playlist_id": 1})
    playlist_ids = sorted({b["playlist_id"] for b in firsts})
    if after is not None:
        playlist_ids = [pid for pid in playlist_ids if pid >= after[1]]
    for pid in playlist_ids:
        buckets = await db.history.find({"user_id": user_id, "playlist_id": pid}, sort=[("base_seq", 1)])
        created = buckets[0]["created"]
        if created["recorded_ns"] > as_of_ns:
            continue
        for piece in _fit("playlist", [2, pid, -1], {"playlist_id": pid} | to_json(created), budget, pid):
            yield piece
        for bucket in buckets:
            kept = [e for e in bucket["events"] if e["recorded_ns"] <= as_of_ns]
            opener = kept[:1] if bucket["base_seq"] > 0 else []
            if bucket["base_seq"] > 0 and not (opener and opener[0]["seq"] == bucket["base_seq"]):
                break  # this snapshot was taken after the export's moment
            for piece in _fit("snapshot", [2, pid, bucket["base_seq"], 0], to_json(bucket["snapshot"]), budget, pid):
                yield piece
            for event in kept:
                for piece in _fit("event", [2, pid, event["seq"], 1], to_json(event), budget, pid):
                    yield piece


def _before(moment: datetime, as_of_ns: int) -> bool:
    """Whether a stored date (naive UTC on the embedded engine) is at or before the export's moment."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment <= datetime.fromtimestamp(as_of_ns / 1e9, tz=UTC)


async def _track_pieces(
    db: Database, user_id: int, as_of_ns: int, budget: int, section: int, after: list[Any] | None
) -> AsyncIterator[Piece]:
    """The catalog (section 3, by track id) and the confirmed choices (section 4, by text digest).
    Both are current state, not history: a track first seen after the export's moment is left
    out; one rewritten since is exported as it now is. The document-level stamp names only the
    latest write; the import stamps its own."""
    start: Any = after[1] if after else None  # a section past 0 comes from a cursor (after)
    if section <= 3:
        for track in await db.tracks.find({"user_id": user_id}, sort=[("_id", 1)]):
            if (section < 3 or track["track_id"] >= start) and _before(track["first_seen_at"], as_of_ns):
                body = to_json({k: v for k, v in track.items() if k not in ("user_id", "written_by")})
                for piece in _fit("track", [3, track["track_id"]], body, budget):
                    yield piece
    for choice in await db.track_choices.find({"user_id": user_id}, sort=[("_id", 1)]):
        digest = choice["_id"].split(":", 1)[1]
        if (section < 4 or digest >= start) and _before(choice["confirmed_at"], as_of_ns):
            body = to_json({k: v for k, v in choice.items() if k not in ("user_id", "written_by")})
            for piece in _fit("track_choice", [4, digest], body, budget):
                yield piece


def encode_cursor(as_of_ns: int, key: list[Any], part: int) -> str:
    raw = json.dumps({"t": as_of_ns, "k": key, "n": part}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[int, list[Any], int]:
    try:
        body = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        as_of, key, part = body["t"], body["k"], body["n"]
        if not (
            isinstance(as_of, int)
            and 0 < as_of < 2**63
            and isinstance(part, int)
            and 1 < part < 2**31
            and isinstance(key, list)
            and key
            and isinstance(key[0], int)
            and key[0] in (0, 1, 2, 3, 4, 5, 6, 7, 8)
        ):
            raise ValueError("cursor shape")
        # Keys compare element by element: each position must hold the type the pieces use.
        shapes: dict[int, list[type]] = {
            0: [int, int],
            1: [int, int, str, int],
            2: [int, str, int, int, int],
            3: [int, str, int],
            4: [int, str, int],
            5: [int, str, int],
            6: [int, str, int],
            7: [int, str, int],
            8: [int, str, int],
        }
        expected = shapes[key[0]]
        if len(key) > len(expected) or any(type(v) is not t for v, t in zip(key, expected, strict=False)):
            raise ValueError("cursor key shape")
        return as_of, key, part
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError):
        raise InvalidArgument("cursor is not one this service issued", {"field": "cursor"}) from None


def empty_data(as_of_ns: int, part: int) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "as_of": format_iso_ns(as_of_ns),
        "profile": None,
        "preference_events": [],
        "playlists": [],
        "tracks": [],
        "track_choices": [],
        **{name: [] for name in MEMORY_SECTIONS.values()},
        "chunks": [],
        "continuation": {"part": part, "next_cursor": None},
    }


def format_iso_ns(ns: int) -> str:
    return format_iso(datetime.fromtimestamp(ns / 1e9, tz=UTC)) or ""


def add_piece(data: dict[str, Any], section: str, body: dict[str, Any]) -> None:
    if section == "profile":
        data["profile"] = body
    elif section == "preference_event":
        data["preference_events"].append(body)
    elif section == "playlist":
        data["playlists"].append({**body, "snapshots": [], "events": []})
    elif section in ("track", "track_choice"):
        data[f"{section}s"].append(body)
    elif section in MEMORY_SECTIONS:
        data[MEMORY_SECTIONS[section]].append(body)
    elif section == "chunk":
        data["chunks"].append(body)
    else:
        data["playlists"][-1][f"{section}s"].append(body)


async def export_all(db: Database, user_id: int, progress: Any = None) -> dict[str, Any]:
    """The whole export in one document (the CLI writes it to a file of any size)."""
    as_of = time.time_ns()
    data = empty_data(as_of, 1)
    async for section, _, body in pieces(db, user_id, as_of, budget=1 << 62):
        add_piece(data, section, body)
        if progress is not None:
            progress(section)
    return data


async def export_part(db: Database, user_id: int, cursor: str | None, budget: int) -> dict[str, Any]:
    as_of, after, part = (time.time_ns(), None, 1) if cursor is None else decode_cursor(cursor)
    data = empty_data(as_of, part)
    used = 0
    last_key: list[Any] | None = None
    current_pid: str | None = None
    async for section, key, body in pieces(db, user_id, as_of, budget, after):
        if after is not None and key <= after:
            continue
        size = _size(body)
        if used and used + size > budget:
            data["continuation"]["next_cursor"] = encode_cursor(as_of, last_key or key, part + 1)
            break
        pid = key[1] if key[0] == 2 and section != "chunk" else None
        if pid is not None and section != "playlist" and pid != current_pid:
            # A part that starts inside a playlist repeats only its id, so the importer can join.
            data["playlists"].append({"playlist_id": pid, "snapshots": [], "events": []})
        if section != "chunk":
            current_pid = pid
        add_piece(data, section, body)
        used += size
        last_key = key
    return data
