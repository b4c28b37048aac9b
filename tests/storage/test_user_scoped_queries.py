"""Every query a one-user call sends filters by ``user_id`` (issue 9: scale-out, checked in code).

A sharded MongoDB cluster with ``user_id`` as shard key routes a query to one shard only when
its filter holds ``user_id`` as an equality; a filter by ``_id`` alone goes to every shard,
although our ``_id``s encode the user (``service/ledger/keys.py``), because the shard key is
``user_id``, not ``_id``. So the filter of every storage call made for a one-user tool (all but
``ops_*``), and for the one-user CLI paths (export, import), must carry ``user_id`` at its top level.

The scenario drives every such tool through the in-process MCP client along its main paths
(create, mutations with snapshot and bucket rollover by count and by size, keyed retries and
refusals, cursor paging, reads with older events, reconstruction at a time, search, export in
continuation parts, a head document a crash left behind, delete, re-import) while a recorder
notes every call at two levels:

- the storage interface (``TrackedCollection``'s methods): the filter the service expresses;
- the driver (the collection object ``TrackedCollection`` wraps): the filter that would reach
  ``mongos``, after the storage layer built it (``replace_one`` and ``delete_many`` build their
  own ``_id`` filters).

Work that has no user by nature is exempt, and listed below with its reason; only code paths
that are not one-user calls may be exempt.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import json
import sys
import uuid
from collections import defaultdict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.ledger.keys import head_id
from service.storage.collection import TrackedCollection
from tests.storage.user_scoped_forget import forget_scenario
from tests.storage.user_scoped_memories import controls_scenario, memories_scenario
from tests.support import Caller, EnvelopeCaller, connected, playlist, track

REPO = Path(__file__).resolve().parents[2]
USER, OTHER = 901, 902

# Paths that are not one-user calls, so their storage calls may span users.
EXEMPT_PHASES = {
    "ops_list_users": "operator bootstrap over every user the caller may see (reads per-user counters)",
    "ops_audit": "operator query, optionally across users",
}
# Start-up runs once per process before any call; these sweeps read every user's documents (on
# MongoDB each is one scatter-gather per collection at start-up); every per-user repair they
# trigger is itself scoped. The HTTP server's background search warm-up (embedded engine only,
# not started here) lists users from ``user_stats`` once, then reads user by user.
EXEMPT_AT_STARTUP = {
    "service/ledger/recovery.py:roll_forward_all": "crash recovery: finds playlist documents behind their history",
    "service/users/stats.py:recount_all": "per-user counters recounted from the records (a crash may leave one behind)",
}
EXEMPT_COLLECTIONS = {
    "audit_state": "the change-stream watcher's resume position: one document, no user (MongoDB only)"
}


# Unscoped queries in code this file's author may not change, each with the change it awaits.
# The test tolerates exactly these and fails once one no longer occurs, so the list stays true:
# remove an entry when its fix lands.
AWAITING_OWNER: dict[str, tuple[set[str], Any]] = {
    # Preference events are keyed by their own uuid, unique across users (every other collection's
    # _id names its user). An import must not write an event id another user holds, so it looks the
    # imported ids up across users, once per import. Fixed when events get "<user>:<event>" ids.
    "import: imported preference-event ids checked across users (events lack per-user _ids)": (
        {"interface", "driver"},
        lambda q: (
            q.collection == "preference_events"
            and q.method == "find"
            and isinstance(q.filter, dict)
            and q.filter.get("user_id") == {"$ne": USER}
        ),
    )
}

# What the recorder knows how to read a filter from; any other public method of the storage
# interface fails the test until it is taught here.
INTERFACE_METHODS = {
    "find_one",
    "find",
    "count_documents",
    "aggregate",
    "insert_one",
    "update_one",
    "find_one_and_update",
    "replace_one",
    "delete_many",
    "count_by_user",
    "find_one_shared",
}
WHOLE_COLLECTION = {"count_by_user"}  # no filter: over every user (start-up's recount)
NOT_IN_ONE_USER_CALLS = {"find_one_and_update", "aggregate", "count_by_user"}
DRIVER_FILTER_FIRST = {
    "find_one",
    "find",
    "count_documents",
    "update_one",
    "update_many",
    "find_one_and_update",
    "find_one_and_replace",
    "find_one_and_delete",
    "replace_one",
    "delete_one",
    "delete_many",
}
DRIVER_DOCUMENT = {"insert_one"}
DRIVER_PASSIVE = {"name", "full_name", "database", "with_options", "index_information", "codec_options"}


@dataclass
class Query:
    level: str  # "interface" | "driver"
    phase: str  # the tool, "startup", or a CLI path
    collection: str
    method: str
    filter: Any
    site: str  # the service function that sent it

    @property
    def scoped(self) -> bool:
        subject = self.filter
        if self.method == "aggregate":
            first = subject[0] if subject else {}
            subject = first.get("$match", {}) if isinstance(first, Mapping) else {}
        if not isinstance(subject, Mapping):
            return False
        user = subject.get("user_id")
        return isinstance(user, int) and not isinstance(user, bool)

    @property
    def shape(self) -> str:
        return json.dumps(_shape(self.filter), sort_keys=True)

    def __str__(self) -> str:
        return f"[{self.phase}] {self.collection}.{self.method}({self.shape}) from {self.site}"


def _shape(value: Any) -> Any:
    """A filter with its values replaced by their types: what tells two query forms apart."""
    if isinstance(value, Mapping):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v) for v in value[:1]] + (["…"] if len(value) > 1 else [])
    return type(value).__name__


def _site() -> str:
    """The innermost service (or tools) function on the stack outside the storage layer."""
    frame = sys._getframe(2)
    while frame is not None:
        path = Path(frame.f_code.co_filename)
        if path.is_relative_to(REPO / "service") and not path.is_relative_to(REPO / "service" / "storage"):
            return f"{path.relative_to(REPO).as_posix()}:{frame.f_code.co_name}"
        if path.is_relative_to(REPO / "tools"):
            return f"{path.relative_to(REPO).as_posix()}:{frame.f_code.co_name}"
        frame = frame.f_back
    return "?"


# The collections whose interface call is under way: a collection's own nested call (delete_many's
# find) is not a separate query of the service, another collection's (the audit entry a write
# records) is.
_inside: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar("inside", default=frozenset())


@dataclass
class Recorder:
    phase: str = "startup"
    queries: list[Query] = field(default_factory=list)

    def note(self, level: str, collection: str, method: str, filter_: Any) -> None:
        self.queries.append(Query(level, self.phase, collection, method, filter_, _site()))

    @contextmanager
    def during(self, phase: str) -> Iterator[None]:
        previous, self.phase = self.phase, phase
        try:
            yield
        finally:
            self.phase = previous

    def at(self, level: str) -> list[Query]:
        return [q for q in self.queries if q.level == level]


def _interface_filter(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if method in WHOLE_COLLECTION:
        return {}
    if method == "aggregate":
        return args[0] if args else kwargs.get("pipeline")
    if method == "insert_one":
        return args[0] if args else kwargs.get("document")
    if method == "replace_one":
        # The service names the document; the storage layer builds the filter from it and the
        # condition (the driver level checks what it built).
        document = args[0] if args else kwargs["document"]
        condition = (args[1] if len(args) > 1 else kwargs.get("condition")) or {}
        built = {"_id": document["_id"], **condition}
        if "user_id" in document:
            built["user_id"] = document["user_id"]
        return built
    return args[0] if args else kwargs.get("filter_")


def record_interface(monkeypatch: pytest.MonkeyPatch, recorder: Recorder) -> None:
    public = {
        name
        for name, member in inspect.getmembers(TrackedCollection, inspect.iscoroutinefunction)
        if not name.startswith("_")
    }
    untaught = public - INTERFACE_METHODS
    assert not untaught, f"new storage methods {sorted(untaught)}: teach this recorder where their filter is"
    for method in sorted(public):
        original = getattr(TrackedCollection, method)

        @functools.wraps(original)
        async def recorded(
            self: TrackedCollection, *args: Any, __method: str = method, __original: Any = original, **kwargs: Any
        ) -> Any:
            inside = _inside.get()
            if id(self) in inside:
                return await __original(self, *args, **kwargs)
            recorder.note("interface", self.name, __method, _interface_filter(__method, args, kwargs))
            token = _inside.set(inside | {id(self)})
            try:
                return await __original(self, *args, **kwargs)
            finally:
                _inside.reset(token)

        monkeypatch.setattr(TrackedCollection, method, recorded)


class DriverRecorder:
    """Stands in for the driver's collection object, noting the filter of every call."""

    def __init__(self, inner: Any, collection: str, recorder: Recorder) -> None:
        self._inner, self._collection, self._recorder = inner, collection, recorder

    def __getattr__(self, attribute: str) -> Any:
        value = getattr(self._inner, attribute)
        if attribute in DRIVER_PASSIVE or attribute.startswith("_") or not callable(value):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            if attribute == "aggregate":
                subject = args[0] if args else kwargs.get("pipeline")
            elif attribute in DRIVER_DOCUMENT:
                subject = args[0] if args else kwargs.get("document")
            elif attribute in DRIVER_FILTER_FIRST:
                subject = args[0] if args else kwargs.get("filter")
            else:  # insert_many, bulk_write, distinct …: unknown here, so reported as unscoped
                subject = {"<unrecognised driver call>": attribute}
            self._recorder.note("driver", self._collection, attribute, subject)
            return value(*args, **kwargs)

        return call


