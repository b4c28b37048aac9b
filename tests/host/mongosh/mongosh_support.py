"""Running the mongosh scripts of scripts/mongosh/ without mongosh or mongod.

A script runs under node after a small stand-in for the parts of mongosh it uses (``print``,
``quit``, ``sleep`` and a read-only ``db`` over documents loaded from JSON, with ``watch`` for
the audit tail), with the ``--eval`` declarations first, as mongosh evaluates them. The
documents are the ones the service itself wrote (``store_with_history``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from service.audit.origin import CallOrigin, acting_as, new_request_id
from service.settings import Settings
from tests.support import connected, playlist, track

REPO = Path(__file__).resolve().parents[3]
MONGOSH_DIR = REPO / "scripts" / "mongosh"
NODE = shutil.which("node")

USER = 3
OTHER_USER = 4  # one playlist of its own
DELETED_USER = 5  # wrote a profile, then was deleted: one "delete_user_data" audit entry remains
PLAYLIST_A = playlist(1)
PLAYLIST_B = playlist(2)
PLAYLIST_C = playlist(3)
T0 = datetime(2024, 1, 1, tzinfo=UTC)


# Filters are equality on (dotted) fields, plus the comparison operators the audit tail's polling
# uses; anything else fails loudly so a script cannot rely on what the stand-in does not check.
# ``sleep`` and change streams play the fixtures' ``later`` entries (see the audit tail tests);
# once they are used up the script is stopped as an operator's Ctrl-C would (exit 0).
FAKE_MONGOSH = r"""
const __fs = require("fs");
const __data = JSON.parse(__fs.readFileSync(process.env.TM_FIXTURES, "utf8"), (key, value) =>
  value && typeof value === "object" && Object.keys(value).length === 1 && typeof value.$date === "string"
    ? new Date(value.$date) : value);
