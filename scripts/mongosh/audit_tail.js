// Taste Memory operator script: the most recent audit entries, then (optionally) new ones as they come.
//
//   mongosh "$URI/taste_memory" --quiet --eval 'const userId = 1, limit = 50' scripts/mongosh/audit_tail.js
//   mongosh "$URI/taste_memory" --quiet --eval 'const userId = 1, playlistId = "37i9dQZF1DX", follow = true' scripts/mongosh/audit_tail.js
//   mongosh "$URI/taste_memory" --quiet scripts/mongosh/audit_tail.js
//
// With docker-compose.yml, from the host (URI=mongodb://127.0.0.1:27017):
//   mongosh "mongodb://127.0.0.1:27017/taste_memory?directConnection=true" --quiet --eval 'const follow = true' scripts/mongosh/audit_tail.js
// or inside the mongo container (scripts/mongosh is mounted at /scripts/mongosh):
//   docker compose exec mongo mongosh taste_memory --quiet --eval 'const userId = 1, follow = true' /scripts/mongosh/audit_tail.js
//
// Every variable is optional: userId (a positive integer) and playlistId (needs userId: playlist
// ids are per user) narrow the entries; limit (default 20, 0 = none) is how many of the most
// recent entries to print; follow = true keeps printing new entries until Ctrl-C.
//
// Reads `audit_log` (one entry per change of a profile, preference event or playlist history
// bucket, and one "delete_user_data" entry per deleted user) newest first, and prints the last
// `limit` entries oldest first, one line each: time, principal (token id, "open", "local" or
// "direct-database-write"), tool, operation, collection, user, playlist and request id.
// Follow mode watches `audit_log` for inserts (a change stream: needs a replica set, as
// docker-compose.yml runs). On a standalone server it polls every second instead; polling goes by
// entry time, so an entry written more than 10 s after the change it records (a backfill after
// the service's watcher lost its position) is shown by the change stream only. Read-only.

