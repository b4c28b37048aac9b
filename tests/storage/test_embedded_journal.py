"""The embedded store's journal keeps large documents field by field and small ones whole: a
restart must bring back exactly what was answered, whichever way each document was written,
and a data directory written by the one-row-per-document journal must still open."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import bson

from service.settings import Settings
from service.storage.embedded.journal import SPLIT_ABOVE_ITEMS
from tests.support import connected, playlist, track

BIG = SPLIT_ABOVE_ITEMS * 4  # kept field by field


def rows_of(data_dir: Path, collection: str) -> list[tuple[str, str]]:
    with sqlite3.connect(data_dir / "memory.sqlite3") as db:
        return db.execute("SELECT doc_key, field FROM fields WHERE collection = ?", (collection,)).fetchall()


async def test_large_and_small_documents_come_back_exactly_after_restart(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", snapshot_every=5)
    expected: dict[str, list[str]] = {}
    async with connected(settings) as call:
        for n, size in enumerate((3, BIG, BIG + 7)):
            pid = playlist(n)
            tracks = [track(n * 100_000 + i) for i in range(size)]
            await call.ok(
                "memory_log_playlist_create", {"user_id": 1, "playlist_id": pid, "name": f"p{n}", "track_ids": tracks}
            )
            for step in range(12):  # crosses two snapshots: buckets opened and sealed
                added = [track(n * 100_000 + 50_000 + step)]
                await call.ok(
                    "memory_log_playlist_mutation",
                    {
                        "user_id": 1,
                        "playlist_id": pid,
                        "type": "ADD_TRACKS",
                        "payload": {"track_ids": added, "insert_at": step},
                    },
                )
                tracks = tracks[:step] + added + tracks[step:]
                if step % 5 == 4:
                    await call.ok(
                        "memory_log_playlist_mutation",
                        {"user_id": 1, "playlist_id": pid, "type": "UPDATE_META", "payload": {"name": f"p{n} v{step}"}},
                    )
            expected[pid] = tracks
        await call.ok("memory_update_profile", {"user_id": 1, "patch": {"genres": ["folk"]}, "source": "user"})
        exported = await call.service.transfer.export_all(1)
    split = {key for key, field in rows_of(settings.data_dir, "playlists") if field}
    whole = {key for key, field in rows_of(settings.data_dir, "playlists") if not field}
    assert json.dumps(f"1:{playlist(1)}") in split and json.dumps(f"1:{playlist(0)}") in whole

    async with connected(settings) as call:
        for pid, tracks in expected.items():
            rebuilt = await call.ok("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": pid})
            assert rebuilt["track_ids"] == tracks
            shown = await call.ok("memory_get_playlist", {"user_id": 1, "playlist_id": pid})
            assert shown["playlist"]["name"] == f"p{pid[-1]} v9"
        again = await call.service.transfer.export_all(1)
    assert {k: v for k, v in again.items() if k != "as_of"} == {k: v for k, v in exported.items() if k != "as_of"}


async def test_a_playlist_growing_past_the_split_size_and_shrinking_back_survives_restarts(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    tracks = [track(i) for i in range(BIG)]
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 2, "playlist_id": playlist(1), "name": "small", "track_ids": tracks[:3]},
        )
    assert {field for _, field in rows_of(settings.data_dir, "playlists")} == {""}  # one row
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_mutation",
            {"user_id": 2, "playlist_id": playlist(1), "type": "ADD_TRACKS", "payload": {"track_ids": tracks[3:]}},
        )
    assert "" not in {field for _, field in rows_of(settings.data_dir, "playlists")}  # now field rows
    async with connected(settings) as call:
        rebuilt = await call.ok("memory_reconstruct_playlist", {"user_id": 2, "playlist_id": playlist(1)})
        assert rebuilt["track_ids"] == tracks
        await call.ok(
            "memory_log_playlist_mutation",
            {"user_id": 2, "playlist_id": playlist(1), "type": "REMOVE_TRACKS", "payload": {"track_ids": tracks[3:]}},
        )
    async with connected(settings) as call:
        rebuilt = await call.ok("memory_reconstruct_playlist", {"user_id": 2, "playlist_id": playlist(1)})
        assert rebuilt["track_ids"] == tracks[:3]
        listed = await call.ok("memory_get_playlists", {"user_id": 2})
        assert listed["items"][0]["track_count"] == 3


async def test_a_journal_of_whole_documents_is_converted_on_open(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": 3, "patch": {"mood": "calm"}, "source": "user"})
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": 3, "playlist_id": playlist(3), "name": "old", "track_ids": [track(i) for i in range(BIG)]},
        )
        before = await call.service.transfer.export_all(3)
    # Rewrite the file as the previous journal format had it: one BSON row per document.
    path = settings.data_dir / "memory.sqlite3"
    async with connected(settings) as call:
        documents = {c.name: await c.find({}) for c in call.service.database.user_collections()}
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE fields")
        db.execute(
            "CREATE TABLE documents (collection TEXT NOT NULL, doc_key TEXT NOT NULL, body BLOB NOT NULL, "
            "PRIMARY KEY (collection, doc_key)) WITHOUT ROWID"
        )
        db.executemany(
            "INSERT INTO documents VALUES (?, ?, ?)",
            [(name, json.dumps(doc["_id"]), bson.encode(doc)) for name, docs in documents.items() for doc in docs],
        )
    async with connected(settings) as call:
        after = await call.service.transfer.export_all(3)
        listed = await call.ok("ops_list_users", {})
    assert {k: v for k, v in after.items() if k != "as_of"} == {k: v for k, v in before.items() if k != "as_of"}
    assert [(u["user_id"], u["playlist_count"]) for u in listed["users"]] == [(3, 1)]
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT name FROM sqlite_master WHERE name = 'documents'").fetchone() is None
