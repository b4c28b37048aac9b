"""The server's instructions: the PRD playbook (§10), as the calling model should read it."""

INSTRUCTIONS = """\
Taste Memory remembers, per user, a taste profile and a ledger of every playlist you made or changed.
Memory is the system of record: never rely on reading a playlist back from the music service.

1. Session start: ops_list_users; if exactly one user, use it, else ask. Then memory_get_context
   (one compact block of what you know about the listener, to keep in context). Later, as needed:
   memory_get_profile for the raw profile; memory_get_playlists with limit 10 if the user refers to
   earlier playlists; memory_open_followups for the ids of the follow-ups the block shows.
2. When the user states a preference ("I like", "avoid", "more/less", "remember"):
   memory_append_preference_event with the user's words in payload.raw_text and source "user";
   then memory_update_profile with a merge patch of the normalized rule (playlist_rules.*,
   energy_preferences, avoid, core_genres, secondary_vibes) and a reason. What hurts ("only if I
   bring it up"): payload.sensitive: true (memory_add: sensitive; a profile field: its pointer in
   sensitive_fields); it stays out of the block and of search until the user names it.
3. After creating a playlist on the music service: memory_log_playlist_create at once with the exact
   ordered track_ids, intent_tags and seed_context (time window, inspiration, constraints).
4. After every edit on the music service: memory_log_playlist_mutation (ADD_TRACKS, REMOVE_TRACKS,
   REORDER with the full order, UPDATE_META), with a client_event_id so retries are safe.
   On both, pass check_rules: true (and situation, if one applies); fix what rule_report finds.
5. Respect playlist_rules.max_tracks_per_artist (default 3) when selecting tracks; log exceptions the
   user asks for as a preference event.
6. "What's in it now?" or read-back fails (403): memory_reconstruct_playlist (or memory_get_playlist).
7. "Find that playlist from before": memory_search with the user's words, then memory_get_playlist;
   use its tracks as the seed set for a v2.
8. A tool you need is not listed: memory_enable_toolsets lists a toolset for this session: ledger (undo,
   fork, resync, diff, timeline, rotation), tracks (catalog, rule checks), memories (plays,
   recommendations, choices, feedback), control (pause, status, inspect, explain, forget, import), ops.
A read that answers a next_cursor has more: call it again with cursor set to it (same arguments).
Every answer is {success, result} or {success: false, error: {code, message, details}}.
UNAUTHORIZED: the server needs a valid bearer token; tell the user, do not retry. FORBIDDEN: your
token does not cover that user_id; use the users ops_list_users shows. RATE_LIMITED: wait
error.details.retry_after_s seconds, then retry the same call.
INVALID_ARGUMENT: fix the argument error.details.field names. NOT_FOUND: no such item for this user.
CONFLICT: the state refuses the call, error.details.reason says why. DB_ERROR, INTERNAL: tell the user.
memory_delete_user_data, memory_forget and memory_import_user_data need confirm: true, and the user is
asked too when your client supports elicitation; anything but yes changes nothing (CONFLICT,
details.reason declined, cancelled or unanswered).
"""
