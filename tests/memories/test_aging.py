"""Aging of typed memories with a fixed now: every rule at its boundaries, the gist, the dry run,
idempotence, the records and the audit trail, a retry after an interrupted run (the CLI and the
server's periodic task: test_aging_runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.audit.origin import CallOrigin, acting_as, new_request_id
from service.errors import StorageUnavailable
from service.memories.aging import RULE_GIST, RULE_REMOVE, age_memories, first_sentence, gist, record_id
from service.settings import Settings
from service.timeutil import format_iso
from tests.memories.aging_support import ALICE, BOB, DAY, MS, NOW, add, boundary_cases, memories_by_id, snapshot
from tests.support import connected
from tests.support.backends import stores_on_both_paths


async def test_every_rule_at_its_boundaries(settings: Settings) -> None:
    async with connected(settings) as call:
        ids = await boundary_cases(call)
        before = await memories_by_id(call)
        report = await call.service.aging.run(NOW)
        after = await memories_by_id(call)
    expected = {
        ids[name]: ("compressed" if name.startswith("gist") else "removed")
        for name in ids
        if not name.startswith("keep")
    }
    assert {c["memory_id"]: c["action"] for c in report["changes"]} == expected
    assert {c["memory_id"]: c["rule"] for c in report["changes"]} == {
        i: RULE_GIST if action == "compressed" else RULE_REMOVE for i, action in expected.items()
    }
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
    cases = [
        (10, 1000 * DAY),
        (8, 400 * DAY),
        (7, 30 * DAY + MS),
        (7, 30 * DAY),
        (5, 31 * DAY),
        (6, DAY),
        (4, 60 * DAY + MS),
        (4, 60 * DAY),
        (4, 45 * DAY),
        (1, 61 * DAY),
    ]
    outcomes = []
    async for _, told, _, store in stores_on_both_paths(tmp_path):
        made = {
            (await store.add(ALICE, "event", [f"Band {n}"], f"Gig {n}.", importance, None, NOW - age, True))[
                "memory_id"
            ]: n
            for n, (importance, age) in enumerate(cases)
        }
        report = await age_memories(told, store, NOW)
        outcomes.append((sorted((made[c["memory_id"]], c["action"]) for c in report["changes"]), report["counts"]))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0] == (
        [(2, "compressed"), (4, "compressed"), (6, "removed"), (9, "removed")],
        {"examined": 10, "compressed": 2, "removed": 2, "kept": 6},
    )


async def test_a_gist_keeps_the_first_sentence_and_scalar_metadata(settings: Settings) -> None:
    long_sentence = "Loves St. Vincent and the way " + "her guitar tone bends " * 8 + "every song. Saw her live."
    metadata = {
        "check_after_days": 7,
        "score": 0.5,
        "live": True,
        "venue": "Roundhouse",
        "edge": "y" * 140,
        "essay": "x" * 141,
        "setlist": ["Los Ageless", "New York"],
        "details": {"row": 3},
    }
    async with connected(settings) as call:
        memory_id = await add(call, 6, 40 * DAY, summary=long_sentence, metadata=metadata)
        report = await call.service.aging.run(NOW)
        memory = await call.service.memories.get(ALICE, memory_id)
    assert len(first_sentence(long_sentence)) > 140
    assert memory["summary"] == report["changes"][0]["after_summary"] == gist(long_sentence)
    assert len(memory["summary"]) <= 140 and memory["summary"].endswith("…")
    kept = memory["summary"][:-1]
    assert long_sentence.startswith(kept) and long_sentence[len(kept)] == " "  # cut between two words
    assert memory["metadata"] == {
        "check_after_days": 7,
        "score": 0.5,
        "live": True,
        "venue": "Roundhouse",
        "edge": "y" * 140,
    }
    assert memory["fuzzy"] is True and memory["importance"] == 6


def test_the_first_sentence_and_its_cut() -> None:
    assert (
        first_sentence("Loves St. Vincent's Masseduction. Played it all week.") == "Loves St. Vincent's Masseduction."
    )
    assert first_sentence("R.E.M. is the band! Then more.") == "R.E.M. is the band!"
    assert first_sentence("Recommended J. Cole's album. Next") == "Recommended J. Cole's album."
    assert first_sentence("Gave it a 9. Loved it.") == "Gave it a 9."
    assert first_sentence("Symphony No. 9 moved them. Really.") == "Symphony No. 9 moved them."
    assert first_sentence('Asked "why?" twice. Then left.') == 'Asked "why?" twice.'
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
    assert (
        dry["dry_run"] and not real["dry_run"] and (dry["changes"], dry["counts"]) == (real["changes"], real["counts"])
    )
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
    expected = {("memory_aging", "insert", key) for key in keys.values()} | {
        ("memories", "update", f"{ALICE}:{i}") for i, c in changes.items() if c["action"] == "compressed"
    }
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
        gone = await add(
            call, 3, 70 * DAY, entities=["The Zombies"], summary="Saw the Zombies play Odessey and Oracle."
        )
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
        ["The Zombies"],
        3,
        "Saw the Zombies play Odessey and Oracle.",
    )
    assert (stats["memory_count"], stats["aging_event_count"]) == counted == (1, 1)


async def test_a_restated_gist_is_clear_again_and_compressed_again_with_a_new_record(settings: Settings) -> None:
    statement = {"type": "recommendation", "entities": ["The Zombies"]}
    async with connected(settings) as call:
        memory_id = await add(
            call, 6, 40 * DAY, **statement, summary="Recommended baroque pop by the Zombies. Long.", skip_dedup=False
        )
        assert len((await call.service.aging.run(NOW))["changes"]) == 1
        again = await call.ok(
            "memory_add",
            {
                "user_id": ALICE,
                **statement,
                "importance": 6,
                "summary": "Recommended the Zombies' baroque pop again",
                "timestamp": format_iso(NOW - 20 * DAY),
            },
        )
        assert again["deduplicated"] and again["memory_id"] == memory_id and not again["memory"]["fuzzy"]
        second = await call.service.aging.run(NOW)
        records = await call.service.database.memory_aging.find({"user_id": ALICE, "memory_id": memory_id})
    assert [(c["memory_id"], c["action"]) for c in second["changes"]] == [(memory_id, "compressed")]
    assert len({r["_id"] for r in records}) == 2
    assert sorted(r["before"]["seen_count"] for r in records) == [1, 2]


async def test_a_run_stopped_between_record_and_change_is_retried_without_a_second_record(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
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
        if settings.mongodb_uri:  # each write durable at once: the records, without their changes
            assert set(stranded) == {compressed, removed}
        else:  # the embedded store undoes a failed user's aging whole: no record, no change
            assert stranded == {}
        assert not (await call.service.memories.get(ALICE, compressed))["fuzzy"]
        assert await db.memories.count_documents({"user_id": BOB}) == 1
        retried = await call.service.aging.run(NOW + DAY)  # a later run: another now
        records, stats = await db.memory_aging.find({}), {s["_id"]: s for s in await db.user_stats.find({})}
        assert (await call.service.memories.get(ALICE, compressed))["fuzzy"]
        assert await db.memories.count_documents({"user_id": BOB}) == 0
    assert retried["counts"] == {"examined": 2, "compressed": 1, "removed": 1, "kept": 0}
    assert {r["memory_id"] for r in records} == {compressed, removed} and len(records) == 2
    assert all(stranded.get(r["memory_id"], r["_id"]) == r["_id"] for r in records)  # the same ids, if stranded
    assert all(format_iso(r["aged_at"]) == format_iso(NOW + DAY) for r in records)  # the run that made it
    assert stats[ALICE]["aging_event_count"] == stats[BOB]["aging_event_count"] == 1
    assert (stats[ALICE]["memory_count"], stats[BOB]["memory_count"]) == (1, 0)