def record_driver(service: Any, recorder: Recorder) -> bool:
    """Wrap the driver collection inside each of the service's collections; False if the storage
    layer no longer exposes it (then only the interface level is checked)."""
    database = service.database
    wrapped = False
    for name in vars(database):
        collection = getattr(database, name)
        if isinstance(collection, TrackedCollection) and hasattr(collection, "_collection"):
            collection._collection = DriverRecorder(collection._collection, collection.name, recorder)
            # The embedded engine's shortcuts read mongomock's store directly; at this level the
            # calls take the driver route a MongoDB server would receive.
            collection._in_process = False
            wrapped = True
    return wrapped


class RecordingCaller(EnvelopeCaller):
    """Each call's storage traffic is noted under the tool's name."""

    def __init__(self, inner: Caller, recorder: Recorder) -> None:
        self.inner, self.recorder = inner, recorder
        self.tools: set[str] = set()

    async def __call__(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.tools.add(tool)
        with self.recorder.during(tool):
            return await self.inner(tool, arguments)


# --- the scenario ----------------------------------------------------------------------------

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
P = [playlist(300 + n) for n in range(7)]  # P[0] the worked one, P[5] the big one, P[6] other user's


def at(minutes: int) -> str:
    return (T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def tracks(start: int, count: int) -> list[str]:
    return [track(start + i) for i in range(count)]


async def _profile_and_events(call: RecordingCaller) -> None:
    assert (await call.ok("memory_get_profile", {"user_id": USER}))["version"] == 0
    await call.error(
        "memory_update_profile",
        {"user_id": USER, "patch": {"genres": ["jazz"]}, "create_if_missing": False},
        "NOT_FOUND",
    )
    patch = {"genres": ["nordic jazz", "ambient"], "rules": {"avoid": ["christmas"]}}
    await call.ok("memory_update_profile", {"user_id": USER, "patch": patch, "reason": "onboarding"})
    await call.ok("memory_update_profile", {"user_id": USER, "patch": {"energy": "low"}, "source": "user"})
    assert (await call.ok("memory_update_profile", {"user_id": USER, "patch": patch}))["version"] == 2  # no-op
    for n, text in enumerate(["loves Esbjörn Svensson trio", "no vocals while working", "more fjord ambient"]):
        await call.ok(
            "memory_append_preference_event",
            {
                "user_id": USER,
                "type": "like" if n != 1 else "rule",
                "payload": {"raw_text": text},
                "source": "user",
                "timestamp": at(n),
            },
        )
    assert (await call.ok("memory_get_profile", {"user_id": USER}))["version"] == 2


async def _playlists(call: RecordingCaller) -> None:
    create = {
        "user_id": USER,
        "playlist_id": P[0],
        "name": "Deep focus",
        "track_ids": tracks(0, 30),
        "intent_tags": ["focus", "instrumental"],
        "seed_context": {"genres": ["jazz"]},
        "created_at": at(10),
        "idempotency_key": "create-deep-focus",
    }
    first = await call.ok("memory_log_playlist_create", create)
    assert await call.ok("memory_log_playlist_create", create) == first  # keyed retry
    await call.error("memory_log_playlist_create", {**create, "name": "Other"}, "CONFLICT")  # key reused
    unkeyed = {k: v for k, v in create.items() if k != "idempotency_key"}
    await call.error("memory_log_playlist_create", unkeyed, "CONFLICT")  # already logged
    await call.error(
        "memory_log_playlist_create", {**create, "idempotency_key": "create-deep-focus-2"}, "CONFLICT"
    )  # a fresh key claimed, then released: the playlist exists
    for n in range(1, 5):
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": USER,
                "playlist_id": P[n],
                "name": f"Mix {n}",
                "track_ids": tracks(100 * n, 3),
                "created_at": at(11 + n),
            },
        )
    # Large: past MEMORY_BUCKET_MAX_TRACK_IDS, so every change opens a bucket (rollover by size).
    await call.ok(
        "memory_log_playlist_create",
        {
            "user_id": USER,
            "playlist_id": P[5],
            "name": "Long drive",
            "track_ids": tracks(1000, 150),
            "created_at": at(20),
        },
    )
    await call.ok(
        "memory_log_playlist_create",
        {"user_id": OTHER, "playlist_id": P[6], "name": "Other's", "track_ids": tracks(9000, 2), "created_at": at(20)},
    )

    def mutation(kind: str, payload: dict[str, Any], minute: int, **extra: Any) -> dict[str, Any]:
        return {
            "user_id": USER,
            "playlist_id": P[0],
            "type": kind,
            "payload": payload,
            "timestamp": at(minute),
            **extra,
        }

    key = str(uuid.uuid4())
    keyed = mutation("ADD_TRACKS", {"track_ids": tracks(50, 2), "insert_at": 0}, 30, client_event_id=key)
    done = await call.ok("memory_log_playlist_mutation", keyed)
    assert await call.ok("memory_log_playlist_mutation", keyed) == done  # keyed retry
    await call.error("memory_log_playlist_mutation", {**keyed, "payload": {"track_ids": tracks(60, 1)}}, "CONFLICT")
    await call.ok("memory_log_playlist_mutation", mutation("REMOVE_TRACKS", {"track_ids": tracks(0, 2)}, 31))
    current = (await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": P[0]}))["track_ids"]
    await call.ok("memory_log_playlist_mutation", mutation("REORDER", {"track_ids": current[::-1]}, 32))
    await call.ok("memory_log_playlist_mutation", mutation("UPDATE_META", {"name": "Deeper focus"}, 33))
    for minute in range(34, 42):  # snapshots every 3 changes: several buckets
        await call.ok(
            "memory_log_playlist_mutation", mutation("ADD_TRACKS", {"track_ids": tracks(70 + minute, 1)}, minute)
        )
    refused = mutation("REORDER", {"track_ids": tracks(0, 1)}, 43, client_event_id=str(uuid.uuid4()))
    await call.error("memory_log_playlist_mutation", refused, "CONFLICT")  # not a permutation: key released
    await call.error(
        "memory_log_playlist_mutation", mutation("ADD_TRACKS", {"track_ids": tracks(1, 1)}, 5), "CONFLICT"
    )  # before the last change
    await call.error(
        "memory_log_playlist_mutation",
        {**mutation("ADD_TRACKS", {"track_ids": tracks(1, 1)}, 50), "playlist_id": playlist(999)},
        "NOT_FOUND",
    )
    big = {
        "user_id": USER,
        "playlist_id": P[5],
        "type": "ADD_TRACKS",
        "timestamp": at(45),
        "payload": {"track_ids": tracks(2000, 250)},
    }  # kept on the document without its payload
    await call.ok("memory_log_playlist_mutation", big)
    placed = {"track_ids": tracks(3000, 5), "positions": list(range(5))}
    await call.ok("memory_log_playlist_mutation", {**big, "timestamp": at(46), "payload": placed})


async def _tracks(call: RecordingCaller) -> None:
    await call.ok(
        "memory_upsert_tracks",
        {
            "user_id": USER,
            "tracks": [
                {
                    "track_id": track(1),
                    "name": "Deeper Focus",
                    "artists": ["Svenson"],
                    "duration_ms": 200_000,
                    "energy": 0.3,
                    "genres": ["nordic jazz"],
                },
                {"track_id": track(2), "name": "Fjord", "artists": ["Svenson"]},
            ],
        },
    )
    await call.ok("memory_resolve_track", {"user_id": USER, "text": "deeper focs"})
    await call.ok("memory_confirm_track", {"user_id": USER, "text": "that svenson one", "track_id": track(2)})
    await call.ok("memory_resolve_track", {"user_id": USER, "text": "that svenson one"})
    await call.ok("memory_check_playlist", {"user_id": USER, "track_ids": [track(1), track(2), track(3)]})
    await call.ok(
        "memory_check_playlist", {"user_id": USER, "track_ids": [track(1)], "rules": {"max_tracks_per_artist": 1}}
    )


async def _moves(call: RecordingCaller) -> None:
    """Issue 10's ledger moves, each also aimed at the other user's playlist (NOT_FOUND)."""
    await call.ok(
        "memory_log_playlist_mutation",
        {
            "user_id": USER,
            "playlist_id": P[4],
            "type": "ADD_TRACKS",
            "payload": {"track_ids": tracks(400, 2)},
            "timestamp": at(50),
        },
    )
    undone = await call.ok("memory_undo_last_mutation", {"user_id": USER, "playlist_id": P[4], "timestamp": at(51)})
    await call.ok(
        "memory_undo_last_mutation",
        {
            "user_id": USER,
            "playlist_id": P[4],
            "event_id": undone["event_id"],
            "client_event_id": str(uuid.uuid4()),
            "timestamp": at(52),
        },
    )
    await call.ok(
        "memory_resync_playlist",
        {"user_id": USER, "playlist_id": P[4], "track_ids": tracks(401, 3), "timestamp": at(53)},
    )
    await call.ok(
        "memory_fork_playlist",
        {"user_id": USER, "playlist_id": P[4], "new_playlist_id": playlist(40), "at_time": at(50)},
    )
    await call.ok("memory_diff_playlist", {"user_id": USER, "playlist_id": P[4], "from_time": at(1)})
    await call.ok("memory_get_playlist_timeline", {"user_id": USER, "playlist_id": P[4], "max_points": 10})
    for tool, extra in (
        ("memory_undo_last_mutation", {}),
        ("memory_resync_playlist", {"track_ids": tracks(1, 1)}),
        ("memory_fork_playlist", {"new_playlist_id": playlist(41)}),
        ("memory_diff_playlist", {"from_time": at(1)}),
        ("memory_get_playlist_timeline", {}),
    ):
        await call.error(tool, {"user_id": USER, "playlist_id": P[6], **extra}, "NOT_FOUND")
    await call.ok("memory_rotation_report", {"user_id": USER, "days": 30, "limit": 10})
    await call.ok("memory_feedback_summary", {"user_id": USER, "limit": 5})
    await call.ok("memory_get_context", {"user_id": USER, "budget_tokens": 800, "focus": "deeper focus"})
    await call.ok("memory_inspect", {"user_id": USER})
    await call.ok(
        "memory_record_choice",
        {
            "user_id": USER,
            "chose": {"kind": "track", "id": track(1)},
            "over": {"kind": "track", "id": track(2), "name": "Fjord"},
            "dimensions": ["energy"],
            "context": "focus music",
        },
    )
    await call.ok("memory_explain", {"user_id": USER, "path": "Svenson"})


async def _reads(call: RecordingCaller, service: Any) -> None:
    await _tracks(call)
    items, cursor, pages = [], None, 0
    while True:
        arguments: dict[str, Any] = {"user_id": USER, "limit": 2}
        if cursor:
            arguments["cursor"] = cursor
        page = await call.ok("memory_get_playlists", arguments)
        items += page["items"]
        pages += 1
        if pages == 2:  # another user's cursor is no cursor of theirs
            await call.error(
                "memory_get_playlists", {"user_id": OTHER, "cursor": page["next_cursor"]}, "INVALID_ARGUMENT"
            )
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(items) == 6 and pages == 3
    detail = await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": P[0], "include_events_limit": 40})
    assert len(detail["recent_events"]) == 12  # past the 5 kept on the document: read from history
    await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": P[5]})
    await call.error("memory_get_playlist", {"user_id": OTHER, "playlist_id": P[0]}, "NOT_FOUND")
    await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": P[0]})
    middle = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": P[0], "at_time": at(36)})
    assert middle["reconstruction"]["applied_event_count"] < 13
    await call.error(
        "memory_reconstruct_playlist", {"user_id": USER, "playlist_id": P[0], "at_time": at(1)}, "NOT_FOUND"
    )
    for query in ("deeper focus", "svenson", '"no vocals"', "fjord", "nordic jazz", "nothingmatcheshere"):
        await call.ok("memory_search", {"user_id": USER, "query": query, "limit": 10})

    # A crash between a commit and the playlist document's update: the next calls roll it forward.
    raw = service.database.raw["playlists"]
    await raw.delete_one({"_id": head_id(USER, P[1])})
    await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": P[1]})
    await raw.delete_one({"_id": head_id(USER, P[2])})
    await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": P[2]})
    await raw.update_one({"_id": head_id(USER, P[3])}, {"$set": {"seq": -1}})
    await call.ok(
        "memory_log_playlist_mutation",
        {
            "user_id": USER,
            "playlist_id": P[3],
            "type": "UPDATE_META",
            "payload": {"description": "rolled forward"},
            "timestamp": at(60),
        },
    )
    await _moves(call)
    await memories_scenario(call, USER, OTHER)
    await controls_scenario(call, USER)
    await forget_scenario(call, USER, OTHER)


async def _export_delete_import(call: RecordingCaller, recorder: Recorder, service: Any) -> None:
    with recorder.during("cli: memory-service age --user-id"):
        aged = await service.aging.run(user_id=USER)
    assert aged["counts"]["compressed"] == 1 and aged["counts"]["removed"] == 1, aged["counts"]
    parts, cursor = [], None
    while True:
        arguments: dict[str, Any] = {"user_id": USER}
        if cursor:
            arguments["cursor"] = cursor
        data = (await call.ok("memory_export_user_data", arguments))["data"]
        parts.append(data)
        cursor = data["continuation"]["next_cursor"]
        if cursor is None:
            break
    assert len(parts) > 3 and any(p["chunks"] for p in parts)
    with recorder.during("cli: memory-service export"):
        await service.transfer.export_all(USER)
    await call.ok("memory_delete_user_data", {"user_id": USER, "confirm": True})
    empty = (await call.ok("memory_export_user_data", {"user_id": USER}))["data"]
    assert empty["profile"] is None and not empty["playlists"]
    with recorder.during("cli: memory-service import"):
        counts = await service.transfer.import_counts(parts, USER)
    assert counts["playlists"] == 7  # six logged, one forked
    replaced = await call.ok(
        "memory_import_user_data", {"user_id": USER, "data": parts, "confirm": True, "replace": True}
    )
    assert replaced["replaced"] and replaced["imported"] == counts
    buckets = sum(len(p["plays"]) for p in parts) + sum(
        c["section"] == "play_bucket" and c["index"] == 0 for p in parts for c in p["chunks"]
    )
    assert (counts["memories"], counts["play_buckets"], counts["memory_aging"]) == (2, buckets, 2), counts
    await call.ok("memory_get_playlists", {"user_id": USER, "limit": 50})
    await call.ok("memory_search", {"user_id": USER, "query": "deeper focus"})
    # Operators' tools (exempt, recorded for the record).
    assert any(u["user_id"] == USER for u in (await call.ok("ops_list_users", {}))["users"])
    await call.ok("ops_audit", {"user_id": USER, "limit": 20})


def _summary(queries: list[Query]) -> str:
    shapes: dict[str, set[str]] = defaultdict(set)
    calls: dict[str, int] = defaultdict(int)
    for q in queries:
        shapes[q.collection].add(f"{q.method} {q.shape}")
        calls[q.collection] += 1
    return "\n".join(f"  {name}: {calls[name]} calls, {len(shapes[name])} distinct filters" for name in sorted(shapes))


def _unscoped(queries: list[Query]) -> list[Query]:
    return [
        q
        for q in queries
        if not q.scoped
        and q.phase not in EXEMPT_PHASES
        and q.collection not in EXEMPT_COLLECTIONS
        and q.phase != "startup"
    ]


def _assert_scoped(level: str, queries: list[Query]) -> None:
    unscoped = _unscoped(queries)
    awaiting = {reason: test for reason, (levels, test) in AWAITING_OWNER.items() if level in levels}
    unexpected = [q for q in unscoped if not any(test(q) for test in awaiting.values())]
    assert not unexpected, f"{level}: storage calls of one-user paths without a user_id equality:\n" + "\n".join(
        sorted({str(q) for q in unexpected})
    )
    fixed = [reason for reason, test in awaiting.items() if not any(test(q) for q in unscoped)]
    assert not fixed, f"{level}: fixed, remove from AWAITING_OWNER: {fixed}"


async def _run(settings_factory: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Recorder, bool, set[str]]:
    recorder = Recorder()
    record_interface(monkeypatch, recorder)
    settings = settings_factory(
        snapshot_every=3,
        bucket_max_track_ids=100,
        recent_events_cap=5,
        recent_snapshots_cap=2,
        export_part_bytes=10_000,
    )
    async with connected(settings) as inner:
        listed = {tool.name for tool in (await inner.client.list_tools()).tools}
        driver = record_driver(inner.service, recorder)
        call = RecordingCaller(inner, recorder)
        with recorder.during("scenario"):
            await _profile_and_events(call)
            await _playlists(call)
            await _reads(call, inner.service)
            await _export_delete_import(call, recorder, inner.service)
        untouched = {t for t in listed if not t.startswith("ops_")} - call.tools
        assert not untouched, f"one-user tools the scenario does not drive (add them): {sorted(untouched)}"
    # A restart: the recovery sweep and the search index rebuild, recorded as start-up.
    async with connected(settings):
        pass
    return recorder, driver, listed


async def test_every_one_user_call_filters_by_user_id_at_the_storage_interface(
    settings_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder, _, _ = await _run(settings_factory, monkeypatch)
    queries = recorder.at("interface")
    calls = [q for q in queries if q.phase not in ("startup", "scenario", *EXEMPT_PHASES)]
    print("\nstorage interface, one-user calls:\n" + _summary(calls))
    touched = {q.collection for q in calls}
    assert touched >= {
        "profiles",
        "preference_events",
        "playlists",
        "playlist_history",
        "idempotency",
        "listing_cursors",
        "audit_log",
        "user_stats",
    }, touched
    assert {q.method for q in calls} >= INTERFACE_METHODS - NOT_IN_ONE_USER_CALLS
    _assert_scoped("interface", queries)
    assert all(q.phase != "scenario" for q in queries), "a storage call outside any tool call"
    startup = {q.site for q in queries if q.phase == "startup" and not q.scoped}
    assert startup <= set(EXEMPT_AT_STARTUP), f"start-up queries without user_id not listed as exempt: {startup}"


async def test_every_one_user_call_filters_by_user_id_at_the_driver(
    settings_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder, driver, _ = await _run(settings_factory, monkeypatch)
    if not driver:
        pytest.skip("the storage layer does not expose its driver collection; the interface test covers it")
    calls = [q for q in recorder.at("driver") if q.phase not in EXEMPT_PHASES]
    print("\ndriver, one-user calls:\n" + _summary(calls))
    _assert_scoped("driver", calls)
