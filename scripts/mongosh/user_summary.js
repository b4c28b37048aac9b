// Taste Memory operator script: what is stored for one user.
//
//   mongosh "$URI/taste_memory" --quiet --eval 'const userId = 1' scripts/mongosh/user_summary.js
//
// With docker-compose.yml, from the host (URI=mongodb://127.0.0.1:27017):
//   mongosh "mongodb://127.0.0.1:27017/taste_memory?directConnection=true" --quiet --eval 'const userId = 1' scripts/mongosh/user_summary.js
// or inside the mongo container (scripts/mongosh is mounted at /scripts/mongosh):
//   docker compose exec mongo mongosh taste_memory --quiet --eval 'const userId = 1' /scripts/mongosh/user_summary.js
//
// Prints the profile's version and top-level keys, the number of preference events, playlists,
// history buckets and idempotency claims, catalog tracks, typed memories by type (and how many
// aged to a gist), plays and their month buckets, aging records, and the 10 most recently updated
// playlists with their track counts. Read-only.

function tasteMemoryUserSummary() {
  const usage = "usage: mongosh \"$URI/taste_memory\" --quiet --eval 'const userId = 1' scripts/mongosh/user_summary.js";
  if (typeof userId === "undefined" || userId === null || userId === "") {
    print("error: userId is not set; set it with --eval before the script file");
    print(usage);
    return 2;
  }
  const uid = Number(userId);
  if (!Number.isInteger(uid) || uid < 1) {
    print("error: userId must be a positive integer, got " + JSON.stringify(userId));
    print(usage);
    return 2;
  }

  const names = db.getCollectionNames();
  if (!names.includes("profiles") && !names.includes("playlists")) {
    print("error: database '" + db.getName() + "' holds no Taste Memory collections (profiles, playlists);");
    print("       name the database in the URI, e.g. \"$URI/taste_memory\"");
    return 3;
  }

  const when = (d) => (d instanceof Date ? d.toISOString() : String(d));
  const profiles = db.getCollection("profiles");
  const preferenceEvents = db.getCollection("preference_events");
  const playlists = db.getCollection("playlists");
  const history = db.getCollection("playlist_history");
  const idempotency = db.getCollection("idempotency");
  const tracks = db.getCollection("tracks");
  const memories = db.getCollection("memories");
  const plays = db.getCollection("plays");
  const aging = db.getCollection("memory_aging");

  print("Taste Memory — user " + uid + " (database " + db.getName() + ")");
  print("");

  const profile = profiles.findOne({ _id: uid }, { profile: 1, version: 1, updated_at: 1, created_at: 1, history: 1 });
  if (profile === null) {
    print("profile: none");
  } else {
    const body = profile.profile || {};
    const keys = Object.keys(body);
    print("profile: version " + profile.version + ", updated " + when(profile.updated_at) +
          ", " + (profile.history || []).length + " of its applied patches kept");
    print("  keys (" + keys.length + "): " + (keys.length ? keys.join(", ") : "(empty)"));
  }
  print("");

  const eventCount = preferenceEvents.countDocuments({ user_id: uid });
  const playlistCount = playlists.countDocuments({ user_id: uid });
  const bucketCount = history.countDocuments({ user_id: uid });
  const claimCount = idempotency.countDocuments({ user_id: uid });
  print("preference events:  " + eventCount);
  print("playlists:          " + playlistCount);
  print("history buckets:    " + bucketCount);
  print("idempotency claims: " + claimCount);
  print("catalog tracks:     " + tracks.countDocuments({ user_id: uid }));
  const types = ["recommendation", "insight", "event", "feedback", "discussion"];
  const byType = types.map((t) => [t, memories.countDocuments({ user_id: uid, type: t })]).filter((c) => c[1] > 0);
  const memoryCount = byType.reduce((sum, c) => sum + c[1], 0);
  print("typed memories:     " + memoryCount + (byType.length ? " (" + byType.map((c) => c[0] + " " + c[1]).join(", ") +
        "; " + memories.countDocuments({ user_id: uid, fuzzy: true }) + " aged to a gist)" : ""));
  const buckets = plays.find({ user_id: uid }, { plays: 1 }).toArray();
  const playCount = buckets.reduce((sum, b) => sum + (b.plays || []).length, 0);
  print("plays:              " + playCount + " in " + buckets.length + " month bucket(s)");
  print("aging records:      " + aging.countDocuments({ user_id: uid }));
  print("");

  const recent = playlists
    .find({ user_id: uid }, { playlist_id: 1, name: 1, track_count: 1, seq: 1, updated_at: 1 })
    .sort({ updated_at: -1, playlist_id: -1 })
    .limit(10)
    .toArray();
  if (recent.length === 0) {
    print("recently updated playlists: none");
  } else {
    print("recently updated playlists (newest first, at most 10):");
    print("  " + "updated".padEnd(24) + "  " + "tracks".padStart(6) + "  " + "seq".padStart(5) + "  playlist");
    for (const p of recent) {
      const tracks = typeof p.track_count === "number" ? p.track_count : "?";
      print("  " + when(p.updated_at).padEnd(24) + "  " + String(tracks).padStart(6) + "  " +
            String(p.seq).padStart(5) + "  " + p.playlist_id + "  " + JSON.stringify(p.name || ""));
    }
  }
  return 0;
}

{
  const tasteMemoryStatus = tasteMemoryUserSummary();
  if (tasteMemoryStatus !== 0) {
    quit(tasteMemoryStatus);
  }
}
