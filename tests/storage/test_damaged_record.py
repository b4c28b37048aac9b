"""One user's record damaged on disk: found, contained to that user, named, salvaged.

Bytes are changed inside one stored row's body (SQLite's pages stay sound: its integrity check
passes), as a bad sector or a stray write would. The server starts and serves every other user;
that user's calls answer ``DB_ERROR`` ``user_quarantined``; ``verify`` exits 3 naming the user and
the record; ``salvage`` says exactly what was lost (the events of the damaged history bucket and
those after it), and the user is served again at the last intact event. Embedded-only by nature.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.support import playlist
from tests.support.backends import make_settings
from tests.support.mcp_sessions import WireCaller, sse_session
from tests.support.server_process import http_get, run_cli, running_server

pytestmark = pytest.mark.slow

SOUND, DAMAGED = 1, 2
PID = playlist(77)


async def build_users(call: WireCaller) -> list[list[str]]:
    """Both users get notes and a playlist whose history spans several buckets; the damaged
    user's playlist states after each event (index = sequence number) are returned."""
    states: list[list[str]] = []
    for user in (SOUND, DAMAGED):
        tracks = [f"{user}dmgseed{i:012d}" for i in range(40)]
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": user, "playlist_id": PID, "name": "long list", "description": "", "track_ids": tracks},
        )
        if user == DAMAGED:
            states.append(list(tracks))
        for n in range(32):
            added = [f"{user}dmg{n:03d}trk{i:06d}" for i in range(8)]
            await call.ok(
                "memory_log_playlist_mutation",
                {"user_id": user, "playlist_id": PID, "type": "ADD_TRACKS", "payload": {"track_ids": added}},
            )
            tracks = tracks + added
            if user == DAMAGED:  # the creation is event 0, each mutation the next
                states.append(list(tracks))
        for n in range(3):
            await call.ok(
                "memory_append_preference_event",
                {"user_id": user, "type": "note", "source": "user", "payload": {"raw_text": f"note {n}"}},
            )
    return states


def damage_a_middle_bucket(store: Path) -> tuple[str, int]:
    """Change 40 bytes inside one row of a middle history bucket of the damaged user's playlist;
    return the bucket's key and its first sequence number."""
    db = sqlite3.connect(store)
    keys = [
        k
        for (k,) in db.execute(
            "SELECT DISTINCT doc_key FROM fields WHERE collection = 'playlist_history' AND user_id = ? ORDER BY doc_key",
            (DAMAGED,),
        )
    ]
    assert len(keys) >= 3, f"the history should span several buckets: {keys}"
    key = keys[len(keys) // 2]
    field, body = db.execute(
        "SELECT field, body FROM fields WHERE collection = 'playlist_history' AND doc_key = ? ORDER BY length(body) DESC",
        (key,),
    ).fetchone()
    changed = bytearray(body)
    middle = len(changed) // 2
    changed[middle : middle + 40] = bytes(b ^ 0x5A for b in changed[middle : middle + 40])
    db.execute(
        "UPDATE fields SET body = ? WHERE collection = 'playlist_history' AND doc_key = ? AND field = ?",
        (bytes(changed), key, field),
    )
    db.commit()
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"  # SQLite itself sees nothing
    db.close()
    return json.loads(key), int(json.loads(key).rsplit(":", 1)[1])


def cli_json(args: list[str], settings: Any, cwd: Path, expected: int) -> dict[str, Any]:
    done = run_cli([*args, "--json"], settings, cwd=cwd)
    assert done.returncode == expected, (done.returncode, done.stdout, done.stderr)
    report: dict[str, Any] = json.loads(done.stdout)
    return report


async def test_a_damaged_record_quarantines_its_user_only_until_salvaged(tmp_path: Path) -> None:
    settings = make_settings("embedded", tmp_path / "data", bucket_max_track_ids=100)
    work = tmp_path / "work"
    with running_server(settings, work) as server:
        async with sse_session(server) as call:
            states = await build_users(call)
            sound_before = await call.export(SOUND)
        server.stop()
    bucket_key, base_seq = damage_a_middle_bucket(settings.data_dir / "memory.sqlite3")

    with running_server(settings, work) as server:
        status, body = http_get(f"{server.base_url}/readyz")
        assert (status, body["status"], body["quarantined_users"]) == (200, "ready", 1), body
        async with sse_session(server) as call:
            sound_now = await call.export(SOUND)
            assert sound_now == {**sound_before, "as_of": sound_now["as_of"]}
            await call.ok(
                "memory_append_preference_event",
                {"user_id": SOUND, "type": "note", "source": "user", "payload": {"raw_text": "still served"}},
            )
            for tool, arguments in (
                ("memory_get_playlist", {"user_id": DAMAGED, "playlist_id": PID}),
                ("memory_get_profile", {"user_id": DAMAGED}),
                (
                    "memory_append_preference_event",
                    {"user_id": DAMAGED, "type": "note", "source": "user", "payload": {}},
                ),
            ):
                error = (await call(tool, arguments))["error"]
                assert (error["code"], error["details"]["reason"]) == ("DB_ERROR", "user_quarantined"), error
                assert "salvage" in error["message"]
        server.stop()
        log = server.stderr_text()
        assert f"user {DAMAGED}" in log and bucket_key in log, "start-up must name the user and the record"

    found = cli_json(["verify"], settings, work, expected=3)
    assert [(d["user_id"], d["record"]) for d in found["damaged"]] == [
        (DAMAGED, f"playlist_history/{json.dumps(bucket_key)}")
    ]
    assert found["integrity"] == "ok" and found["quarantined_users"] == [DAMAGED]

    salvaged = cli_json(["salvage", "--user-id", str(DAMAGED)], settings, work, expected=0)
    last = len(states) - 1
    assert [loss["what"] for loss in salvaged["lost"]] == [
        f"events {base_seq}–{last} of playlist {PID}; it stands at event {base_seq - 1}"
    ]
    assert cli_json(["verify"], settings, work, expected=0)["clean"] is True

    with running_server(settings, work) as server:
        async with sse_session(server) as call:
            rebuilt = await call.ok("memory_reconstruct_playlist", {"user_id": DAMAGED, "playlist_id": PID})
            assert rebuilt["track_ids"] == states[base_seq - 1]
            head = await call.ok("memory_get_playlist", {"user_id": DAMAGED, "playlist_id": PID})
            mentioned = {t for e in head["recent_events"] for t in e["payload"].get("track_ids", [])}
            assert mentioned and mentioned <= set(states[base_seq - 1]), "events past the damage are gone"
            notes = await call.export(DAMAGED)
            assert len(notes["preference_events"]) == 3  # the records that were sound are all there
            await call.ok(
                "memory_log_playlist_mutation",
                {
                    "user_id": DAMAGED,
                    "playlist_id": PID,
                    "type": "ADD_TRACKS",
                    "payload": {"track_ids": ["2dmgfresh0000000001"]},
                },
            )
        server.stop()
