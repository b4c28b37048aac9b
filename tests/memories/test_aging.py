"""Aging of typed memories with a fixed now: every rule at its boundaries, the gist, the dry run,
idempotence, the records and the audit trail, a retry after an interrupted run, the CLI and the
server's periodic task."""

from __future__ import annotations

import asyncio
import itertools
import logging
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from service.app import ServiceHolder, background_work, running_service
from service.audit.origin import CallOrigin, acting_as, new_request_id
from service.errors import StorageUnavailable
from service.memories.aging import (RULE_GIST, RULE_REMOVE, age_memories, aging_periodically, first_sentence, gist,
                                    record_id)
from service.settings import Settings
from service.storage import Database
from service.timeutil import format_iso, utc_now
from tests.e2e.server_process import run_cli
from tests.memories.engines import stores_on_both_paths
from tests.support import Caller, connected

ALICE, BOB = 1, 2
NOW = utc_now() - timedelta(hours=1)  # the fixed "now" of every run here: every timestamp is in the past
DAY, MS = timedelta(days=1), timedelta(milliseconds=1)
_numbers = itertools.count(1)


async def add(call: Caller, importance: int, age: timedelta, user_id: int = ALICE, **fields: Any) -> str:
    n = next(_numbers)
    arguments = {"user_id": user_id, "type": "insight", "entities": [f"Artist {n}"],
                 "summary": f"Listener note {n} about a band. It goes on with detail.", "importance": importance,
                 "timestamp": format_iso(NOW - age), "skip_dedup": True, **fields}
    return (await call.ok("memory_add", arguments))["memory_id"]


async def boundary_cases(call: Caller, user_id: int = ALICE) -> dict[str, str]:
    """One memory per rule and boundary, named by what aging at NOW must do to it."""
    cases = {
        "keep 10, 3 years": (10, 1000 * DAY), "keep 8, 400 days": (8, 400 * DAY),
        "gist 7, 30 days + 1 ms": (7, 30 * DAY + MS), "keep 7, exactly 30 days": (7, 30 * DAY),
        "gist 5, 31 days": (5, 31 * DAY), "keep 5, exactly 30 days": (5, 30 * DAY), "keep 6, 1 day": (6, DAY),
        "drop 4, 60 days + 1 ms": (4, 60 * DAY + MS), "keep 4, exactly 60 days": (4, 60 * DAY),
        "keep 4, 45 days": (4, 45 * DAY), "drop 1, 61 days": (1, 61 * DAY),
    }
    return {name: await add(call, importance, age, user_id) for name, (importance, age) in cases.items()}


async def snapshot(db: Database) -> dict[str, list[dict[str, Any]]]:
    names = ("memories", "memory_aging", "audit_log", "user_stats")
    return {name: sorted(await getattr(db, name).find({}), key=lambda d: str(d["_id"])) for name in names}


async def memories_by_id(call: Caller) -> dict[str, dict[str, Any]]:
    rows = (await call.ok("memory_query", {"user_id": ALICE, "limit": 50}))["memories"]
    return {row["memory_id"]: row for row in rows}


async def test_every_rule_at_its_boundaries(settings: Settings) -> None:
    async with connected(settings) as call:
        ids = await boundary_cases(call)
        before = await memories_by_id(call)
        report = await call.service.aging.run(NOW)
        after = await memories_by_id(call)
    expected = {ids[name]: ("compressed" if name.startswith("gist") else "removed")
                for name in ids if not name.startswith("keep")}
    assert {c["memory_id"]: c["action"] for c in report["changes"]} == expected
    assert {c["memory_id"]: c["rule"] for c in report["changes"]} == {
        i: RULE_GIST if action == "compressed" else RULE_REMOVE for i, action in expected.items()}
    assert report["counts"] == {"examined": 11, "compressed": 2, "removed": 2, "kept": 7}
    assert set(after) == set(before) - {i for i, action in expected.items() if action == "removed"}
    for name, memory_id in ids.items():
        if name.startswith("keep"):
            assert after[memory_id] == before[memory_id], name  # untouched
        elif name.startswith("gist"):
            summary = before[memory_id]["summary"]
            assert after[memory_id]["fuzzy"] and after[memory_id]["summary"] == summary.split(" It goes")[0]


