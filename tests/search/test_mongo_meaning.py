"""The real-server path of search by meaning: vectors held in process for the user, ``$text`` for
the words, and every hit found by meaning alone read again from the store (another process may
have deleted it). Driven with documents in the format MongoDB returns them, as test_mongo_text."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from service.memories.keys import memory_key
from service.search.engine import SearchEngine
from service.search.loading import _SOURCES
from service.tracks.catalog import track_key

WHEN = datetime(2025, 3, 1, tzinfo=UTC)
LULLABIES = {
    "_id": "1:pl01lullaby",
    "user_id": 1,
    "playlist_id": "pl01lullaby",
    "name": "Baby Lullabies",
    "intent_tags": ["lullaby", "bedtime"],
    "description": "Music box melodies to put the baby to sleep",
    "created_at": WHEN,
    "updated_at": WHEN,
}
WORKOUT = {
    "_id": "1:pl01workout",
    "user_id": 1,
    "playlist_id": "pl01workout",
    "name": "Power Metal Workout",
    "intent_tags": ["gym"],
    "description": "Double kick drums for the treadmill",
    "created_at": WHEN,
    "updated_at": WHEN,
}
THEIRS = {**LULLABIES, "_id": "2:pl01lullaby", "user_id": 2}
EVENT = {
    "_id": "4c1e0a3e-2b7c-4b53-9a53-0f5cbd7c1f0e",
    "user_id": 1,
    "type": "like",
    "source": "user",
    "payload": {"raw_text": "That saxophone solo gave me chills"},
    "timestamp": WHEN,
}
QUERY = "songs to help an infant doze off"


def _matches(document: dict[str, Any], filter_: dict[str, Any]) -> bool:
    for field, wanted in filter_.items():
        if isinstance(wanted, dict) and "$in" in wanted:
            if document.get(field) not in wanted["$in"]:
                return False
        elif document.get(field) != wanted:
            return False
    return True


class _Collection:
    """A store's collection as MongoDB answers: ``$text`` finds nothing here (the queries share
    no word with the documents), other filters select by equality and ``$in``."""

    def __init__(self, documents: list[dict[str, Any]]) -> None:
        self.documents, self.queries = documents, []

    async def find(self, filter_, projection=None, sort=None, limit=0):
        self.queries.append(filter_)
        if "$text" in filter_:
            return []
        return [dict(d) for d in self.documents if _matches(d, filter_)]

    async def find_one(self, filter_, projection=None, sort=None):
        found = await self.find(filter_)
        return found[0] if found else None


class _Database:
    engine = "mongodb"

    def __init__(self) -> None:
        self.playlists = _Collection([LULLABIES, WORKOUT, THEIRS])
        self.preference_events = _Collection([EVENT])
        self.tracks = _Collection([])
        self.memories = _Collection([])
        self.profiles = _Collection([])


async def test_a_hit_by_meaning_is_found_in_held_vectors_and_checked_against_the_store() -> None:
    db = _Database()
    engine = SearchEngine(db, semantic=True)  # type: ignore[arg-type]
    hits = await engine.search(1, QUERY, 10)
    assert hits and hits[0]["id"] == "pl01lullaby" and hits[0]["metadata"]["matched_by"] == "meaning"
    assert hits[0]["metadata"]["name"] == "Baby Lullabies"
    checked = [q for q in db.playlists.queries if "_id" in q]
    assert checked and all(q["user_id"] == 1 for q in checked)  # read again, for this user only
    assert await engine.search(3, QUERY, 10) == []  # a user with nothing holds no one's vectors

    # Another process renames the playlist: the held vector is the old text's, the answer is the
    # document as the store holds it now.
    db.playlists.documents[0] = {**LULLABIES, "name": "Quiet Time"}
    renamed = await engine.search(1, QUERY, 10)
    assert renamed[0]["id"] == "pl01lullaby" and renamed[0]["metadata"]["name"] == "Quiet Time"
    # …and deletes it: this process's vectors still hold it, the store does not.
    del db.playlists.documents[0]
    assert "pl01lullaby" not in {h["id"] for h in await engine.search(1, QUERY, 10)}


async def test_with_meaning_off_the_real_server_path_reads_no_vectors() -> None:
    db = _Database()
    engine = SearchEngine(db, semantic=False)  # type: ignore[arg-type]
    assert await engine.search(1, QUERY, 10) == []
    assert await engine.meaning(1, QUERY) is None


def test_stored_ids_of_re_read_entries_are_those_the_stores_write() -> None:
    assert _SOURCES["track"][1](7, "track0001") == track_key(7, "track0001")
    assert _SOURCES["memory"][1](7, "mem_0123456789abcdef01234567") == memory_key(7, "mem_0123456789abcdef01234567")
    assert _SOURCES["playlist"][1](7, "pl01") == "7:pl01"


async def test_held_vectors_are_rebuilt_once_old(monkeypatch) -> None:
    db = _Database()
    engine = SearchEngine(db, semantic=True)  # type: ignore[arg-type]
    await engine.search(1, QUERY, 10)
    # Another process adds a playlist: not in the held vectors until they are rebuilt.
    db.playlists.documents.append(
        {**LULLABIES, "_id": "1:pl01cradle", "playlist_id": "pl01cradle", "name": "Cradle Tunes"}
    )
    assert "pl01cradle" not in {h["id"] for h in await engine.search(1, QUERY, 10)}
    monkeypatch.setattr("service.search.engine.HELD_MAX_AGE_S", 0.0)
    assert "pl01cradle" in {h["id"] for h in await engine.search(1, QUERY, 10)}
