"""scripts/mongosh/audit_tail.js against the audit entries the service wrote (mongosh_support.py).

It prints the most recent entries oldest first, one line each, narrowed to a user or a user's
playlist; with ``follow = true`` it keeps printing new ones, from a change stream on a replica set
and by polling every second on a standalone server (where ``watch`` fails).
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.host.mongosh.mongosh_support import (
    DELETED_USER,
    NODE,
    OTHER_USER,
    PLAYLIST_A,
    PLAYLIST_B,
    USER,
    run_mongosh,
    write_fixtures,
)

pytestmark = pytest.mark.skipif(not NODE, reason="runs the script under node")

ROW = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\s")


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _fields(entry: dict[str, Any]) -> tuple[str, ...]:
    """What a line shows of an entry: time, principal, tool, operation, collection, user,
    playlist, request id ("-" for none)."""
    shown = [
        entry["principal"],
        entry["tool"],
        entry["operation"],
        entry["collection"],
        entry["user_id"],
        entry["playlist_id"],
        entry["request_id"],
    ]
    return (_iso(entry["time"]), *("-" if v in (None, "") else str(v) for v in shown))


def _rows(out: str) -> list[tuple[str, ...]]:
    return [tuple(line.split()[:8]) for line in out.splitlines() if ROW.match(line)]


def _entries(stored: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(stored["collections"]["audit_log"], key=lambda e: (e["time"], e["_id"]))


def _entry(like: dict[str, Any], moment: datetime, **changes: Any) -> dict[str, Any]:
    return {
        **like,
        "_id": uuid.uuid4().hex,
        "time": moment,
        "request_id": uuid.uuid4().hex,
        "principal": "0123456789ab",
        "via": "change_stream",
        **changes,
    }


@pytest.mark.parametrize(
    ("evaluated", "user", "playlist", "limit"),
    [
        (None, None, None, 20),
        (f"const userId = {USER}", USER, None, 20),
        (f"const userId = {USER}, limit = 5", USER, None, 5),
        (f'const userId = {USER}, playlistId = "{PLAYLIST_A}", limit = 4', USER, PLAYLIST_A, 4),
        (f'const userId = {USER}, playlistId = "{PLAYLIST_B}"', USER, PLAYLIST_B, 20),
        (f"const userId = {OTHER_USER}", OTHER_USER, None, 20),
        ("const limit = 3", None, None, 3),
    ],
)
def test_audit_tail_prints_the_most_recent_entries_oldest_first(
    stored: dict[str, Any], evaluated: str | None, user: int | None, playlist: str | None, limit: int
) -> None:
    done = run_mongosh(stored, "audit_tail.js", evaluated)
    assert done.returncode == 0, done.stdout + done.stderr
    wanted = [
        e
        for e in _entries(stored)
        if (user is None or e["user_id"] == user) and (playlist is None or e["playlist_id"] == playlist)
    ]
    assert wanted, "the fixture should hold entries for this filter"
    assert _rows(done.stdout) == [_fields(e) for e in wanted[-limit:]]
    assert ("most recent, oldest first" in done.stdout) == (len(wanted) >= limit)
    assert "watch" not in done.stderr and "sleep" not in done.stderr, "without follow it reads once and ends"
    scope = ("all users" if user is None else f"user {user}") + (f", playlist {playlist}" if playlist else "")
    assert f"audit log of {scope} (database taste_memory)" in done.stdout


def test_audit_tail_shows_who_wrote_each_change_and_a_deleted_user_once(stored: dict[str, Any]) -> None:
    done = run_mongosh(stored, "audit_tail.js", f"const userId = {USER}, limit = 100")
    rows = _rows(done.stdout)
    tools = [row[2] for row in rows]
    assert tools[0] == "memory.update_profile" and tools.count("memory.append_preference_event") == 2
    assert tools.count("memory.log_playlist_mutation") == 11 and tools.count("memory.log_playlist_create") == 2
    assert {row[1] for row in rows} == {"local"}  # the in-process client: the machine's own user
    assert all(len(row[7]) == 32 for row in rows), "every entry names its request"
    done = run_mongosh(stored, "audit_tail.js", f"const userId = {DELETED_USER}")
    rows = _rows(done.stdout)
    assert len(rows) == 1 and rows[0][2:6] == ("memory.delete_user_data", "delete_user_data", "-", str(DELETED_USER))
    done = run_mongosh(stored, "audit_tail.js", "const userId = 99")
    assert done.returncode == 0 and "no audit entries for user 99" in done.stdout and not _rows(done.stdout)


def test_audit_tail_defaults_to_twenty_and_marks_backfilled_entries(stored: dict[str, Any]) -> None:
    base = _entries(stored)[-1]
    start = base["time"] + timedelta(seconds=1)
    extra = [
        _entry(base, start + timedelta(seconds=i), via="backfill" if i == 29 else "change_stream") for i in range(30)
    ]
    collections = {**stored["collections"], "audit_log": stored["collections"]["audit_log"] + extra}
    fixtures = write_fixtures(stored["folder"] / "many.json", "taste_memory", collections)
    done = run_mongosh(stored, "audit_tail.js", None, fixtures)
    assert _rows(done.stdout) == [_fields(e) for e in extra[-20:]]
    assert "(the 20 most recent, oldest first; more with 'const limit = 100')" in done.stdout
    last = [line for line in done.stdout.splitlines() if ROW.match(line)][-1]
    assert last.endswith("  (backfill)")


def _follow(
    stored: dict[str, Any], name: str, evaluated: str, later: list[list[dict[str, Any]]], **extra: Any
) -> tuple[str, list[tuple[str, ...]], list[Any]]:
    fixtures = write_fixtures(stored["folder"] / name, "taste_memory", stored["collections"], later=later, **extra)
    done = run_mongosh(stored, "audit_tail.js", evaluated, fixtures)
    assert done.returncode == 0, done.stdout + done.stderr
    watched = [json.loads(line.split(" ", 2)[2]) for line in done.stderr.splitlines() if line.startswith("watch ")]
    return done.stdout, _rows(done.stdout), watched


def test_audit_tail_follows_a_change_stream_on_a_replica_set(stored: dict[str, Any]) -> None:
    entries = _entries(stored)
    mine = next(e for e in entries if e["user_id"] == USER and e["playlist_id"] == PLAYLIST_A)
    theirs = next(e for e in entries if e["user_id"] == OTHER_USER)
    now = entries[-1]["time"] + timedelta(seconds=1)
    first = _entry(mine, now)  # written while the stream opened: in the tail and in the stream
    other_playlist = _entry(mine, now + timedelta(seconds=1), playlist_id=PLAYLIST_B)
    other_user = _entry(theirs, now + timedelta(seconds=2))
    second = _entry(mine, now + timedelta(seconds=3), operation="update")
    evaluated = f'const userId = {USER}, playlistId = "{PLAYLIST_A}", limit = 2, follow = true'
    out, rows, watched = _follow(
        stored,
        "stream.json",
        evaluated,
        [[first, other_playlist, other_user, second]],
        replicaSet=True,
        writtenWhileOpening=1,
    )
    # The stream watches inserts into audit_log of this user's playlist, waiting a second at most.
    assert watched == [
        [
            [
                {
                    "$match": {
                        "operationType": "insert",
                        "fullDocument.user_id": USER,
                        "fullDocument.playlist_id": PLAYLIST_A,
                    }
                }
            ],
            {"maxAwaitTimeMS": 1000},
        ]
    ]
    tail = [*[e for e in entries if e["user_id"] == USER and e["playlist_id"] == PLAYLIST_A][-1:], first]
    assert rows == [_fields(e) for e in [*tail, second]], out  # each once, oldest first
    lines = out.splitlines()
    assert lines.index("-- following new entries (change stream), Ctrl-C to stop") < next(
        i for i, line in enumerate(lines) if second["request_id"] in line
    )
    assert "polling" not in out


def test_audit_tail_polls_on_from_the_last_entry_shown_when_the_stream_fails(stored: dict[str, Any]) -> None:
    entries = _entries(stored)
    mine = next(e for e in entries if e["user_id"] == USER)
    now = entries[-1]["time"] + timedelta(seconds=1)
    shown, during, after = (_entry(mine, now + timedelta(seconds=i)) for i in range(3))
    out, rows, _ = _follow(
        stored,
        "broken.json",
        f"const userId = {USER}, limit = 1, follow = true",
        [[shown, during, after]],
        replicaSet=True,
        streamFailsAfter=1,
    )
    assert "note: the change stream failed (Executor error during getMore" in out
    tail = [e for e in entries if e["user_id"] == USER][-1:]
    assert rows == [_fields(e) for e in [*tail, shown, during, after]], out


def test_audit_tail_polls_every_second_on_a_standalone_server(stored: dict[str, Any]) -> None:
    entries = _entries(stored)
    mine = next(e for e in entries if e["user_id"] == USER)
    theirs = next(e for e in entries if e["user_id"] == OTHER_USER)
    now = entries[-1]["time"] + timedelta(seconds=30)
    fresh = _entry(mine, now)
    other_user = _entry(theirs, now + timedelta(seconds=1))
    late = _entry(mine, now - timedelta(seconds=5))  # the watcher lagged: written after `fresh`, timed before
    too_late = _entry(mine, now - timedelta(minutes=5))  # a backfill: only a change stream shows it
    newer = _entry(mine, now + timedelta(seconds=2), operation="update")
    out, rows, watched = _follow(
        stored,
        "standalone.json",
        f"const userId = {USER}, limit = 2, follow = true",
        [[fresh], [other_user], [late], [too_late], [], [newer]],
    )
    assert watched and watched[0][0] == [{"$match": {"operationType": "insert", "fullDocument.user_id": USER}}]
    assert "note: cannot watch audit_log (The $changeStream stage is only supported on replica sets)" in out
    assert "-- following new entries (polling every second), Ctrl-C to stop" in out
    tail = [e for e in entries if e["user_id"] == USER][-2:]
    assert rows == [_fields(e) for e in [*tail, fresh, late, newer]], out  # each once, in the order written


def test_audit_tail_polls_from_the_newest_entry_when_limit_is_zero(stored: dict[str, Any]) -> None:
    entries = _entries(stored)
    now = entries[-1]["time"]
    fresh = _entry(entries[-1], now + timedelta(milliseconds=1))
    out, rows, _ = _follow(stored, "zero.json", "const limit = 0, follow = true", [[fresh]])
    assert rows == [_fields(fresh)], out  # nothing already stored, only what came after