async def test_the_uncached_path_of_real_mongodb_ages_the_same(tmp_path: Path) -> None:
    """On MongoDB only the memories that may be due are read (importance < 8, older than 30 days):
    driven on the embedded engine's storage, told it is MongoDB, as tests/memories/test_uncached_store."""
    cases = [(10, 1000 * DAY), (8, 400 * DAY), (7, 30 * DAY + MS), (7, 30 * DAY), (5, 31 * DAY), (6, DAY),
             (4, 60 * DAY + MS), (4, 60 * DAY), (4, 45 * DAY), (1, 61 * DAY)]
    outcomes = []
    async for _, told, _, store in stores_on_both_paths(tmp_path):
        made = {(await store.add(ALICE, "event", [f"Band {n}"], f"Gig {n}.", importance, None, NOW - age, True))
                ["memory_id"]: n for n, (importance, age) in enumerate(cases)}
        report = await age_memories(told, store, NOW)
        outcomes.append((sorted((made[c["memory_id"]], c["action"]) for c in report["changes"]), report["counts"]))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0] == ([(2, "compressed"), (4, "compressed"), (6, "removed"), (9, "removed")],
                           {"examined": 10, "compressed": 2, "removed": 2, "kept": 6})


async def test_a_gist_keeps_the_first_sentence_and_scalar_metadata(settings: Settings) -> None:
    long_sentence = "Loves St. Vincent and the way " + "her guitar tone bends " * 8 + "every song. Saw her live."
    metadata = {"check_after_days": 7, "score": 0.5, "live": True, "venue": "Roundhouse", "edge": "y" * 140,
                "essay": "x" * 141, "setlist": ["Los Ageless", "New York"], "details": {"row": 3}}
    async with connected(settings) as call:
        memory_id = await add(call, 6, 40 * DAY, summary=long_sentence, metadata=metadata)
        report = await call.service.aging.run(NOW)
        memory = await call.service.memories.get(ALICE, memory_id)
    assert len(first_sentence(long_sentence)) > 140
    assert memory["summary"] == report["changes"][0]["after_summary"] == gist(long_sentence)
    assert len(memory["summary"]) <= 140 and memory["summary"].endswith("…")
    kept = memory["summary"][:-1]
    assert long_sentence.startswith(kept) and long_sentence[len(kept)] == " "  # cut between two words
    assert memory["metadata"] == {"check_after_days": 7, "score": 0.5, "live": True, "venue": "Roundhouse",
                                  "edge": "y" * 140}
    assert memory["fuzzy"] is True and memory["importance"] == 6


def test_the_first_sentence_and_its_cut() -> None:
    assert first_sentence("Loves St. Vincent's Masseduction. Played it all week.") == "Loves St. Vincent's Masseduction."
    assert first_sentence("R.E.M. is the band! Then more.") == "R.E.M. is the band!"
    assert first_sentence("Recommended J. Cole's album. Next") == "Recommended J. Cole's album."
    assert first_sentence("Gave it a 9. Loved it.") == "Gave it a 9."
    assert first_sentence("Symphony No. 9 moved them. Really.") == "Symphony No. 9 moved them."
    assert first_sentence("Asked \"why?\" twice. Then left.") == "Asked \"why?\" twice."
    assert first_sentence("  Two  spaces\nand a line break. Next.") == "Two spaces and a line break."
    assert first_sentence("no end at all") == "no end at all"
    exact = "a" * 139 + "."
    assert gist(exact + " More.") == exact  # 140 characters: kept whole
    assert gist("word " * 40) == ("word " * 28).strip() + "…"  # the 139th character ends a word: kept
    assert gist("x" * 200) == "x" * 139 + "…"  # one word longer than the limit: cut inside it


