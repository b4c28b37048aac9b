"""What the watcher and backfill tests share: call stamps, a watcher run over fake streams until
they end, the audit entries as stored, the writes a service makes and the change events a real
server would have emitted for them (``change_events.py``), keyed by what identifies an entry.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

from service.audit.origin import CallOrigin, acting_as, new_request_id
from service.audit.watcher import STATE_ID, AuditWatcher
from service.facade import MemoryService
from service.storage.database import Database
from service.timeutil import utc_now
from tests.audit import change_events as ce
from tests.audit.change_events import FakeChangeStream, FakeOpener
from tests.support import playlist, track

U7, U8 = 7, 8
PID = playlist(3)

IDENTITY = (
    "_id",
    "collection",
    "operation",
    "user_id",
    "playlist_id",
    "document_key",
    "tool",
    "request_id",
    "principal",
)

HOUR_AGO = utc_now() - timedelta(hours=1)


def stamp(tool: str, principal: str = "tok-alice") -> dict[str, str]:
    return {"principal": principal, "tool": tool, "request_id": new_request_id()}


def origin(tool: str, principal: str = "tok-alice") -> CallOrigin:
    return CallOrigin(**stamp(tool, principal))


async def run(db: Database, streams: list[FakeChangeStream], **options: Any) -> tuple[AuditWatcher, FakeOpener]:
    stop = asyncio.Event()
    opener = FakeOpener(stop, streams)
    watcher = AuditWatcher(db, opener, backoff_initial=0.001, backoff_max=0.01, **options)
    await asyncio.wait_for(watcher.run(stop), timeout=10)
    return watcher, opener


async def entries(db: Database, **query: Any) -> dict[str, dict[str, Any]]:
    return {e["_id"]: e for e in await db.audit_log.find(query)}


async def save_position(db: Database, token: dict[str, Any], last_time: datetime) -> None:
    await db.audit_state.replace_one(
        {"_id": STATE_ID, "resume_token": token, "last_time": last_time, "updated_at": last_time}
    )


def preference_event(user_id: int, written_by: dict[str, Any] | None, at: datetime) -> dict[str, Any]:
    document = {
        "_id": new_request_id(),
        "user_id": user_id,
        "type": "like",
        "source": "chat",
        "payload": {"raw_text": "more shoegaze"},
        "timestamp": at,
        "recorded_at": at,
        "recorded_ns": int(at.timestamp() * 1e9),
    }
    if written_by is not None:
        document["written_by"] = written_by
    return document


def identity(entry: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(entry[k] for k in IDENTITY)


async def service_writes(service: MemoryService, user_id: int) -> None:
    """Every kind of audited write: profile created and patched, a preference event, a playlist
    created (bucket 0), a mutation appended, one opening a new bucket, one appended to it."""
    with acting_as(origin("memory.update_profile")):
        await service.profiles.update(user_id, {"genres": {"like": ["shoegaze"]}}, "said so", "chat", True)
    with acting_as(origin("memory.update_profile", "tok-bob")):
        await service.profiles.update(user_id, {"genres": {"avoid": ["eurodance"]}}, None, "chat", True)
    with acting_as(origin("memory.append_preference_event")):
        await service.profiles.append_event(user_id, "like", {"raw_text": "more fuzz"}, "chat", None)
    with acting_as(origin("memory.log_playlist_create")):
        await service.playlists.create(
            {"user_id": user_id, "playlist_id": PID, "name": "Fuzz", "track_ids": [track(1), track(2)]}, None
        )
    for n in (3, 4, 5):
        with acting_as(origin("memory.log_playlist_mutation")):
            await service.playlists.mutate(
                {"user_id": user_id, "playlist_id": PID, "type": "ADD_TRACKS", "payload": {"track_ids": [track(n)]}},
                None,
            )


async def live_changes(db: Database, user_id: int, when: datetime) -> list[dict[str, Any]]:
    """The change events MongoDB would have emitted for the user's stored records."""
    changes = []
    for profile in await db.profiles.find({"user_id": user_id}):
        for index, patch in enumerate(profile["history"]):
            if patch["version"] == 1:
                changes.append(ce.insert("profiles", {**profile, "written_by": patch["written_by"]}, when))
            else:
                changes.append(
                    ce.update(
                        "profiles",
                        profile["_id"],
                        {
                            "profile": profile["profile"],
                            "version": patch["version"],
                            "updated_at": patch["applied_at"],
                            "written_by": patch["written_by"],
                            f"history.{index}": patch,
                        },
                        when,
                    )
                )
    for event in await db.preference_events.find({"user_id": user_id}):
        changes.append(ce.insert("preference_events", event, when))
    for bucket in await db.history.find({"user_id": user_id}):
        opening = [e for e in bucket["events"] if e["seq"] == bucket["base_seq"]]
        opener_stamp = bucket["created"]["written_by"] if bucket["created"] else opening[0]["written_by"]
        changes.append(ce.insert("playlist_history", {**bucket, "events": opening, "written_by": opener_stamp}, when))
        for index, event in enumerate(bucket["events"]):
            if event["seq"] != bucket["base_seq"]:
                changes.append(
                    ce.update(
                        "playlist_history",
                        bucket["_id"],
                        {
                            f"events.{index}": event,
                            "last_seq": event["seq"],
                            "end_time": event["timestamp"],
                            "written_by": event["written_by"],
                            "track_id_volume": 1,
                        },
                        when,
                    )
                )
    return changes
