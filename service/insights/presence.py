"""When each track entered the user's playlists and which playlists hold it now, from the ledger.

The history buckets are the truth (a playlist document can trail them after a crash), so this
reads every bucket of the user and replays each playlist's membership from its creation: a count
per track (playlists may hold duplicates), updated by what each event brings in and takes out.
Only membership is replayed, never the ordered list, so the cost is the size of the events'
payloads, not events × playlist length.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from service.insights.histories import playlist_histories
from service.ledger.state import SCRIPTED_TYPES, entering_tracks
from service.storage.database import Database
from service.timeutil import as_utc

YIELD_EVERY = 300  # events (or buckets) replayed between yields to the event loop


@dataclass
class Presence:
    """first_seen: earliest entry of a track into any of the user's playlists (present now or not).
    stays: for each track in at least one playlist now, {playlist_id: start of its current stay}."""

    first_seen: dict[str, datetime] = field(default_factory=dict)
    stays: dict[str, dict[str, datetime]] = field(default_factory=dict)
    playlist_count: int = 0


class _Membership:
    """One playlist's multiset of tracks and when each current stay began."""

    def __init__(self, presence: Presence) -> None:
        self.counts: dict[str, int] = {}
        self.since: dict[str, datetime] = {}
        self._first_seen = presence.first_seen

    def enter(self, tracks: Iterable[str], at: datetime) -> None:
        first_seen = self._first_seen
        for track in tracks:
            held = self.counts.get(track, 0)
            if held == 0:
                self.since[track] = at
            self.counts[track] = held + 1
            seen = first_seen.get(track)
            if seen is None or at < seen:
                first_seen[track] = at

    def leave_all(self, tracks: Iterable[str]) -> None:
        for track in tracks:
            if self.counts.pop(track, None) is not None:
                del self.since[track]

    def leave_one(self, tracks: Iterable[str]) -> None:
        for track in tracks:
            held = self.counts.get(track, 0)
            if held <= 1:
                self.leave_all((track,))
            else:
                self.counts[track] = held - 1

    def apply(self, event: dict[str, Any]) -> None:
        kind, payload, at = event["type"], event["payload"], as_utc(event["timestamp"])
        if kind == "REMOVE_TRACKS":  # every occurrence of each listed id
            self.leave_all(payload["track_ids"])
        elif kind in SCRIPTED_TYPES:
            # An edit script may remove a track and add it back elsewhere (a move): only the net
            # change per track counts, or a track that never left would start a new stay.
            net = Counter(entering_tracks(kind, payload))
            net.subtract(track for _, track in payload["removed"])
            self.leave_one(track for track, change in net.items() for _ in range(-change))
            self.enter((track for track, change in net.items() for _ in range(change)), at)
            return
        # REORDER and UPDATE_META move nothing in or out; FORK (seq 0) is the creation snapshot.
        self.enter(entering_tracks(kind, payload), at)


async def read_presence(db: Database, user_id: int, chained: bool | None = None) -> Presence:
    """Replay every playlist of one user (and nothing of anyone else's)."""
    presence = Presence()
    replayed = 0
    async for history in playlist_histories(db, user_id, chained):
        presence.playlist_count += 1
        membership = _Membership(presence)
        membership.enter(history.created_tracks, history.created_at)
        for event in history.events:
            membership.apply(event)
            replayed += 1
            if replayed % YIELD_EVERY == 0:
                await asyncio.sleep(0)  # a user with a long history must not stall other sessions
        for track, since in membership.since.items():
            presence.stays.setdefault(track, {})[history.playlist_id] = since
    return presence
