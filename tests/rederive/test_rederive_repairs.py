"""``memory-service rederive`` on a damaged store: each kind of damage, made directly in the
Database the way an operator's edit or a lost write would, is reported exactly; ``--dry-run``
writes nothing; a run without it repairs, so a second run reports no difference. And the
in-process indexes, which only a running service holds, are compared and dropped when they differ."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from host.running import ServiceHolder, running_service
from service.ledger.keys import head_id
from service.memories.keys import memory_key
from service.settings import Settings
from tests.support import connected, playlist, track
from tests.support.server_process import run_cli

pytestmark = pytest.mark.slow  # subprocesses (the CLI)

USER, QUIET = 1, 2
KEPT, BROKEN, DELETED, ORPHAN = playlist(1), playlist(2), playlist(3), playlist(9)


def rederive(settings: Settings, tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    done = run_cli(["rederive", "--json", *args], settings, cwd=tmp_path)
    assert done.returncode in (0, 3), done.stderr
    return done, json.loads(done.stdout)


async def build_store(settings: Settings) -> dict[str, str]:
    """A user with every derived view (playlists, opinions, a profile, memories) and a quiet one."""
    async with connected(settings) as call:
        await call.ok(
            "memory_update_profile", {"user_id": USER, "patch": {"genres": ["metal"]}, "create_if_missing": True}
        )
        await call.ok("memory_update_profile", {"user_id": USER, "patch": {"avoid": ["polka"]}})
        liked = await call.ok(
            "memory_append_preference_event", {"user_id": USER, "type": "like", "payload": {"artist": "The Beatles"}}
        )
        disliked = await call.ok(
            "memory_append_preference_event", {"user_id": USER, "type": "dislike", "payload": {"artist": "beatles"}}
        )
        rule = await call.ok(
            "memory_append_preference_event",
            {"user_id": USER, "type": "rule", "payload": {"raw_text": "no more than 2 per artist"}},
        )
        for pid in (KEPT, BROKEN, DELETED):
            await call.ok(
                "memory_log_playlist_create",
                {"user_id": USER, "playlist_id": pid, "name": f"mix {pid}", "track_ids": [track(1), track(2)]},
            )
            for n in range(12):  # past a snapshot: the head's bookkeeping spans two buckets' worth
                await call.ok(
                    "memory_log_playlist_mutation",
                    {
                        "user_id": USER,
                        "playlist_id": pid,
                        "type": "ADD_TRACKS",
                        "payload": {"track_ids": [track(10 + n)]},
                    },
                )
        await call.ok(
            "memory_add",
            {"user_id": QUIET, "type": "insight", "entities": ["Zebra"], "summary": "Loves zebras", "importance": 9},
        )
    return {"liked": liked["event_id"], "disliked": disliked["event_id"], "rule": rule["event_id"]}


async def damage(settings: Settings, ids: dict[str, str]) -> None:
    async with running_service(settings, ServiceHolder(), recover=False) as service:
        db = service.database
        await db.user_stats.update_one({"_id": USER, "user_id": USER}, {"$set": {"preference_event_count": 99}})
        head = await db.playlists.find_one({"_id": head_id(USER, BROKEN), "user_id": USER})
        await db.playlists.update_one(
            {"_id": head["_id"], "user_id": USER},
            {"$set": {"track_ids": head["track_ids"][:-1], "seq": head["seq"] - 3}},
        )
        lost = await db.playlists.find_one({"_id": head_id(USER, DELETED), "user_id": USER})
        await db.playlists.delete_many({"_id": lost["_id"], "user_id": USER})
        await db.playlists.insert_one({**lost, "_id": head_id(USER, ORPHAN), "playlist_id": ORPHAN})
        await db.preference_events.update_one({"_id": ids["liked"], "user_id": USER}, {"$unset": {"superseded_by": ""}})
        await db.preference_events.update_one(
            {"_id": ids["rule"], "user_id": USER}, {"$set": {"superseded_by": ids["disliked"]}}
        )
        await db.profiles.update_one({"_id": USER, "user_id": USER}, {"$set": {"profile.sneaky": "edited by hand"}})


async def stored_state(settings: Settings) -> dict[str, Any]:
    async with running_service(settings, ServiceHolder(), recover=False) as service:
        db = service.database
        return {
            name: sorted((await getattr(db, name).find({}, {"touched_ns": 0})), key=lambda d: str(d["_id"]))
            for name in ("playlists", "preference_events", "profiles", "user_stats")
        }


def summary(report: dict[str, Any]) -> list[tuple[int, str, str, list[str], str]]:
    return sorted(
        (row["user_id"], d["view"], d["key"], d["fields"], d["detail"].split(":")[0])
        for row in report["users"]
        for d in row["differences"]
    )


async def test_each_damage_is_reported_dry_run_writes_nothing_and_a_repair_holds(
    settings: Settings, tmp_path: Path
) -> None:
    ids = await build_store(settings)
    clean, report = rederive(settings, tmp_path)
    assert clean.returncode == 0 and report["differences"] == 0, report
    assert "no difference: 2 users checked" in clean.stderr

    await damage(settings, ids)
    before = await stored_state(settings)
    expected = [
        (USER, "counters", str(USER), ["preference_event_count"], "counters differ from the records"),
        (USER, "playlist_head", BROKEN, ["track_ids", "seq"], "differs from its history"),
        (USER, "playlist_head", DELETED, [], "missing_head"),
        (USER, "playlist_head", ORPHAN, [], "orphan_head"),
        (USER, "profile", str(USER), ["profile"], "the stored profile is not what its history patches give"),
        (USER, "supersession", ids["liked"], ["superseded_by"], "mark set"),
        (USER, "supersession", ids["rule"], ["superseded_by"], "mark removed"),
    ]
    dry, report = rederive(settings, tmp_path, "--dry-run")
    assert dry.returncode == 3 and summary(report) == sorted(expected), summary(report)
    assert report["dry_run"] and not report["repaired"] and "dry run, nothing repaired" in dry.stderr
    found = {(d["view"], d["key"]): d for d in report["users"][0]["differences"]}
    assert found[("profile", str(USER))]["paths"] == ["/sneaky"]
    assert found[("supersession", ids["liked"])]["derived"] == ids["disliked"]
    assert found[("counters", str(USER))]["stored"] == {"preference_event_count": 99}
    assert found[("counters", str(USER))]["derived"] == {"preference_event_count": 3}
    assert await stored_state(settings) == before  # the dry run wrote nothing

    repair, report = rederive(settings, tmp_path)
    assert repair.returncode == 3 and summary(report) == sorted(expected) and report["repaired"]
    assert "7 differences in 1 of 2 users (repaired)" in repair.stderr
    again, report = rederive(settings, tmp_path)
    assert again.returncode == 0 and report["differences"] == 0, summary(report)

    # The repaired store reads as the records say.
    async with connected(settings) as call:
        rebuilt = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": BROKEN})
        head = await call.service.database.playlists.find_one({"_id": head_id(USER, BROKEN), "user_id": USER})
        assert head["track_ids"] == rebuilt["track_ids"] and len(rebuilt["track_ids"]) == 14
        await call.error("memory_get_playlist", {"user_id": USER, "playlist_id": ORPHAN}, "NOT_FOUND")
        profile = await call.ok("memory_get_profile", {"user_id": USER})
        assert profile["profile"] == {"genres": ["metal"], "avoid": ["polka"]} and profile["version"] == 2


async def test_the_table_and_one_user(settings: Settings, tmp_path: Path) -> None:
    ids = await build_store(settings)
    await damage(settings, ids)
    done = run_cli(["rederive", "--user-id", str(QUIET)], settings, cwd=tmp_path)
    assert done.returncode == 0 and "no difference: 1 users checked" in done.stderr, done.stderr
    done = run_cli(["rederive", "--user-id", str(USER), "--dry-run"], settings, cwd=tmp_path, env={"COLUMNS": "200"})
    assert done.returncode == 3, done.stderr
    for text in ("playlist_head", "orphan_head", "supersession", "counters", "profile", BROKEN):
        assert text in done.stdout, done.stdout


async def test_a_capped_history_is_reported_as_not_checkable(settings_factory: Any, tmp_path: Path) -> None:
    settings = settings_factory(profile_history_cap=2)
    async with connected(settings) as call:
        for n in range(3):
            await call.ok("memory_update_profile", {"user_id": USER, "patch": {"n": n}, "create_if_missing": True})
    done, report = rederive(settings, tmp_path)
    assert done.returncode == 0 and report["users"][0]["checked"]["profile"] == "not_replayed"
    assert [n["reason"] for n in report["users"][0]["not_checked"]] == ["history_capped"]
    assert "not checked: user 1 profile: history_capped" in done.stderr


async def test_held_indexes_are_compared_with_the_store_and_dropped_when_they_differ(
    settings: Settings, backend: str
) -> None:
    async with connected(settings) as call:
        service = call.service
        kept = await call.ok(
            "memory_append_preference_event",
            {"user_id": USER, "type": "note", "payload": {"raw_text": "zebra crossing"}},
        )
        added = await call.ok(
            "memory_add",
            {"user_id": USER, "type": "insight", "entities": ["Zebra"], "summary": "Loves zebras", "importance": 9},
        )
        await call.ok("memory_search", {"user_id": USER, "query": "zebra"})  # builds the search index
        await call.ok("memory_query", {"user_id": USER, "entity": "zebra"})  # and the memories' copy
        report = await service.rederiver.rederive(USER)
        checked = report["users"][0]["checked"]
        if backend == "mongodb":
            assert (checked["search_index"], checked["memory_index"]) == ("server_maintained", "read_per_call")
            return
        assert (checked["search_index"], checked["memory_index"], report["differences"]) == ("compared", "compared", 0)

        # Behind the service's back: an event gone, a memory rewritten.
        db = service.database
        await db.preference_events.delete_many({"_id": kept["event_id"], "user_id": USER})
        await db.memories.update_one(
            {"_id": memory_key(USER, added["memory_id"]), "user_id": USER}, {"$set": {"summary": "Fears horses"}}
        )
        report = await service.rederiver.rederive(USER, dry_run=True)
        assert summary(report) == sorted(
            [
                (USER, "counters", str(USER), ["preference_event_count"], "counters differ from the records"),
                (USER, "memory_index", added["memory_id"], ["summary", "terms"], "kept differently from the store"),
                (
                    USER,
                    "search_index",
                    f"memory:{added['memory_id']}",
                    ["terms", "text", "meaning"],
                    "indexed differently from the store",
                ),
                (USER, "search_index", f"preference_event:{kept['event_id']}", [], "indexed, but not in the store"),
            ]
        ), summary(report)
        assert service.memories.kept_index(USER) is not None  # a dry run drops nothing

        assert (await service.rederiver.rederive(USER))["differences"] == 4
        again = await service.rederiver.rederive(USER)
        assert again["differences"] == 0
        assert (again["users"][0]["checked"]["search_index"], again["users"][0]["checked"]["memory_index"]) == (
            "not_held",
            "not_held",
        )  # dropped: the next use builds them from the records
        hits = (await call.ok("memory_search", {"user_id": USER, "query": "horses"}))["results"]
        assert [h["id"] for h in hits] == [added["memory_id"]]
