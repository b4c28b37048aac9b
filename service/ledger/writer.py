"""Writes to the ledger: log a playlist's creation and log one mutation, exactly once.

Commit point of change ``s``: inserting the bucket whose ``base_seq`` is ``s`` or appending event
``s`` to the open bucket on the condition ``last_seq == s - 1``. Whether a change opens a new
bucket depends only on the open bucket as stored, so every racing writer at ``s`` makes the same
choice and exactly one of them wins; losers re-read and retry. The playlist document is updated
afterwards and is rolled forward from the buckets if a crash left it behind.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, cast

from service.errors import (
    MemoryServiceError,
    PlaylistAlreadyLogged,
    PlaylistNotFound,
    SequenceConflict,
    StorageUnavailable,
)
from service.ledger.buckets import (
    SnapshotPolicy,
    create_result,
    creation_of,
    first_bucket,
    mutation_result,
    next_bucket,
    prepared_event,
)
from service.ledger.idempotency import claim_key, key_seen, release_key
from service.ledger.keys import head_id
from service.ledger.projection import BUCKET_HEADER, advance_head, load_bucket, rebuild_head, walk_forward
from service.ledger.records import Bucket, BucketHeader, EventType, LedgerEvent, Lineage
from service.ledger.state import PlaylistState, check_payload_shape, current_state, track_id_volume
from service.settings import Settings
from service.storage.collection import DuplicateDocument
from service.storage.database import Database
from service.timeutil import utc_now
from service.users.stats import count_playlist_created

MAX_ATTEMPTS = 64

# Decides, against the playlist as it stands (document, state), which event to append.
# The answer of a committed change, and the event as stored (a retry finds the same one).
Committed = tuple[dict[str, Any], LedgerEvent]
ChangePlan = Callable[[dict[str, Any], PlaylistState], Awaitable[tuple[EventType, dict[str, Any]]]]


class LedgerWriter:
    def __init__(self, db: Database, settings: Settings) -> None:
        self._db = db
        self._max_tracks = settings.max_playlist_tracks
        self._policy = SnapshotPolicy(
            settings.snapshot_every,
            settings.snapshot_min_event_share,
            settings.bucket_max_track_ids,
            settings.snapshot_replay_budget,
        )
        self.caps = {"events": settings.recent_events_cap, "snapshots": settings.recent_snapshots_cap}
        self.stale: set[tuple[int, str]] = set()

    async def create(
        self,
        user_id: int,
        playlist_id: str,
        meta: dict[str, Any],
        track_ids: list[str],
        seed_context: dict[str, Any],
        created_at: datetime | None,
        idempotency_key: str | None,
        digest: str,
        lineage: Lineage | None = None,
    ) -> dict[str, Any]:
        """Log a new playlist; a retry with the same key and request returns the first result.
        ``lineage``: the playlist is a fork ({playlist_id, at, seq} of its source); a retry of the
        same fork request (same digest) returns the first result too."""
        fresh_claim = False
        if idempotency_key is not None:
            if await key_seen(self._db, user_id, "create", idempotency_key, digest):
                existing = await load_bucket(self._db, user_id, playlist_id, 0)
                if existing is not None and creation_of(existing).get("idempotency_key") == idempotency_key:
                    await self._ensure_head(existing)
                    return create_result(existing)
            fresh_claim = await claim_key(self._db, user_id, "create", idempotency_key, digest, playlist_id)
        bucket = first_bucket(
            user_id,
            playlist_id,
            meta,
            track_ids,
            seed_context,
            created_at or utc_now(),
            idempotency_key,
            digest,
            lineage,
        )
        try:
            await self._db.history.insert_one(bucket)
        except DuplicateDocument:
            existing = await load_bucket(self._db, user_id, playlist_id, 0)
            if existing is not None and (
                (idempotency_key is not None and creation_of(existing).get("idempotency_key") == idempotency_key)
                or (lineage is not None and creation_of(existing).get("request_hash") == digest)
            ):
                await self._ensure_head(existing)
                return create_result(existing)
            if existing is not None:
                await self._ensure_head(existing)  # a creation whose document write failed
            if fresh_claim and idempotency_key is not None:
                await release_key(self._db, user_id, "create", idempotency_key)
            raise PlaylistAlreadyLogged(
                "this playlist is already logged; log changes with memory.log_playlist_mutation",
                {"field": "playlist_id"},
            ) from None
        await count_playlist_created(self._db, user_id)
        await self._project(user_id, playlist_id, rebuild_head(self._db, user_id, playlist_id, self.caps))
        return create_result(bucket)

    async def _project(self, user_id: int, playlist_id: str, write: Any) -> Any:
        """Run a write of the playlist document after a commit; if it fails, remember the playlist
        so reads of this user roll it forward first (``settle``)."""
        try:
            return await write
        except StorageUnavailable:
            self.stale.add((user_id, playlist_id))
            raise

    async def settle(self, user_id: int | None = None) -> None:
        """Roll forward the playlist documents a failed write left behind (of one user, or all)."""
        for stale_user, playlist_id in sorted(self.stale):
            if user_id is None or stale_user == user_id:
                await rebuild_head(self._db, stale_user, playlist_id, self.caps)
                self.stale.discard((stale_user, playlist_id))

    async def _ensure_head(self, first_bucket: Bucket) -> None:
        user_id, playlist_id = first_bucket["user_id"], first_bucket["playlist_id"]
        head = await self._db.playlists.find_one({"_id": head_id(user_id, playlist_id), "user_id": user_id})
        if head is None:
            await rebuild_head(self._db, user_id, playlist_id, self.caps)

    async def _find_keyed_event(self, user_id: int, playlist_id: str, key: str) -> Committed | None:
        found = await self._db.history.find_one(
            {"user_id": user_id, "playlist_id": playlist_id, "events.client_event_id": key}
        )
        bucket = cast(Bucket | None, found)  # the stored document, as the writer built it
        if bucket is None:
            return None
        event = next(e for e in bucket["events"] if e.get("client_event_id") == key)
        return mutation_result(bucket, event), event

    async def open_head(
        self, user_id: int, playlist_id: str, shared: bool = False
    ) -> tuple[dict[str, Any], BucketHeader]:
        """The playlist document and the header of its newest bucket, rolling the document forward
        first if a crash left it behind. ``shared``: the stored document itself where the engine
        can (read-only: a mutation reads its current tracks without copying 5,000 IDs)."""
        key = {"_id": head_id(user_id, playlist_id), "user_id": user_id}
        head = await (self._db.playlists.find_one_shared(key) if shared else self._db.playlists.find_one(key))
        if head is None:
            head = await rebuild_head(self._db, user_id, playlist_id, self.caps)
            if head is None:
                raise PlaylistNotFound("no playlist with this id is logged for this user", {"field": "playlist_id"})
        bucket = await load_bucket(self._db, user_id, playlist_id, head["open_base_seq"], BUCKET_HEADER)
        if bucket is None:  # pragma: no cover - the projection never names a bucket that does not exist
            raise PlaylistNotFound("playlist history is missing", {"field": "playlist_id"})
        newest, _ = await walk_forward(self._db, bucket, BUCKET_HEADER)
        if newest["last_seq"] != head["seq"]:
            head = await rebuild_head(self._db, user_id, playlist_id, self.caps) or head
        return head, newest

    async def mutate(
        self,
        user_id: int,
        playlist_id: str,
        event_type: EventType,
        payload: dict[str, Any],
        timestamp: datetime | None,
        client_event_id: str | None,
        digest: str,
    ) -> dict[str, Any]:
        """Log one change the caller describes (the PRD's four types)."""
        check_payload_shape(event_type, payload)

        async def as_given(head: dict[str, Any], state: PlaylistState) -> tuple[EventType, dict[str, Any]]:
            return event_type, payload

        result, _ = await self.append(user_id, playlist_id, as_given, timestamp, client_event_id, digest)
        return result

    async def append(
        self,
        user_id: int,
        playlist_id: str,
        plan: ChangePlan,
        timestamp: datetime | None,
        client_event_id: str | None,
        digest: str,
        snapshot_source: str | None = None,
    ) -> Committed:
        """Log one change, planned against the playlist as it stands at each attempt (an undo's or
        a resync's edit script depends on the current contents). With a ``client_event_id`` it
        commits once however often it is sent. ``snapshot_source``: the change opens a new bucket
        whose snapshot is marked so (a resync), whatever the snapshot policy says.

        The key is claimed only once the change is known to apply, right before the commit. An
        existing claim (an earlier or concurrent attempt of the same request) means the ledger
        must be searched for the event first; the per-sequence commit makes that search exact.
        """
        key = client_event_id
        search_first = key is not None and await key_seen(self._db, user_id, "mutation", key, digest)
        claimed, took_claim, outcome_unknown = key is None, False, False
        try:
            for _ in range(MAX_ATTEMPTS):
                head, bucket = await self.open_head(user_id, playlist_id, shared=True)
                if key is not None and search_first:
                    found = await self._find_keyed_event(user_id, playlist_id, key)
                    if found is not None:
                        return found
                state = current_state(head)
                event_type, payload = await plan(head, state)
                event, new_state = prepared_event(
                    bucket, state, event_type, payload, timestamp, key, digest, self._max_tracks
                )
                if not claimed:
                    took_claim = await claim_key(self._db, user_id, "mutation", key or "", digest, playlist_id)
                    claimed = True
                    if not took_claim:  # another attempt of this request is under way or was cut short
                        search_first = True
                        continue
                try:
                    return await self._write(head, bucket, event, new_state, snapshot_source)
                except SequenceConflict:
                    search_first = key is not None
                except StorageUnavailable:
                    outcome_unknown = True  # the event may be committed: a retry must find it
                    raise
            raise SequenceConflict("too many concurrent writers on this playlist; retry", {"field": "playlist_id"})
        except MemoryServiceError:
            if took_claim and key is not None and not outcome_unknown:
                await release_key(self._db, user_id, "mutation", key)  # refused: a corrected request may use it
            raise

    async def _write(
        self,
        head: dict[str, Any],
        bucket: BucketHeader,
        event: LedgerEvent,
        new_state: PlaylistState,
        snapshot_source: str | None = None,
    ) -> Committed:
        """Commit the event (single winner per sequence number), then advance the projection."""
        seq, moment = event["seq"], event["timestamp"]
        opens_bucket = self._policy.bucket_is_full(bucket)
        if snapshot_source is not None and not opens_bucket:
            # Sealed first, on the same condition as an append: from then on every writer at this
            # sequence number opens the next bucket, so the commit stays single-winner.
            if not await self._db.history.update_one(
                {"_id": bucket["_id"], "user_id": bucket["user_id"], "last_seq": seq - 1}, {"$set": {"sealed": True}}
            ):
                raise SequenceConflict("another writer committed this sequence number")
            opens_bucket = True
        # Stamped with no await before the write: the listing's "as of" moments rely on an event
        # being stored by the time a clock reading past its stamp can be taken (exact in process).
        event["recorded_at"], event["recorded_ns"] = utc_now(), time.time_ns()
        after: BucketHeader
        if opens_bucket:
            after = next_bucket(bucket, event, new_state, snapshot_source or "periodic")
            try:
                await self._db.history.insert_one(after)
            except DuplicateDocument:
                raise SequenceConflict("another writer committed this sequence number") from None
        else:
            volume = track_id_volume(event["type"], event["payload"])
            matched = await self._db.history.update_one(
                {"_id": bucket["_id"], "user_id": bucket["user_id"], "last_seq": seq - 1, "sealed": {"$ne": True}},
                {
                    "$push": {"events": event},
                    "$set": {"last_seq": seq, "end_time": moment, "written_by": event["written_by"]},
                    "$inc": {"track_id_volume": volume},
                },
            )
            if not matched:
                raise SequenceConflict("another writer committed this sequence number")
            after = {
                **bucket,
                "last_seq": seq,
                "end_time": moment,
                "track_id_volume": bucket["track_id_volume"] + volume,
            }
        update = advance_head(event, new_state, after, opens_bucket, self.caps)
        user_id, playlist_id = head["user_id"], head["playlist_id"]
        if not await self._project(
            user_id,
            playlist_id,
            self._db.playlists.update_one({"_id": head["_id"], "user_id": user_id, "seq": seq - 1}, update),
        ):
            await self._project(user_id, playlist_id, rebuild_head(self._db, user_id, playlist_id, self.caps))
        return mutation_result(after, event), event
