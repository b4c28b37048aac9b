"""Which resources a successful write tool may have changed, for ``resources/subscribe``.

The table errs towards telling: a subscriber told "may have changed" re-reads and finds the same
body, while one never told keeps a stale one. A write tool missing from the table changes every
resource of its user, so a new tool cannot silently leave subscribers behind.
"""

from __future__ import annotations

from typing import Any

from tools.resources.uris import Change, Kind

_EVERYTHING: frozenset[Kind] = frozenset({"profile", "playlists", "playlist", "playlist_at", "context"})
_PLAYLIST_MOVE: frozenset[Kind] = frozenset({"playlists", "playlist", "playlist_at", "context"})

# tool -> (kinds, whether only the playlists the arguments name are changed)
CHANGES: dict[str, tuple[frozenset[Kind], bool]] = {
    # The profile and the block built from it.
    "memory.update_profile": (frozenset({"profile", "context"}), False),
    # Preference events, memories, plays, follow-ups, choices: the block only.
    "memory.append_preference_event": (frozenset({"context"}), False),
    "memory.add": (frozenset({"context"}), False),
    "memory.log_plays": (frozenset({"context"}), False),
    "memory.validate_recommendation": (frozenset({"context"}), False),
    "memory.record_choice": (frozenset({"context"}), False),
    "memory.resolve_conflict": (frozenset({"context"}), False),
    # Ledger moves: the list (order, track counts), the named playlists (now and at any time at or
    # after the change, which a client-timestamped move can reach), the block's recent playlists.
    "memory.log_playlist_create": (_PLAYLIST_MOVE, True),
    "memory.log_playlist_mutation": (_PLAYLIST_MOVE, True),
    "memory.undo_last_mutation": (_PLAYLIST_MOVE, True),
    "memory.resync_playlist": (_PLAYLIST_MOVE, True),
    "memory.fork_playlist": (_PLAYLIST_MOVE, True),
    # The catalog: track names shown in every playlist of the user.
    "memory.upsert_tracks": (frozenset({"playlist", "playlist_at"}), False),
    # A confirmed text (resolution only) and a pause (it stops writes): no resource reads differently.
    "memory.confirm_track": (frozenset(), False),
    "memory.pause": (frozenset(), False),
    # set_enabled (off reads as empty), forget, import, delete: everything of the user.
}


def change_of(tool: str, arguments: dict[str, Any]) -> Change | None:
    """What the successful call ``tool(arguments)`` may have changed; None for nothing."""
    user_id = arguments.get("user_id")
    if not isinstance(user_id, int) or isinstance(user_id, bool):
        return None
    kinds, named_only = CHANGES.get(tool, (_EVERYTHING, False))
    if not kinds:
        return None
    named = None
    if named_only:
        named = frozenset(v for k in ("playlist_id", "new_playlist_id") if isinstance(v := arguments.get(k), str))
    return Change(user_id, kinds, named)
