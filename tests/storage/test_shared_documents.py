"""``find_one_shared`` hands out the embedded engine's stored document itself, not a copy: no
caller may change it. A guard keeps a deep copy of every document handed out and compares, before
each write (which may change it in place, legitimately) and at the end; a caller that changed one
fails the test. The scenario drives every tool whose path reads shared documents."""

from __future__ import annotations

import contextlib
import copy
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from service.settings import Settings
from service.storage.collection import TrackedCollection
from tests.support import connected, playlist, track

USER = 3
WRITES = ("insert_one", "update_one", "find_one_and_update", "replace_one", "delete_many")


def _changes(stored: Any, taken: Any, path: str = "") -> list[str]:
    """Where two documents differ, as paths (``events.3.payload``)."""
    if isinstance(stored, dict) and isinstance(taken, dict):
        keys = sorted(set(stored) | set(taken), key=str)
        return [c for k in keys for c in _changes(stored.get(k), taken.get(k), f"{path}.{k}")]
    if isinstance(stored, list) and isinstance(taken, list) and len(stored) == len(taken):
        return [c for i, (a, b) in enumerate(zip(stored, taken)) for c in _changes(a, b, f"{path}.{i}")]
    return [] if stored == taken else [path.lstrip(".")]


@contextlib.contextmanager
def guarded_shared_reads() -> Iterator[Counter[str]]:
    """Counts documents handed out per collection; at the end, raises AssertionError naming every
    change a caller made to one (a write's own changes are not counted)."""
    handed: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    seen: Counter[str] = Counter()
    changed: list[str] = []
    shared = TrackedCollection.find_one_shared
    originals = {name: getattr(TrackedCollection, name) for name in WRITES}

    def unchanged() -> None:
        for collection, stored, taken in handed:
            if stored != taken:
                changed.append(f"{collection} {stored.get('_id')}: {', '.join(_changes(stored, taken))}")

    async def find_one_shared(self: TrackedCollection, filter_: Any) -> Any:
        found = await shared(self, filter_)
        if found is not None:
            handed.append((self.name, found, copy.deepcopy(found)))
            seen[self.name] += 1
        return found

    depth = [0]  # a write can write too (the audit entry of a change is written inside it)

    def guarded(write: Any) -> Any:
        async def run(self: TrackedCollection, *args: Any, **kwargs: Any) -> Any:
            if not depth[0]:
                unchanged()
            depth[0] += 1
            try:
                return await write(self, *args, **kwargs)
            finally:  # the write may have changed a handed-out document in place: that is its job
                depth[0] -= 1
                if not depth[0]:
                    handed[:] = [(name, stored, copy.deepcopy(stored)) for name, stored, _ in handed]

        return run

    TrackedCollection.find_one_shared = find_one_shared  # type: ignore[method-assign]
    for name, write in originals.items():
        setattr(TrackedCollection, name, guarded(write))
    try:
        yield seen
        unchanged()
        assert not changed, "a caller changed a shared document it was handed:\n" + "\n".join(changed)
    finally:
        TrackedCollection.find_one_shared = shared  # type: ignore[method-assign]
        for name, write in originals.items():
            setattr(TrackedCollection, name, write)


async def test_no_caller_changes_a_shared_document(tmp_path: Any) -> None:
    settings = Settings(data_dir=tmp_path / "data", semantic_search="off", search_warmup=False, snapshot_every=3)
    pid, fork = playlist(1), playlist(2)
    with guarded_shared_reads() as seen:
        async with connected(settings) as call:
            created = await call.ok(
                "memory_log_playlist_create",
                {"user_id": USER, "playlist_id": pid, "name": "Shared", "track_ids": [track(n) for n in range(30)]},
            )
            for n in range(12):
                change = [
                    ("ADD_TRACKS", {"track_ids": [track(100 + n)], "insert_at": n}),
                    ("REMOVE_TRACKS", {"track_ids": [track(n)]}),
                    ("UPDATE_META", {"name": f"Shared {n}"}),
                ][n % 3]
                await call.ok(
                    "memory_log_playlist_mutation",
                    {"user_id": USER, "playlist_id": pid, "type": change[0], "payload": change[1]},
                )
            now = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": pid})
            await call.ok(
                "memory_log_playlist_mutation",
                {
                    "user_id": USER,
                    "playlist_id": pid,
                    "type": "REORDER",
                    "payload": {"track_ids": now["track_ids"][::-1]},
                },
            )
            for at in (created["created_at"], None):
                await call.ok(
                    "memory_reconstruct_playlist",
                    {"user_id": USER, "playlist_id": pid} | ({"at_time": at} if at else {}),
                )
            await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": pid, "include_tracks": True})
            await call.ok(
                "memory_diff_playlist", {"user_id": USER, "playlist_id": pid, "from_time": created["created_at"]}
            )
            await call.ok("memory_get_playlist_timeline", {"user_id": USER, "playlist_id": pid})
            undone = await call.ok("memory_undo_last_mutation", {"user_id": USER, "playlist_id": pid})
            await call.ok(
                "memory_undo_last_mutation", {"user_id": USER, "playlist_id": pid, "event_id": undone["event_id"]}
            )
            await call.ok(
                "memory_resync_playlist", {"user_id": USER, "playlist_id": pid, "track_ids": [track(7), track(8)]}
            )
            await call.ok("memory_fork_playlist", {"user_id": USER, "playlist_id": pid, "new_playlist_id": fork})
            await call.ok(
                "memory_check_playlist",
                {"user_id": USER, "track_ids": [track(7), track(8)], "rules": {"max_tracks_per_artist": 1}},
            )
            for day in range(1, 4):
                await call.ok(
                    "memory_log_plays",
                    {
                        "user_id": USER,
                        "plays": [
                            {
                                "artist": f"Artist {n}",
                                "track": f"Song {n}",
                                "track_id": track(n),
                                "played_at": f"2026-03-0{day}T1{n}:00:00Z",
                            }
                            for n in range(5)
                        ],
                    },
                )
            await call.ok(
                "memory_upsert_tracks",
                {
                    "user_id": USER,
                    "tracks": [
                        {"track_id": track(n), "name": f"Song {n}", "artists": [f"Artist {n}"]} for n in range(5)
                    ],
                },
            )
            await call.ok("memory_resolve_track", {"user_id": USER, "text": "song 3 by artist 3"})
            await call.ok("memory_open_followups", {"user_id": USER})
            await call.ok("memory_rotation_report", {"user_id": USER})
            await call.ok("memory_export_user_data", {"user_id": USER})
    assert seen["playlists"] and seen["playlist_history"] and seen["plays"], seen  # every shared path was taken


async def test_the_guard_fails_when_a_caller_changes_what_it_was_handed(tmp_path: Any) -> None:
    settings = Settings(data_dir=tmp_path / "data", semantic_search="off", search_warmup=False)
    with pytest.raises(AssertionError, match="changed a shared document"), guarded_shared_reads():
        async with connected(settings) as call:
            await call.ok(
                "memory_log_playlist_create",
                {"user_id": USER, "playlist_id": playlist(1), "name": "Shared", "track_ids": [track(1)]},
            )
            head = await call.service.database.playlists.find_one_shared({"user_id": USER})
            assert head is not None
            head["name"] = "changed behind the store's back"
            await call.ok(
                "memory_log_playlist_mutation",
                {"user_id": USER, "playlist_id": playlist(1), "type": "UPDATE_META", "payload": {"name": "next"}},
            )