function print(...args) { process.stdout.write(args.map(String).join(" ") + "\n"); }
function quit(code) { process.exit(code === undefined ? 0 : code); }
function __get(doc, path) { return path.split(".").reduce((d, k) => (d == null ? undefined : d[k]), doc); }
function __key(v) { return v instanceof Date ? v.getTime() : v; }
const __ops = {
  $gt: (x, y) => x !== undefined && x !== null && __key(x) > __key(y),
  $gte: (x, y) => x !== undefined && x !== null && __key(x) >= __key(y),
  $lt: (x, y) => x !== undefined && x !== null && __key(x) < __key(y),
  $lte: (x, y) => x !== undefined && x !== null && __key(x) <= __key(y),
};
function __matches(doc, filter) {
  for (const [key, want] of Object.entries(filter || {})) {
    const have = __get(doc, key);
    if (want !== null && typeof want === "object" && !(want instanceof Date)) {
      for (const [op, operand] of Object.entries(want)) {
        if (!__ops[op]) throw new Error("fake mongosh: operator " + op + " in filter " + JSON.stringify(filter));
        if (!__ops[op](have, operand)) return false;
      }
    } else if (__key(have) !== __key(want)) {
      return false;
    }
  }
  return true;
}
class __Cursor {
  constructor(docs) { this.docs = docs.slice(); this.pos = 0; }
  sort(spec) {
    const keys = Object.entries(spec);
    this.docs.sort((a, b) => {
      for (const [k, dir] of keys) {
        const x = __key(__get(a, k)), y = __key(__get(b, k));
        if (x < y) return -dir;
        if (x > y) return dir;
      }
      return 0;
    });
    return this;
  }
  limit(n) { if (n) this.docs = this.docs.slice(0, n); return this; }
  toArray() { return this.docs.slice(this.pos); }
  hasNext() { return this.pos < this.docs.length; }
  next() { return this.docs[this.pos++]; }
  forEach(fn) { while (this.hasNext()) fn(this.next()); }
}
const __later = (__data.later || []).slice();  // batches of entries, written while the script follows
function __stop() { process.exit(0); }  // the operator's Ctrl-C
function __insert(name, docs) { (__data.collections[name] = __data.collections[name] || []).push(...docs); }
function sleep(ms) {
  process.stderr.write("sleep " + ms + "\n");
  if (__later.length === 0) __stop();
  __insert("audit_log", __later.shift());
}
class __Collection {
  constructor(name) { this.name = name; }
  get docs() { return __data.collections[this.name] || []; }
  find(filter, projection) { return new __Cursor(this.docs.filter((d) => __matches(d, filter))); }
  findOne(filter, projection) { return this.docs.find((d) => __matches(d, filter)) || null; }
  countDocuments(filter) { return this.docs.filter((d) => __matches(d, filter)).length; }
  watch(pipeline, options) {
    process.stderr.write("watch " + this.name + " " + JSON.stringify([pipeline, options]) + "\n");
    if (!__data.replicaSet) {
      const error = new Error("The $changeStream stage is only supported on replica sets");
      error.code = 40573;
      throw error;
    }
    const name = this.name;
    const pending = __later.splice(0).flat();
    // Entries written between opening the stream and reading the tail: in both.
    __insert(name, pending.slice(0, __data.writtenWhileOpening || 0));
    const match = (pipeline[0] || {}).$match || {};
    let delivered = 0;
    return {
      isClosed: () => false,
      tryNext() {
        if (pending.length === 0) __stop();
        if (delivered++ === __data.streamFailsAfter) {
          // The stream breaks: the next entry is written meanwhile, the rest come while polling.
          __insert(name, [pending.shift()]);
          __later.push(...pending.splice(0).map((doc) => [doc]));
          throw new Error("Executor error during getMore :: caused by :: ChangeStreamHistoryLost");
        }
        const doc = pending.shift();
        if (!(__data.collections[name] || []).includes(doc)) __insert(name, [doc]);
        const change = { operationType: "insert", ns: { db: __data.database, coll: name }, fullDocument: doc };
        return __matches(change, match) ? change : null;
      },
    };
  }
}
const db = __data.forbidden
  ? new Proxy({}, { get(target, name) { throw new Error("the script touched db." + String(name)); } })
  : {
      getName: () => __data.database,
      getCollectionNames: () => Object.keys(__data.collections),
      getCollection: (name) => new __Collection(name),
    };
