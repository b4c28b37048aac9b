"""Every tool: the PRD contract's here, the later capabilities' in their own modules."""

from __future__ import annotations

from collections.abc import Collection

from service.auth.policy import Access
from tools.specs import prd as handlers
from tools.specs.base import ASKS_USER, ENVELOPE, ToolSpec
from tools.specs.context import CONTEXT_SPECS
from tools.specs.control import CONTROL_SPECS
from tools.specs.followups import FOLLOWUP_SPECS
from tools.specs.forget import FORGET_SPECS
from tools.specs.insights import INSIGHT_SPECS
from tools.specs.memories import MEMORY_SPECS
from tools.specs.moves import MOVE_SPECS
from tools.specs.provenance import PROVENANCE_SPECS
from tools.specs.tracks import TRACK_SPECS
from tools.specs.transfer import IMPORT_SPECS

__all__ = ["TOOLSETS", "TOOL_SPECS", "ToolSpec", "specs_in"]

PRD_SPECS: list[ToolSpec] = [
    ToolSpec(
        "ops.list_users",
        "List users (ops.list_users)",
        "Session bootstrap, call first: the users whose memory exists, with profile version and counts of "
        "playlists and preference events. If exactly one user is listed use it; otherwise ask the person "
        "which user they are." + ENVELOPE,
        handlers.list_users,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.LIST_USERS,
    ),
    ToolSpec(
        "memory.get_profile",
        "Get taste profile (memory.get_profile)",
        "Read the user's durable taste profile (genres, energy preferences, playlist_rules such as "
        "max_tracks_per_artist, avoid list) and its version. Call at the start of every session and before "
        "building or expanding a playlist; apply its rules. A user without a profile gets profile {} and "
        "version 0." + ENVELOPE,
        handlers.get_profile,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.update_profile",
        "Update taste profile (memory.update_profile)",
        "Change the durable profile with a JSON Merge Patch (RFC 7396): objects merge, null deletes a key, "
        "arrays replace whole. Use it for the normalized rule after recording what the user said with "
        "memory_append_preference_event; give reason (e.g. 'User feedback: ...') and source='user' when the "
        "user asked. Returns the new profile and version; a patch that changes nothing keeps the version." + ENVELOPE,
        handlers.update_profile,
        read_only=False,
        destructive=True,
        idempotent=True,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.append_preference_event",
        "Record preference or feedback (memory.append_preference_event)",
        "Record what the user actually said about their taste (like, dislike, rule, feedback, note), "
        "append-only. Put the user's own words in payload.raw_text, plus structured fields (artist, genre, "
        "track_id...). Then normalize the lasting rule into the profile with memory_update_profile." + ENVELOPE,
        handlers.append_preference_event,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.log_playlist_create",
        "Log a created playlist (memory.log_playlist_create)",
        "Immediately after creating a playlist on the music service and adding its tracks, log it here: the "
        "exact ordered track_ids you added, intent_tags (e.g. ['upbeat','breathers']) and seed_context (time "
        "window, inspiration artists/tracks, constraints applied). Memory, not the music service, is the "
        "record of what the playlist contains. Pass an idempotency_key to make retries safe; logging the same "
        "playlist twice without one is CONFLICT." + ENVELOPE,
        handlers.log_playlist_create,
        read_only=False,
        destructive=False,
        idempotent=True,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.log_playlist_mutation",
        "Log a playlist change (memory.log_playlist_mutation)",
        "Log every change you make to a logged playlist, right after making it on the music service. "
        "ADD_TRACKS {track_ids, insert_at?} inserts at insert_at (default: append), or {track_ids, positions} "
        "puts track_ids[i] at index positions[i] of the resulting list; REMOVE_TRACKS {track_ids} removes "
        "every occurrence; REORDER {track_ids} is the full new order (must be a permutation of the current "
        "tracks, else CONFLICT); UPDATE_META {name?, description?, intent_tags?}. Timestamps must not go "
        "back before the last logged change. Pass client_event_id (a UUID) so a retry is applied once. "
        "result.new_snapshot_id is set when this change triggered a snapshot." + ENVELOPE,
        handlers.log_playlist_mutation,
        read_only=False,
        destructive=False,
        idempotent=False,
        access=Access.WRITE,
    ),
    ToolSpec(
        "memory.get_playlists",
        "List logged playlists (memory.get_playlists)",
        "Playlists logged for the user, most recently changed first, with track_count. Page with "
        "next_cursor (pass it back as cursor; null means no more). Use it when the user refers to 'the "
        "playlist you made last time'." + ENVELOPE,
        handlers.get_playlists,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.get_playlist",
        "Get a logged playlist (memory.get_playlist)",
        "Details of one logged playlist: metadata and seed_context, the latest stored snapshot (which may "
        "predate the most recent changes) and the most recent events, oldest first (older ones are left out "
        "when the answer would pass about 400 kB; memory_export_user_data has every event). For the exact "
        "current track list call memory_reconstruct_playlist. include_tracks=true adds latest_snapshot.tracks (name, "
        "artists, duration_ms per track ID from the catalog, memory_upsert_tracks). A fork shows forked_from."
        + ENVELOPE,
        handlers.get_playlist,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.reconstruct_playlist",
        "Reconstruct playlist contents (memory.reconstruct_playlist)",
        "The exact ordered track_ids of a logged playlist now, or at at_time. Use this instead of reading "
        "the playlist back from the music service (which may answer 403): the ledger is the truth. at_time "
        "before the playlist's creation is NOT_FOUND. include_tracks=true adds tracks: tracks[i] names track_ids[i] "
        "(name, artists, duration_ms; null when the catalog does not know the ID)." + ENVELOPE,
        handlers.reconstruct_playlist,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.search",
        "Search memory (memory.search)",
        "Keyword search over the user's playlists (name, tags, description, seed context), preference "
        "events and profile, best first. Use it to 'find that playlist from before' by vibe or name, then "
        "confirm with memory_get_playlist. Hits are lean (short snippet; a playlist's name, an event's type "
        "and time); detail='full' adds every stored field and the matched words." + ENVELOPE,
        handlers.search,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.export_user_data",
        "Export user data (memory.export_user_data)",
        "Everything stored for the user as JSON (profile with history, preference events, every playlist "
        "with all snapshots and events). Large exports come in parts: while "
        "result.data.continuation.next_cursor is not null, call again with cursor set to it." + ENVELOPE,
        handlers.export_user_data,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.READ,
    ),
    ToolSpec(
        "memory.delete_user_data",
        "Delete user data (memory.delete_user_data)",
        "Permanently delete everything stored for the user (profile, events, playlists and their history). "
        "Only when the user explicitly asks; requires confirm: true. Cannot be undone." + ASKS_USER + ENVELOPE,
        handlers.delete_user_data,
        read_only=False,
        destructive=True,
        idempotent=True,
        access=Access.DELETE,
    ),
    ToolSpec(
        "ops.audit",
        "Audit trail (ops.audit)",
        "Operators only: who changed what and when. Entries (newest first) name the time, collection, "
        "operation, user_id, playlist_id, document key, tool, request_id and the principal (token id) of "
        "every change to profiles, preference events and playlist history, and one tombstone per deleted "
        "user. Filter by user_id, playlist_id and the time range [since, until); page with next_cursor." + ENVELOPE,
        handlers.audit,
        read_only=True,
        destructive=False,
        idempotent=True,
        access=Access.OPERATOR,
    ),
]