async def test_a_dry_run_decides_the_same_and_writes_nothing(settings: Settings) -> None:
    async with connected(settings) as call:
        await boundary_cases(call)
        await boundary_cases(call, BOB)
        db = call.service.database
        stored = await snapshot(db)
        dry = await call.service.aging.run(NOW, dry_run=True)
        assert await snapshot(db) == stored
        real = await call.service.aging.run(NOW)
    assert dry["dry_run"] and not real["dry_run"] and (dry["changes"], dry["counts"]) == (real["changes"], real["counts"])
    assert real["counts"] == {"examined": 22, "compressed": 4, "removed": 4, "kept": 14}


async def test_a_second_run_at_the_same_now_changes_nothing(settings: Settings) -> None:
    async with connected(settings) as call:
        await boundary_cases(call)
        db = call.service.database
        assert len((await call.service.aging.run(NOW))["changes"]) == 4
        stored = await snapshot(db)
        again = await call.service.aging.run(NOW)
        assert await snapshot(db) == stored
    assert again["changes"] == [] and again["counts"] == {"examined": 9, "compressed": 0, "removed": 0, "kept": 9}


async def test_the_audit_trail_and_the_records_show_each_change(tmp_path: Path) -> None:
    origin = CallOrigin("local", "aging", new_request_id())
    # The embedded write path's audit (MongoDB's is the change-stream watcher's, tested on its own).
    async with connected(Settings(data_dir=tmp_path / "data")) as call:
        ids = await boundary_cases(call)
        memories = {i: await call.service.memories.get(ALICE, i) for i in ids.values()}
        with acting_as(origin):
            report = await call.service.aging.run(NOW)
        entries = (await call.ok("ops_audit", {"user_id": ALICE, "limit": 100}))["entries"]
        records = {r["memory_id"]: r for r in await call.service.database.memory_aging.find({"user_id": ALICE})}
    changes = {c["memory_id"]: c for c in report["changes"]}
    keys = {i: record_id(ALICE, i, c["action"], memories[i]["updated_at"]) for i, c in changes.items()}
    expected = ({("memory_aging", "insert", key) for key in keys.values()}
                | {("memories", "update", f"{ALICE}:{i}") for i, c in changes.items() if c["action"] == "compressed"})
    ours = [e for e in entries if e["request_id"] == origin.request_id]
    assert {(e["collection"], e["operation"], e["document_key"]) for e in ours} == expected
    assert all((e["principal"], e["tool"]) == ("local", "aging") for e in ours)
    assert set(records) == set(changes)
    for memory_id, record in records.items():
        assert record["_id"] == keys[memory_id] and record["action"] == changes[memory_id]["action"]
        assert record["before"]["summary"] == memories[memory_id]["summary"] and not record["before"]["fuzzy"]
        assert record["written_by"]["request_id"] == origin.request_id
        assert format_iso(record["aged_at"]) == format_iso(NOW)
        if record["action"] == "compressed":
            assert record["after"]["fuzzy"] and record["after"]["summary"] == changes[memory_id]["after_summary"]
        else:
            assert record["after"] is None


async def test_a_removed_memory_leaves_query_and_search_and_its_record_says_what_it_was(settings: Settings) -> None:
    async with connected(settings) as call:
        gone = await add(call, 3, 70 * DAY, entities=["The Zombies"], summary="Saw the Zombies play Odessey and Oracle.")
        kept = await add(call, 9, 70 * DAY, entities=["The Zombies"], summary="Adores the Zombies' harmonies.")
        found = await call.ok("memory_query", {"user_id": ALICE, "entity": "zombies"})
        assert {m["memory_id"] for m in found["memories"]} == {gone, kept}
        hits = (await call.ok("memory_search", {"user_id": ALICE, "query": "odessey oracle"}))["results"]
        assert [h["id"] for h in hits if h["kind"] == "memory"][:1] == [gone]
        await call.service.aging.run(NOW)
        found = await call.ok("memory_query", {"user_id": ALICE, "entity": "zombies"})
        hits = (await call.ok("memory_search", {"user_id": ALICE, "query": "odessey oracle"}))["results"]
        db = call.service.database
        records = await db.memory_aging.find({"user_id": ALICE, "memory_id": gone})
        stats = await db.user_stats.find_one({"_id": ALICE})
        counted = (await db.memories.count_documents({}), await db.memory_aging.count_documents({}))
    assert [m["memory_id"] for m in found["memories"]] == [kept]
    assert gone not in {h["id"] for h in hits if h["kind"] == "memory"}
    [record] = records
    assert (record["action"], record["rule"], record["after"]) == ("removed", RULE_REMOVE, None)
    assert (record["before"]["entities"], record["before"]["importance"], record["before"]["summary"]) == (
        ["The Zombies"], 3, "Saw the Zombies play Odessey and Oracle.")
    assert (stats["memory_count"], stats["aging_event_count"]) == counted == (1, 1)


