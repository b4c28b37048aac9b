"""The building half of an import: every part parsed, checked and turned into the documents the
store will hold, before anything is written (``service/transfer/importer.py`` writes them).

Whatever is wrong with an export, wherever it sits (a malformed piece in its last part, a date
that is not RFC 3339, a playlist whose events do not replay), is found here and answered as
INVALID_ARGUMENT naming ``data`` or ``data.<section>``; a rejected import has written nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from service.audit.origin import written_by
from service.errors import InvalidArgument, MemoryServiceError
from service.ledger.idempotency import claim_id
from service.ledger.keys import bucket_id
from service.ledger.projection import replay_bucket
from service.ledger.records import Bucket
from service.ledger.state import check_payload_shape, track_id_volume
from service.text.words import choice_key
from service.timeutil import parse_iso
from service.tracks.catalog import track_key
from service.transfer.memories import BUILDERS as MEMORY_BUILDERS
from service.transfer.parts import checking, merge_parts, record


@dataclass
class ImportPlan:
    """The documents of one import, per collection, in the order they are written."""

    user_id: int
    profile: dict[str, Any] | None = None
    preference_events: list[dict[str, Any]] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    idempotency: list[dict[str, Any]] = field(default_factory=list)
    playlist_ids: list[str] = field(default_factory=list)
    documents: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # tracks, choices, memories...
    counts: dict[str, int] = field(default_factory=dict)
    # The users the export's preference events were recorded for (None: an event names none):
    # another user's events may need ids of their own here (service/transfer/rekey.py).
    event_owners: set[int | None] = field(default_factory=set)


def _dates(item: dict[str, Any], *names: str) -> dict[str, Any]:
    return {**item, **{n: parse_iso(item[n]) for n in names if isinstance(item.get(n), str)}}


# The fields every record of a kind has, and their types once dates are parsed: what the reads
# rely on. (Memories, plays and aging records: service/transfer/memories.py.)
SHAPES: dict[str, dict[str, type | tuple[type, ...]]] = {
    "profile": {"profile": dict, "version": int, "history": list, "created_at": datetime, "updated_at": datetime},
    "profile_history": {"version": int, "patch": dict, "applied_at": datetime},
    "preference_event": {
        "type": str,
        "source": str,
        "payload": dict,
        "timestamp": datetime,
        "recorded_at": datetime,
        "recorded_ns": int,
    },
    "playlist": {"created_at": datetime, "recorded_ns": int, "seed_context": (dict, type(None))},
    "snapshot": {
        "snapshot_id": str,
        "seq": int,
        "source": str,  # the playlist document's snapshot summaries carry it
        "track_ids": list,
        "meta": dict,
        "created_at": datetime,
    },
    "event": {
        "event_id": str,
        "seq": int,
        "type": str,
        "payload": dict,
        "timestamp": datetime,
        "recorded_at": datetime,
        "recorded_ns": int,
    },
    "track": {"track_id": str, "name": str, "artists": list, "first_seen_at": datetime, "updated_at": datetime},
    "track_choice": {"text": str, "folded": str, "track_id": str, "confirmed_at": datetime},
}


def shaped(kind: str, body: dict[str, Any], section: str) -> dict[str, Any]:
    """``body`` if it has the fields of its kind, else InvalidArgument naming data.<section>."""
    for name, types in SHAPES[kind].items():
        value = body.get(name)
        if not isinstance(value, types) or (types is int and isinstance(value, bool)):
            raise InvalidArgument(
                f"a {kind.replace('_', ' ')} in data.{section} has no valid {name}", {"field": f"data.{section}"}
            )
    return body


def _buckets(user_id: int, pid: str, entry: dict[str, Any]) -> list[dict[str, Any]]:
    snapshots = sorted(
        (shaped("snapshot", _dates(s, "created_at"), "playlists") for s in entry["snapshots"]), key=lambda s: s["seq"]
    )
    events = sorted(
        (shaped("event", _dates(e, "timestamp", "recorded_at"), "playlists") for e in entry["events"]),
        key=lambda e: e["seq"],
    )
    if not all(isinstance(t, str) for s in snapshots for t in s["track_ids"]):
        raise InvalidArgument(
            f"a snapshot of playlist {pid} lists a track id that is not a string"[:200], {"field": "data.playlists"}
        )
    if not snapshots or snapshots[0]["seq"] != 0:
        raise InvalidArgument(f"playlist {pid} has no creation snapshot"[:200], {"field": "data.playlists"})
    for records in (snapshots, events):
        if len({r["seq"] for r in records}) != len(records):
            raise InvalidArgument(f"playlist {pid} repeats a sequence number"[:200], {"field": "data.playlists"})
    created = shaped(
        "playlist",
        _dates(
            {k: entry[k] for k in ("created_at", "recorded_ns", "seed_context", "idempotency_key", "request_hash")},
            "created_at",
        ),
        "playlists",
    )
    if entry.get("written_by"):
        created["written_by"] = entry["written_by"]
    if entry.get("forked_from"):
        created["forked_from"] = _dates(entry["forked_from"], "at")
    buckets: list[dict[str, Any]] = []
    for index, raw in enumerate(snapshots):
        snapshot = {k: v for k, v in raw.items() if k != "track_ids_continued"}
        base = snapshot["seq"]
        end = snapshots[index + 1]["seq"] if index + 1 < len(snapshots) else None
        own = [e for e in events if e["seq"] >= base and (end is None or e["seq"] < end)]
        buckets.append(
            {
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
            }
        )
        _replays(buckets[-1], pid)
    return buckets


def _replays(bucket: dict[str, Any], pid: str) -> None:
    """Events that do not apply to their snapshot are refused now, not met by a later read."""
    try:
        for event in bucket["events"]:
            check_payload_shape(event["type"], event["payload"])
        replay_bucket(cast(Bucket, bucket), max_tracks=1 << 62)  # shaped() checked its snapshot and events
    except MemoryServiceError as exc:  # named for the tool call that logged it: here it is the data's fault
        raise InvalidArgument(
            f"an event of playlist {pid} does not apply: {exc.message}"[:300], {"field": "data.playlists"}
        ) from None


def _claim(user_id: int, scope: str, key: str, digest: str, pid: str) -> dict[str, Any]:
    return {
        "_id": claim_id(user_id, scope, key),
        "user_id": user_id,
        "scope": scope,
        "key": key,
        "request_hash": digest,
        "playlist_id": pid,
        "created_at": None,
    }


def _playlists(plan: ImportPlan, merged: dict[str, Any]) -> None:
    user_id = plan.user_id
    plan.counts.update(playlists=0, events=0)
    for pid, entry in merged["playlists"].items():
        for bucket in _buckets(user_id, pid, entry):
            plan.history.append(bucket)
            plan.idempotency.extend(
                _claim(user_id, "mutation", e["client_event_id"], e["request_hash"], pid)
                for e in bucket["events"]
                if e.get("client_event_id")
            )
            plan.counts["events"] += len(bucket["events"])
        if entry.get("idempotency_key"):
            plan.idempotency.append(_claim(user_id, "create", entry["idempotency_key"], entry["request_hash"], pid))
        plan.playlist_ids.append(pid)
        plan.counts["playlists"] += 1


def _profile_and_events(plan: ImportPlan, merged: dict[str, Any]) -> None:
    user_id = plan.user_id
    plan.counts.update(profile=0, preference_events=0)
    with checking("profile"):
        if merged["profile"]:
            profile = shaped("profile", _dates(merged["profile"], "created_at", "updated_at"), "profile")
            profile["history"] = [
                shaped("profile_history", _dates(record(h, "profile"), "applied_at"), "profile")
                for h in profile["history"]
            ]
            plan.profile = {**profile, "_id": user_id, "user_id": user_id, "written_by": written_by()}
            plan.counts["profile"] = 1
    with checking("preference_events"):
        for event in merged["preference_events"]:
            if not isinstance(event.get("event_id"), str) or not event["event_id"]:
                raise InvalidArgument("a preference event has no event_id", {"field": "data.preference_events"})
            body = shaped(
                "preference_event",
                _dates({k: v for k, v in event.items() if k != "event_id"}, "timestamp", "recorded_at"),
                "preference_events",
            )
            # An event is its own record: it keeps the stamp of the call that recorded it, and names
            # the import that wrote it here (what its audit entry is attributed to).
            plan.preference_events.append(
                {**body, "_id": event["event_id"], "user_id": user_id, "imported_by": written_by()}
            )
            owner = event.get("user_id")
            plan.event_owners.add(owner if type(owner) is int else None)
            plan.counts["preference_events"] += 1


def _catalog(plan: ImportPlan, merged: dict[str, Any]) -> None:
    """The catalog and the confirmed choices, keyed as the service keys them (the ids are derived
    from the user, the track id and the folded text, so a renumbered user gets its own)."""
    user_id = plan.user_id
    with checking("tracks"):
        plan.documents["tracks"] = [
            {**body, "_id": track_key(user_id, body["track_id"]), "user_id": user_id, "written_by": written_by()}
            for body in (shaped("track", _dates(t, "first_seen_at", "updated_at"), "tracks") for t in merged["tracks"])
        ]
    with checking("track_choices"):
        plan.documents["track_choices"] = [
            {**body, "_id": choice_key(user_id, body["folded"]), "user_id": user_id, "written_by": written_by()}
            for body in (
                shaped("track_choice", _dates(c, "confirmed_at"), "track_choices") for c in merged["track_choices"]
            )
        ]
    plan.counts.update(tracks=len(plan.documents["tracks"]), track_choices=len(plan.documents["track_choices"]))


def _unique(plan: ImportPlan) -> None:
    """Two pieces that would be stored under one key: refused, not left to fail half-written."""
    lists = {
        "preference_events": plan.preference_events,
        "playlists": plan.history,
        "playlists (idempotency keys)": plan.idempotency,
        **plan.documents,
    }
    for section, documents in lists.items():
        ids = [d["_id"] for d in documents]
        if len(set(ids)) != len(ids):
            where = "data." + section.split(" ")[0]
            raise InvalidArgument(f"{where} holds the same record twice", {"field": where})


def build(parts: list[Any], user_id: int) -> ImportPlan:
    """Every document of the import, or InvalidArgument; writes nothing."""
    plan = ImportPlan(user_id)
    with checking("data"):
        merged = merge_parts(parts)
    _profile_and_events(plan, merged)
    with checking("playlists"):
        _playlists(plan, merged)
    _catalog(plan, merged)
    for name, builder in MEMORY_BUILDERS.items():
        with checking(name):
            plan.documents[name] = [builder(user_id, body) for body in merged[name]]
    if len(plan.documents["memory_controls"]) > 1:
        raise InvalidArgument(
            "data.memory_controls holds more than one set of switches", {"field": "data.memory_controls"}
        )
    plan.counts.update(
        memories=len(plan.documents["memories"]),
        play_buckets=len(plan.documents["plays"]),
        memory_aging=len(plan.documents["memory_aging"]),
        memory_controls=len(plan.documents["memory_controls"]),
    )
    _unique(plan)
    return plan
