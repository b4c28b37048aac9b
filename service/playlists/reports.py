"""Rule reports on request: with ``check_rules`` a logged creation or change also answers how the
playlist, as it stands after the write, holds up under the profile's rules (in a situation, when
one is named or a creation's intent tags name one). The write is never refused for what the report
finds: the ledger records what happened. Without the extension arguments the PRD answer is unchanged.
"""

from __future__ import annotations

from typing import Any

from service.profiles.situations import defined, for_situation
from service.storage.database import Database
from service.tracks.service import TrackService

EXTENSION = ("check_rules", "situation")
# Lists cut so the report stays a few KB at any length; the counts say how many there are.
LISTED_VIOLATIONS = 10
LISTED_IDS = 10
LISTED_UNKNOWN = 50


def split(arguments: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the PRD arguments, the extension's): the write, its idempotency digest and search see only
    the former, so a retry that adds ``check_rules`` is the same request."""
    prd = {k: v for k, v in arguments.items() if k not in EXTENSION}
    return prd, {k: arguments[k] for k in EXTENSION if k in arguments}


class RuleReports:
    def __init__(self, db: Database, tracks: TrackService) -> None:
        self._db = db
        self._tracks = tracks

    async def situation(self, user_id: int, extension: dict[str, Any], intent_tags: list[str]) -> str | None:
        """The situation the report is made in, checked before anything is written: the one named
        (an unknown name is refused), else the first intent tag that names one, else none."""
        named = extension.get("situation")
        if named is None and not (extension.get("check_rules") and intent_tags):
            return None
        stored = await self._db.profiles.find_one({"_id": user_id, "user_id": user_id}, {"profile": 1})
        profile = (stored or {}).get("profile") or {}
        if named is not None:
            for_situation(profile, named)  # refuses a name the profile does not define
            return str(named)
        situations = set(defined(profile))
        return next((tag for tag in intent_tags if tag in situations), None)

    async def report(self, user_id: int, track_ids: list[str], situation: str | None) -> dict[str, Any]:
        checked = await self._tracks.check_playlist(user_id, track_ids, None, None, situation)
        return {
            "ok": checked["ok"],
            "situation": situation,
            "violations": [
                {**v, "track_ids": v["track_ids"][:LISTED_IDS]} for v in checked["violations"][:LISTED_VIOLATIONS]
            ],
            "violation_count": checked["violation_count"],
            "unverified": sorted({u["rule"] for u in checked["unverified"]}),
            "unknown_tracks": checked["unknown_tracks"][:LISTED_UNKNOWN],
            "unknown_count": checked["unknown_count"],
        }