TOOL_SPECS: list[ToolSpec] = (
    PRD_SPECS + MOVE_SPECS + TRACK_SPECS + INSIGHT_SPECS + MEMORY_SPECS + FOLLOWUP_SPECS + IMPORT_SPECS + CONTROL_SPECS
)
TOOL_SPECS += CONTEXT_SPECS  # the memory block for the prompt
TOOL_SPECS += FORGET_SPECS  # forget one item
TOOL_SPECS += PROVENANCE_SPECS  # pairwise choices and provenance


def _names(*groups: list[ToolSpec]) -> frozenset[str]:
    return frozenset(spec.prd_name for group in groups for spec in group)


# MEMORY_TOOLSETS: a deployment lists only the tools it needs, since every listed tool
# costs the model context. ``core`` is the PRD contract (its eleven memory tools and
# ops.list_users); ops.list_users is in ``ops`` too. Every tool is in at least one toolset.
TOOLSETS: dict[str, frozenset[str]] = {
    "core": _names(PRD_SPECS) - {"ops.audit"},
    "ledger": _names(MOVE_SPECS) | {"memory.rotation_report"},
    "tracks": _names(TRACK_SPECS),
    "memories": _names(MEMORY_SPECS, FOLLOWUP_SPECS, CONTEXT_SPECS, PROVENANCE_SPECS) | {"memory.feedback_summary"},
    "control": _names(CONTROL_SPECS, FORGET_SPECS, IMPORT_SPECS),
    "ops": frozenset({"ops.list_users", "ops.audit"}),
}
assert _names(TOOL_SPECS) == frozenset().union(*TOOLSETS.values()), "a tool in no toolset"


def specs_in(toolsets: Collection[str] | None) -> list[ToolSpec]:
    """The tools of these toolsets, in catalog order (None: every tool)."""
    if toolsets is None:
        return list(TOOL_SPECS)
    wanted = frozenset().union(*(TOOLSETS[name] for name in toolsets))
    return [spec for spec in TOOL_SPECS if spec.prd_name in wanted]
