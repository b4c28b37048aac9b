"""The profile against its patch history ("profile provenance").

``memory_explain`` answers "why is this field set" from the profile's history patches at read time,
so the history must explain the stored profile: replaying every patch in order from ``{}`` with the
same merge the writer uses must give the stored profile, at the version of the last patch. That can
be checked only while the history is complete (its oldest entry is version 1); once the history cap
(``MEMORY_PROFILE_HISTORY_CAP``) dropped older patches the replay has no starting point, and the
check says so instead of passing. The history is the record: a repair sets the profile (and its
version and time) to what the history says, which undoes an edit made around the service.
"""

from __future__ import annotations

from typing import Any

from service.pointers import pointer
from service.profiles.store import merge
from service.rederive.compare import Difference, difference, normal
from service.storage.database import Database

VIEW = "profile"


def changed_paths(stored: Any, derived: Any, parts: tuple[str, ...] = ()) -> list[str]:
    """JSON Pointers where the two profiles differ (the outermost differing node)."""
    if isinstance(stored, dict) and isinstance(derived, dict):
        paths = []
        for key in sorted(set(stored) | set(derived)):
            if key not in stored or key not in derived:
                paths.append(pointer([*parts, key]))
            else:
                paths += changed_paths(stored[key], derived[key], (*parts, key))
        return paths
    return [] if normal(stored) == normal(derived) else [pointer(list(parts)) or "/"]


async def check_profile(db: Database, user_id: int, write: bool) -> tuple[list[Difference], dict[str, Any] | None]:
    """(differences, a note when the profile could not be checked); repaired when ``write``."""
    document = await db.profiles.find_one({"_id": user_id, "user_id": user_id})
    if document is None:
        return [], None
    history = document.get("history") or []
    if not history:
        return [], {"view": VIEW, "reason": "no_history", "detail": "the profile keeps no patch to replay"}
    if history[0].get("version") != 1:
        return [], {
            "view": VIEW,
            "reason": "history_capped",
            "detail": f"the oldest patch kept is version {history[0].get('version')}: the history cap "
            "dropped older ones, so the stored profile cannot be replayed from its history",
        }
    gaps = [e.get("version") for i, e in enumerate(history) if e.get("version") != i + 1]
    if gaps:  # a missing or repeated version: the patches in between are not all there to replay
        return [], {
            "view": VIEW,
            "reason": "history_gap",
            "detail": f"the history's versions are not 1, 2, 3 … (first out of place: {gaps[0]})",
        }
    profile: dict[str, Any] = {}
    for entry in history:
        profile = merge(profile, entry.get("patch") or {})
    last = history[-1]
    derived = {"profile": profile, "version": last.get("version"), "updated_at": last.get("applied_at")}
    fields = [f for f in ("profile", "version", "updated_at") if normal(document.get(f)) != normal(derived[f])]
    if not fields:
        return [], None
    found = [
        difference(
            VIEW,
            user_id,
            fields,
            "the stored profile is not what its history patches give",
            paths=changed_paths(document.get("profile"), profile)[:20],
            stored_version=document.get("version"),
            derived_version=derived["version"],
        )
    ]
    if write:
        await db.profiles.update_one({"_id": user_id, "user_id": user_id}, {"$set": derived})
    return found, None
