"""What the user's own history says about a track: kept in playlists, played.

Resolution ranks such tracks higher when the words alone do not decide ("that nightwish song" is
the Nightwish track the user keeps). Both are read at the time of the call, so they are exact
after any playlist change.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from service.memories.plays import plays_per_track
from service.storage.database import Database


@dataclass
class Signals:
    kept: Counter[str] = field(default_factory=Counter)  # track_id → playlists holding it now
    played: Counter[str] = field(default_factory=Counter)  # track_id → plays logged

    def strength(self, track_id: str) -> int:
        """One number to compare tracks by: playlists keeping it, plus plays."""
        return self.kept[track_id] + self.played[track_id]


async def kept_counts(db: Database, user_id: int) -> Counter[str]:
    """How many of the user's logged playlists hold each track now (a track twice in one
    playlist counts once)."""
    counts: Counter[str] = Counter()
    for head in await db.playlists.find({"user_id": user_id}, {"track_ids": 1}):
        counts.update(set(head.get("track_ids") or ()))
    return counts


async def played_counts(db: Database, user_id: int) -> Counter[str]:
    """Plays per track_id logged with ``memory_log_plays`` (plays logged without a track_id
    name no catalog track and are not counted)."""
    return await plays_per_track(db, user_id)


async def signals_of(db: Database, user_id: int) -> Signals:
    return Signals(await kept_counts(db, user_id), await played_counts(db, user_id))
