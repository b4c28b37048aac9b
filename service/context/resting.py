"""The Resting section: when the profile (or the situation) holds a ``playlist_rules.rest`` rule,
the tracks played most in its window that are at or over its limit, as the rule check reports
them (those the person likes by name are left out), most played first, at most ``LINES``.
"""

from __future__ import annotations

from typing import Any

from service.context.candidates import Candidate, resting_item
from service.storage.database import Database
from service.tracks.liked import liked_by_name
from service.tracks.rest import most_played, rest_of

LINES = 5


def configured(profile: dict[str, Any]) -> bool:
    rules = profile.get("playlist_rules")
    return isinstance(rules, dict) and rest_of(rules.get("rest")) is not None


async def resting_candidates(db: Database, user_id: int, profile: dict[str, Any]) -> list[Candidate]:
    rules = profile.get("playlist_rules")
    rest = rest_of(rules.get("rest")) if isinstance(rules, dict) else None
    if rest is None:
        return []
    over = [p for p in await most_played(db, user_id, rest) if p.count >= rest.max_plays]
    if not over:
        return []
    liked = await liked_by_name(db, user_id, profile)
    shown = [p for p in over if not liked.names(p.track_id or "", p.described())][:LINES]
    return [resting_item(p.track_id, p.title, p.artist, p.count, rest.days, i) for i, p in enumerate(shown)]