"""


def json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        return {"$date": moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")}
    raise TypeError(f"cannot serialize {type(value)}")


def write_fixtures(path: Path, database: str, collections: dict[str, list[dict[str, Any]]], **extra: Any) -> Path:
    path.write_text(json.dumps({"database": database, "collections": collections, **extra}, default=json_default))
    return path


def node_check(source: str, name: str, tmp: Path | None = None) -> None:
    assert NODE
    folder = tmp or Path(os.environ.get("TMPDIR", "/tmp"))
    path = folder / f"tm-check-{os.getpid()}-{name}"
    path.write_text(source)
    try:
        done = subprocess.run([NODE, "--check", str(path)], capture_output=True, text=True, timeout=60)
    finally:
        path.unlink()
    assert done.returncode == 0, f"{name} is not valid JavaScript:\n{done.stderr}"


def run_mongosh(
    stored: dict[str, Any], script: str, evaluated: str | None, fixtures: Path | None = None
) -> subprocess.CompletedProcess[str]:
    assert NODE
    source = FAKE_MONGOSH + (evaluated + "\n" if evaluated else "") + (MONGOSH_DIR / script).read_text()
    program = stored["folder"] / f"run-{script}"
    program.write_text(source)
    env = {**os.environ, "TM_FIXTURES": str(fixtures or stored["fixtures"])}
    return subprocess.run([NODE, str(program)], capture_output=True, text=True, timeout=60, env=env)


async def store_with_history(data_dir: Path) -> dict[str, Any]:
    """A user with a profile, preference events and two playlists, another user with one
    playlist and a deleted user, written by the service (audit log included)."""
    settings = Settings(data_dir=data_dir, mongodb_uri=None)
    async with connected(settings) as call:
        await call.ok(
            "memory_update_profile",
            {"user_id": USER, "patch": {"genres": {"like": ["ambient"]}, "rules": ["no live versions"]}},
        )
        for word in ("calm", "no vocals"):
            await call.ok(
                "memory_append_preference_event", {"user_id": USER, "type": "like", "payload": {"raw_text": word}}
            )
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": USER,
                "playlist_id": PLAYLIST_A,
                "name": "Focus",
                "track_ids": [track(i) for i in range(3)],
                "seed_context": {"mood": "focus"},
                "created_at": T0.isoformat(),
            },
        )
        mutations: list[tuple[str, dict[str, Any]]] = [
            ("ADD_TRACKS", {"track_ids": [track(10)]}),
            ("ADD_TRACKS", {"track_ids": [track(11)], "insert_at": 0}),
            ("ADD_TRACKS", {"track_ids": [track(12), track(13)], "positions": [1, 3]}),
            ("REMOVE_TRACKS", {"track_ids": [track(0)]}),
            ("UPDATE_META", {"name": "Deep Focus", "intent_tags": ["work"]}),
        ]
        mutations += [("ADD_TRACKS", {"track_ids": [track(20 + i)]}) for i in range(6)]  # 11 in all
        for i, (kind, payload) in enumerate(mutations, start=1):
            await call.ok(
                "memory_log_playlist_mutation",
                {
                    "user_id": USER,
                    "playlist_id": PLAYLIST_A,
                    "type": kind,
                    "payload": payload,
                    "timestamp": (T0 + timedelta(minutes=i)).isoformat(),
                },
            )
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": USER,
                "playlist_id": PLAYLIST_B,
                "name": "Run",
                "track_ids": [track(50), track(51)],
                "created_at": (T0 + timedelta(days=1)).isoformat(),
            },
        )
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": OTHER_USER, "playlist_id": PLAYLIST_C, "name": "Other", "track_ids": [track(60)]},
        )
        await call.ok(
            "memory_log_playlist_mutation",
            {
                "user_id": OTHER_USER,
                "playlist_id": PLAYLIST_C,
                "type": "ADD_TRACKS",
                "payload": {"track_ids": [track(61)]},
            },
        )
        await call.ok(
            "memory_upsert_tracks",
            {"user_id": USER, "tracks": [{"track_id": track(1), "name": "Drift", "artists": ["Hammock"]}]},
        )
        now = datetime.now(UTC)
        for kind, importance, days, summary in (
            ("recommendation", 8, 3, "Recommended Kenotic."),
            ("insight", 6, 40, "Likes long fades. Mostly at night."),
            ("discussion", 2, 70, "Small talk about the weather."),
        ):
            await call.ok(
                "memory_add",
                {
                    "user_id": USER,
                    "type": kind,
                    "entities": ["Hammock"],
                    "summary": summary,
                    "importance": importance,
                    "timestamp": (now - timedelta(days=days)).isoformat(),
                },
            )
        with acting_as(CallOrigin("local", "cli.age", new_request_id())):  # as `memory-service age` runs
            await call.service.aging.run(user_id=USER)  # the insight becomes a gist, the discussion goes
        await call.ok(
            "memory_log_plays",
            {
                "user_id": USER,
                "plays": [
                    {"artist": "Hammock", "track": "Drift", "played_at": moment.isoformat()}
                    for moment in (T0, T0 + timedelta(hours=1), T0 + timedelta(days=40))
                ],
            },
        )
        await call.ok("memory_update_profile", {"user_id": DELETED_USER, "patch": {"genres": {"like": ["jazz"]}}})
        await call.ok("memory_delete_user_data", {"user_id": DELETED_USER, "confirm": True})
        db = call.service.database
        collections = {c.name: await c.find({}) for c in [*db.user_collections(), db.audit_log]}
        current = {
            p: await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": p})
            for p in (PLAYLIST_A, PLAYLIST_B)
        }
        profile = await call.ok("memory_get_profile", {"user_id": USER})
    return {"collections": collections, "current": current, "profile": profile}