async def test_a_restated_gist_is_clear_again_and_compressed_again_with_a_new_record(settings: Settings) -> None:
    statement = {"type": "recommendation", "entities": ["The Zombies"]}
    async with connected(settings) as call:
        memory_id = await add(call, 6, 40 * DAY, **statement, summary="Recommended baroque pop by the Zombies. Long.",
                              skip_dedup=False)
        assert len((await call.service.aging.run(NOW))["changes"]) == 1
        again = await call.ok("memory_add", {"user_id": ALICE, **statement, "importance": 6,
                                             "summary": "Recommended the Zombies' baroque pop again",
                                             "timestamp": format_iso(NOW - 20 * DAY)})
        assert again["deduplicated"] and again["memory_id"] == memory_id and not again["memory"]["fuzzy"]
        second = await call.service.aging.run(NOW)
        records = await call.service.database.memory_aging.find({"user_id": ALICE, "memory_id": memory_id})
    assert [(c["memory_id"], c["action"]) for c in second["changes"]] == [(memory_id, "compressed")]
    assert len({r["_id"] for r in records}) == 2
    assert sorted(r["before"]["seen_count"] for r in records) == [1, 2]


async def test_a_run_stopped_between_record_and_change_is_retried_without_a_second_record(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    async def refused(*args: Any, **kwargs: Any) -> Any:
        raise StorageUnavailable("the database did not complete the operation")

    async with connected(settings) as call:
        db = call.service.database
        compressed = await add(call, 6, 40 * DAY)
        removed = await add(call, 2, 70 * DAY, user_id=BOB)
        with monkeypatch.context() as patch:
            patch.setattr(db.memories, "update_one", refused)
            patch.setattr(db.memories, "delete_many", refused)
            for user_id in (ALICE, BOB):
                with pytest.raises(StorageUnavailable):
                    await call.service.aging.run(NOW, user_id)
        stranded = {r["memory_id"]: r["_id"] for r in await db.memory_aging.find({})}
        assert set(stranded) == {compressed, removed}  # the records, without their changes
        assert not (await call.service.memories.get(ALICE, compressed))["fuzzy"]
        assert await db.memories.count_documents({"user_id": BOB}) == 1
        retried = await call.service.aging.run(NOW + DAY)  # a later run: another now
        records, stats = await db.memory_aging.find({}), {s["_id"]: s for s in await db.user_stats.find({})}
        assert (await call.service.memories.get(ALICE, compressed))["fuzzy"]
        assert await db.memories.count_documents({"user_id": BOB}) == 0
    assert retried["counts"] == {"examined": 2, "compressed": 1, "removed": 1, "kept": 0}
    assert {r["memory_id"]: r["_id"] for r in records} == stranded and len(records) == 2
    assert all(format_iso(r["aged_at"]) == format_iso(NOW + DAY) for r in records)  # the run that made it
    assert stats[ALICE]["aging_event_count"] == stats[BOB]["aging_event_count"] == 1
    assert (stats[ALICE]["memory_count"], stats[BOB]["memory_count"]) == (1, 0)


async def test_the_age_command_lists_writes_and_refuses_a_bad_now(settings: Settings, tmp_path: Path) -> None:
    async with connected(settings) as call:
        ids = {user_id: await boundary_cases(call, user_id) for user_id in (ALICE, BOB)}
    due = {u: {i for name, i in cases.items() if not name.startswith("keep")} for u, cases in ids.items()}

    def age(*args: str) -> Any:
        return run_cli(["age", *args], settings, cwd=tmp_path, env={"COLUMNS": "250", "NO_COLOR": "1"})

    bad = age("--now", "yesterday")
    assert bad.returncode != 0 and "--now" in bad.stderr and "RFC 3339" in bad.stderr
    dry = age("--now", format_iso(NOW), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert all(i in dry.stdout for i in due[ALICE] | due[BOB]) and RULE_GIST in dry.stdout
    assert "dry run, nothing written: 22 examined, 4 compressed, 4 removed, 14 kept" in dry.stderr
    only_bob = age("--now", format_iso(NOW), "--user-id", str(BOB))
    assert only_bob.returncode == 0, only_bob.stderr
    assert all(i in only_bob.stdout for i in due[BOB]) and not any(i in only_bob.stdout for i in due[ALICE])
    assert "11 examined, 2 compressed, 2 removed, 7 kept" in only_bob.stderr
    everyone = age("--now", format_iso(NOW))
    assert everyone.returncode == 0 and "20 examined, 2 compressed, 2 removed, 16 kept" in everyone.stderr
    again = age("--now", format_iso(NOW))
    assert again.returncode == 0 and "18 examined, 0 compressed, 0 removed, 18 kept" in again.stderr
    async with connected(settings) as call:
        records = await call.service.database.memory_aging.find({})
    assert {r["memory_id"] for r in records} == due[ALICE] | due[BOB] and len(records) == 8
    assert {(r["written_by"]["principal"], r["written_by"]["tool"]) for r in records} == {("local", "cli.age")}
    assert len({r["written_by"]["request_id"] for r in records}) == 2  # the BOB run, then the ALICE run


async def _records_appear(db: Database, timeout: float = 10.0) -> list[dict[str, Any]]:
    deadline = asyncio.get_running_loop().time() + timeout
    while not (records := await db.memory_aging.find({})):
        assert asyncio.get_running_loop().time() < deadline, "the periodic run did not age the memory"
        await asyncio.sleep(0.02)
    return records


async def test_the_server_ages_periodically_as_its_own_origin(settings_factory: Any) -> None:
    settings = settings_factory(aging_interval_s=0.05)
    async with running_service(settings, ServiceHolder()) as service:
        old = await service.memories.add(ALICE, "event", ["Gig"], "A small gig.", 2, None, utc_now() - 90 * DAY, True)
        async with background_work(service, settings):
            [record] = await _records_appear(service.database)
        assert record["memory_id"] == old["memory_id"] and record["action"] == "removed"
        assert (record["written_by"]["principal"], record["written_by"]["tool"]) == ("local", "aging")
        assert await service.database.memories.count_documents({"user_id": ALICE}) == 0


async def test_a_failed_periodic_run_is_logged_and_the_next_period_tries_again(
        settings: Settings, caplog: pytest.LogCaptureFixture) -> None:
    async with running_service(settings, ServiceHolder()) as service:
        await service.memories.add(ALICE, "event", ["Gig"], "A small gig.", 2, None, utc_now() - 90 * DAY, True)
        real, calls = service.aging.run, []

        async def failing_once(*args: Any, **kwargs: Any) -> dict[str, Any]:
            calls.append(1)
            if len(calls) == 1:
                raise StorageUnavailable("the database did not complete the operation")
            return await real(*args, **kwargs)

        service.aging.run = failing_once  # type: ignore[method-assign]
        with caplog.at_level(logging.INFO, logger="taste_memory"):
            async with aging_periodically(service.aging, 0.02) as task:
                await _records_appear(service.database)
            assert task is not None and task.done()
        async with aging_periodically(service.aging, 0) as nothing:
            assert nothing is None  # MEMORY_AGING_INTERVAL_S=0: never
    assert "memory aging failed; retrying at the next period" in caplog.text
    assert "1 removed" in caplog.text
