"""Reports over a user's history: rotation and recurring feedback."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ENVELOPE, ToolSpec


async def rotation_report(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.insights.rotation_report(a["user_id"], a.get("days", 30), a.get("limit", 50), a.get("cursor"))


async def feedback_summary(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.insights.feedback_summary(a["user_id"], a.get("limit", 20))


INSIGHT_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.rotation_report",
        "Rotation report (memory.rotation_report)",
        "For 'what's newly in rotation vs my long-term staples?', and before a v2 with 'more new tracks' (avoid "
        "the staples). Works on every playlist logged for the user, from the ledger. A track is in rotation "
        "while at least one playlist holds it now. first_seen: the earliest time it entered any of the user's "
        "playlists (creation, fork or the change that added it), even one it has left since; present_since: "
        "the start of its current unbroken stay (earliest over the playlists holding it now). new: first_seen "
        "within the last `days` (default 30). staples: in 3 or more playlists now (even if new: reuse makes a "
        "staple), or present for 90 days or more and not new; reasons says which. The lists are disjoint; "
        "tracks that are neither are only counted (totals.other). new is newest first; staples most playlists "
        "first, then longest present. Each entry: track_id, first_seen, present_since, playlist_count, up to 5 "
        "playlist ids (longest held first), and name/artists from the track catalog (null when unknown: "
        "memory_upsert_tracks teaches it). At most `limit` (default 50) entries per list; totals count all, "
        "truncated is true when a list was cut." + ENVELOPE,
        rotation_report,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.feedback_summary",
        "Recurring feedback (memory.feedback_summary)",
        "For 'what rules keep recurring in my feedback?', and before building a playlist to see which rules "
        "the user had to repeat (apply those first). Groups the user's rule, dislike and feedback preference "
        "events (likes and notes are left out) and the profile patches (one observation per key path a patch "
        "set; an array counts the items it added; a whole-profile write of more than 5 paths counts only the "
        "paths it changed). Each observation folds to a key 'cue: words': cue max (limits: 'no more than', "
        "'too many', 'less', 'overweight', 'accent'), avoid ('no', 'never', 'don't', 'hate', every dislike) "
        "or about; words are what it is about (payload.artist, genre or track_id when given, else the text "
        "or the profile key path) with case, accents, punctuation, numbers, stop words and generic words "
        "(song, track, playlist, please...) removed, synonyms folded (band -> artist, minutes -> duration) "
        "and typos of a more frequent word corrected. So 'no more than 3 songs per artist', 'max three tracks "
        "from one band' and a patch of playlist_rules.max_tracks_per_artist all have key 'max: artist'. "
        "basis: same_words (equal keys) or similar_words (same cue, at least half the words shared). Each "
        "group: count (events and patches), types, first_seen/last_seen, label (newest text), subjects "
        "(artist:..., profile:<path>), up to 3 newest examples with event_id or profile_version. Most "
        "recurring first, then most recent; at most `limit` (default 20) groups; totals.recurring_groups "
        "counts groups seen twice or more. Profile history keeps the latest 200 patches." + ENVELOPE,
        feedback_summary,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
]
