// Taste Memory operator script: the full ledger of one playlist, in sequence order.
//
//   mongosh "$URI/taste_memory" --quiet --eval 'const userId = 1, playlistId = "37i9dQZF1DX"' scripts/mongosh/playlist_history.js
//
// With docker-compose.yml, from the host (URI=mongodb://127.0.0.1:27017):
//   mongosh "mongodb://127.0.0.1:27017/taste_memory?directConnection=true" --quiet --eval 'const userId = 1, playlistId = "37i9dQZF1DX"' scripts/mongosh/playlist_history.js
// or inside the mongo container (scripts/mongosh is mounted at /scripts/mongosh):
//   docker compose exec mongo mongosh taste_memory --quiet --eval 'const userId = 1, playlistId = "37i9dQZF1DX"' /scripts/mongosh/playlist_history.js
//
// Reads the history buckets of `playlist_history` (each opens with a snapshot and holds the events
// that follow it) and prints every snapshot and event in sequence order: seq, time, type and a
// short summary of the payload, and who wrote it (the principal of its written_by stamp: a token
// id, "open" or "local"). A periodic snapshot at seq s is the state after event s, so it is
// printed right after that event. Ends with the current track count from `playlists` and says so
// if that projection is behind the history (the service rolls it forward on the next access).
// Read-only.

function tasteMemoryPlaylistHistory() {
  const usage = "usage: mongosh \"$URI/taste_memory\" --quiet --eval 'const userId = 1, playlistId = \"37i9dQZF1DX\"' scripts/mongosh/playlist_history.js";
  const missing = [];
  if (typeof userId === "undefined" || userId === null || userId === "") missing.push("userId");
  if (typeof playlistId === "undefined" || playlistId === null || playlistId === "") missing.push("playlistId");
  if (missing.length > 0) {
    print("error: " + missing.join(" and ") + (missing.length > 1 ? " are" : " is") +
          " not set; set them with --eval before the script file");
    print(usage);
    return 2;
  }
  const uid = Number(userId);
  if (!Number.isInteger(uid) || uid < 1) {
    print("error: userId must be a positive integer, got " + JSON.stringify(userId));
    print(usage);
    return 2;
  }
  const pid = String(playlistId);

  const names = db.getCollectionNames();
  if (!names.includes("playlist_history") && !names.includes("playlists")) {
    print("error: database '" + db.getName() + "' holds no Taste Memory collections (playlist_history, playlists);");
    print("       name the database in the URI, e.g. \"$URI/taste_memory\"");
    return 3;
  }

  const when = (d) => (d instanceof Date ? d.toISOString() : String(d));
  const clip = (text, max) => (text.length > max ? text.slice(0, max - 1) + "…" : text);
  const ids = (list) => {
    const shown = list.slice(0, 3).join(", ");
    return list.length > 3 ? shown + ", … (" + list.length + ")" : shown;
  };
  const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");
  const summarize = (type, payload) => {
    const p = payload || {};
    const tracks = Array.isArray(p.track_ids) ? p.track_ids : [];
    if (type === "ADD_TRACKS") {
      let where = "at the end";
      if (Array.isArray(p.positions)) where = "at positions " + clip(JSON.stringify(p.positions), 40);
      else if (typeof p.insert_at === "number") where = "at index " + p.insert_at;
      return "+" + plural(tracks.length, "track") + " " + where + ": " + ids(tracks);
    }
    if (type === "REMOVE_TRACKS") return "-" + plural(tracks.length, "track") + ": " + ids(tracks);
    if (type === "REORDER") return "new order of " + plural(tracks.length, "track") + ": " + ids(tracks);
    if (type === "UPDATE_META") {
      return Object.keys(p).map((k) => k + "=" + clip(JSON.stringify(p[k]), 60)).join(", ");
    }
    return clip(JSON.stringify(p), 100);
  };
  const row = (seq, time, type, text) =>
    print(String(seq).padStart(6) + "  " + time.padEnd(24) + "  " + type.padEnd(13) + "  " + text);

  print("Taste Memory — playlist " + pid + " of user " + uid + " (database " + db.getName() + ")");
  print("");
  print("   seq  " + "time".padEnd(24) + "  " + "type".padEnd(13) + "  summary");

  const cursor = db.getCollection("playlist_history")
    .find({ user_id: uid, playlist_id: pid })
    .sort({ base_seq: 1 });
  let buckets = 0;
  let snapshots = 0;
  let events = 0;
  let lastSeq = null;
  let gaps = 0;
  while (cursor.hasNext()) {
    const bucket = cursor.next();
    buckets += 1;
    if (buckets === 1 && bucket.created && bucket.created.seed_context &&
        Object.keys(bucket.created.seed_context).length > 0) {
      print("        seed context: " + clip(JSON.stringify(bucket.created.seed_context), 100));
    }
    // Events and the bucket's snapshot, ordered by seq; at equal seq the event comes first.
    const items = [];
    if (bucket.snapshot) items.push({ seq: bucket.snapshot.seq, order: 1, snapshot: bucket.snapshot });
    for (const event of bucket.events || []) items.push({ seq: event.seq, order: 0, event: event });
    items.sort((a, b) => a.seq - b.seq || a.order - b.order);
    for (const item of items) {
      if (item.event) {
        const e = item.event;
        if (lastSeq !== null && e.seq !== lastSeq + 1) {
          print("        ! gap: seq " + (lastSeq + 1) + " to " + (e.seq - 1) + " missing");
          gaps += 1;
        }
        lastSeq = e.seq;
        events += 1;
        const key = e.client_event_id ? "  [client_event_id " + e.client_event_id + "]" : "";
        const by = e.written_by && e.written_by.principal ? "  [by " + e.written_by.principal + "]" : "";
        row(e.seq, when(e.timestamp), e.type, summarize(e.type, e.payload) + key + by);
      } else {
        const s = item.snapshot;
        if (lastSeq === null) lastSeq = s.seq;
        snapshots += 1;
        const count = Array.isArray(s.track_ids) ? s.track_ids.length : "?";
        const meta = s.meta && s.meta.name !== undefined ? ", name " + clip(JSON.stringify(s.meta.name), 60) : "";
        row(s.seq, when(s.created_at), "SNAPSHOT",
            s.source + ": " + count + " tracks" + meta + "  [snapshot_id " + s.snapshot_id + "]");
      }
    }
  }

  const head = db.getCollection("playlists").findOne(
    { _id: uid + ":" + pid },
    { track_count: 1, seq: 1, name: 1, updated_at: 1 },
  );
  if (buckets === 0 && head === null) {
    print("");
    print("error: no playlist " + JSON.stringify(pid) + " is logged for user " + uid);
    return 1;
  }
  print("");
  print(plural(snapshots, "snapshot") + ", " + plural(events, "event") + " in " + plural(buckets, "history bucket") +
        (gaps ? ", " + plural(gaps, "sequence gap") : ""));
  if (head === null) {
    print("current: no playlist document (the service rebuilds it from the history on the next access)");
  } else {
    const tracks = typeof head.track_count === "number" ? head.track_count : "?";
    print("current: " + tracks + " tracks at seq " + head.seq + ", name " + JSON.stringify(head.name) +
          ", updated " + when(head.updated_at));
    if (lastSeq !== null && head.seq !== lastSeq) {
      print("note: the playlist document is at seq " + head.seq + " but the history reaches seq " + lastSeq +
            "; the service rolls it forward on the next access");
    }
  }
  return 0;
}

{
  const tasteMemoryStatus = tasteMemoryPlaylistHistory();
  if (tasteMemoryStatus !== 0) {
    quit(tasteMemoryStatus);
  }
}
