"""Rule reports on request: with ``check_rules`` a logged creation or change also answers how the
playlist, as it stands after the write, holds up under the profile's rules (in a situation, when
one is named or a creation's intent tags name one). The write is never refused for what the report
finds: the ledger records what happened. Without the extension arguments the PRD answer is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.profiles.situations import defined, for_situation
from service.storage.database import Database
from service.tracks.findings import first_page_head
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


@dataclass(frozen=True)
class Setting:
    """What a report is made in: the situation, and the stored profile if it was read to find it
    (the report then reads it no more: nothing between the two changes it)."""

    situation: str | None = None
    profile: dict[str, Any] | None = None


class RuleReports:
    def __init__(self, db: Database, tracks: TrackService) -> None:
        self._db = db
        self._tracks = tracks

    async def setting(self, user_id: int, extension: dict[str, Any], intent_tags: list[str]) -> Setting:
        """The situation the report is made in, checked before anything is written: the one named
        (an unknown name is refused), else the first intent tag that names one, else none."""
        named = extension.get("situation")
        if named is None and not (extension.get("check_rules") and intent_tags):
            return Setting()
        profile = await self._profile(user_id)
        if named is not None:
            for_situation(profile, named)  # refuses a name the profile does not define
            return Setting(str(named), profile)
        situations = set(defined(profile))
        return Setting(next((tag for tag in intent_tags if tag in situations), None), profile)

    async def report(self, user_id: int, track_ids: list[str], setting: Setting) -> dict[str, Any]:
        """The first page ``memory_check_playlist`` would answer for the playlist and the setting,
        cut shorter (without the cursor: nothing pages a report)."""
        profile = setting.profile if setting.profile is not None else await self._profile(user_id)
        run, rules = await self._tracks.run_profile_rules(user_id, track_ids, for_situation(profile, setting.situation))
        shown = first_page_head(run.lists(), rules, LISTED_VIOLATIONS)
        return {
            "ok": not run.violations and not run.unverified,
            "situation": setting.situation,
            "violations": [{**v, "track_ids": v["track_ids"][:LISTED_IDS]} for v in shown["violations"]],
            "violation_count": len(run.violations),
            "unverified": sorted({u["rule"] for u in shown["unverified"]}),
            "unknown_tracks": shown["unknown_tracks"][:LISTED_UNKNOWN],
            "unknown_count": len(run.unknown),
        }

    async def _profile(self, user_id: int) -> dict[str, Any]:
        stored = await self._db.profiles.find_one({"_id": user_id, "user_id": user_id}, {"profile": 1})
        return (stored or {}).get("profile") or {}