function tasteMemoryAuditTail() {
  const usage = "usage: mongosh \"$URI/taste_memory\" --quiet --eval 'const userId = 1, playlistId = \"37i9dQZF1DX\", limit = 20, follow = true' scripts/mongosh/audit_tail.js   (every variable optional)";
  const given = (value) => value !== null && value !== "";
  const hasUser = typeof userId !== "undefined" && given(userId);
  const hasPlaylist = typeof playlistId !== "undefined" && given(playlistId);
  let uid = null;
  if (hasUser) {
    uid = Number(userId);
    if (!Number.isInteger(uid) || uid < 1) {
      print("error: userId must be a positive integer, got " + JSON.stringify(userId));
      print(usage);
      return 2;
    }
  }
  if (hasPlaylist && !hasUser) {
    print("error: userId is not set, and playlistId needs it (playlist ids are per user); set both with --eval before the script file");
    print(usage);
    return 2;
  }
  const pid = hasPlaylist ? String(playlistId) : null;
  let count = 20;
  if (typeof limit !== "undefined" && given(limit)) {
    count = Number(limit);
    if (!Number.isInteger(count) || count < 0) {
      print("error: limit must be a non-negative integer, got " + JSON.stringify(limit));
      print(usage);
      return 2;
    }
  }
  let tail = false;
  if (typeof follow !== "undefined" && given(follow)) {
    if (follow !== true && follow !== false) {
      print("error: follow must be true or false, got " + JSON.stringify(follow));
      print(usage);
      return 2;
    }
    tail = follow;
  }

  const names = db.getCollectionNames();
  if (!names.includes("audit_log") && !names.includes("profiles") && !names.includes("playlists")) {
    print("error: database '" + db.getName() + "' holds no Taste Memory collections (audit_log, profiles, playlists);");
    print("       name the database in the URI, e.g. \"$URI/taste_memory\"");
    return 3;
  }

  const LAG_MS = 10 * 1000;
  const audit = db.getCollection("audit_log");
  const filter = {};
  if (uid !== null) filter.user_id = uid;
  if (pid !== null) filter.playlist_id = pid;
  const since = (moment) => Object.assign({}, filter, { time: { $gte: new Date(moment.getTime() - LAG_MS) } });
  const when = (d) => (d instanceof Date ? d.toISOString() : String(d));
  const show = (v) => (v === null || v === undefined || v === "" ? "-" : String(v));
  const line = (e) => when(e.time).padEnd(24) + "  " + show(e.principal).padEnd(12) + "  " + show(e.tool).padEnd(30) +
    "  " + show(e.operation).padEnd(16) + "  " + show(e.collection).padEnd(17) + "  " + show(e.user_id).padStart(5) +
    "  " + show(e.playlist_id).padEnd(22) + "  " + show(e.request_id) + (e.via === "backfill" ? "  (backfill)" : "");
  const header = () => print("time".padEnd(24) + "  " + "principal".padEnd(12) + "  " + "tool".padEnd(30) + "  " +
    "operation".padEnd(16) + "  " + "collection".padEnd(17) + "  " + "user".padStart(5) + "  " +
    "playlist".padEnd(22) + "  request");

  const scope = (uid === null ? "all users" : "user " + uid) + (pid === null ? "" : ", playlist " + pid);
  print("Taste Memory — audit log of " + scope + " (database " + db.getName() + ")");
  print("");

  // Follow mode opens the stream before the tail is read, so nothing inserted in between is lost;
  // `recent` (the entries shown, or known, within LAG_MS of the newest) keeps each on one line.
  const recent = new Map();
  let mark = null;
  const note = (e) => {
    recent.set(e._id, e.time);
    if (mark === null || e.time > mark) mark = e.time;
  };
  const emit = (e) => {
    print(line(e));
    note(e);
  };
  const prune = () => {
    if (mark === null) return;
    const horizon = mark.getTime() - LAG_MS;
    for (const [id, time] of recent) if (time.getTime() < horizon) recent.delete(id);
  };
  // Polling reads the last LAG_MS before the newest entry known on every round: what is stored up
  // to the newest entry shown (or stored, if none was shown) counts as known, anything later is new.
  const startPolling = () => {
    let upTo = mark;
    if (upTo === null) {
      const newest = audit.find(filter).sort({ time: -1, _id: -1 }).limit(1).toArray();
      if (newest.length === 0) return;
      upTo = newest[0].time;
    }
    for (const e of audit.find(since(upTo)).toArray()) if (e.time <= upTo) note(e);
  };
  let stream = null;
  if (tail) {
    const match = { operationType: "insert" };
    if (uid !== null) match["fullDocument.user_id"] = uid;
    if (pid !== null) match["fullDocument.playlist_id"] = pid;
    try {
      stream = audit.watch([{ $match: match }], { maxAwaitTimeMS: 1000 });
    } catch (e) {
      print("note: cannot watch audit_log (" + (e && e.message ? e.message : String(e)) +
            "); change streams need a replica set: polling every second instead");
      print("");
      startPolling();
    }
  }

  const entries = count === 0 ? [] : audit.find(filter).sort({ time: -1, _id: -1 }).limit(count).toArray().reverse();
  if (entries.length > 0 || tail) header();
  for (const e of entries) emit(e);
  if (entries.length === 0 && count > 0) print("no audit entries for " + scope);
  else if (count > 0 && entries.length === count) print("(the " + count + " most recent, oldest first; more with 'const limit = " + count * 5 + "')");
  if (!tail) return 0;

  if (stream !== null) {
    print("-- following new entries (change stream), Ctrl-C to stop");
    try {
      while (!stream.isClosed()) {
        const change = stream.tryNext();  // waits up to maxAwaitTimeMS for the next change
        if (change === null || !change.fullDocument || recent.has(change.fullDocument._id)) continue;
        emit(change.fullDocument);
        if (recent.size > 10000) prune();
      }
      print("note: the change stream closed: polling every second");
    } catch (e) {
      print("note: the change stream failed (" + (e && e.message ? e.message : String(e)) + "): polling every second");
    }
    startPolling();
  } else {
    print("-- following new entries (polling every second), Ctrl-C to stop");
  }
  for (;;) {
    sleep(1000);
    for (const e of audit.find(mark === null ? filter : since(mark)).sort({ time: 1, _id: 1 }).toArray()) {
      if (!recent.has(e._id)) emit(e);
    }
    prune();
  }
}

{
  const tasteMemoryStatus = tasteMemoryAuditTail();
  if (tasteMemoryStatus !== 0) {
    quit(tasteMemoryStatus);
  }
}
