"""memory_add and memory_query through the MCP tools: deduplication, merging, filters, ranking,
days_ago, search hits, export/import and delete, and isolation between users."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from service.settings import Settings
from tests.support import connected
from tests.support.contract import assert_valid_success

ALICE, BOB = 1, 2
NOW = datetime.now(UTC)


def iso(days_ago: float) -> str:
    return (NOW - timedelta(days=days_ago)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def memory(**fields: Any) -> dict[str, Any]:
    return {
        "user_id": ALICE,
        "type": "recommendation",
        "entities": ["The Zombies", "Odessey and Oracle"],
        "summary": "Recommended the baroque pop album for its complex arrangements",
        "importance": 8,
        **fields,
    }


async def test_the_same_memory_twice_is_one_memory_seen_twice(settings: Settings) -> None:
    async with connected(settings) as call:
        first = await call(
            "memory_add", memory(metadata={"check_after_days": 7, "reason": "arrangements"}, timestamp=iso(3))
        )
        assert_valid_success("memory.add", first)
        again = await call(
            "memory_add",
            memory(
                entities=["odessey and oracle", "ZOMBIES"],
                importance=6,
                summary="Recommended baroque pop: the arrangements",
                metadata={"reason": None, "mood": "sunny"},
                timestamp=iso(1),
            ),
        )
        assert_valid_success("memory.add", again)
        stored = await call.service.database.memories.count_documents({"user_id": ALICE})
    a, b = first["result"], again["result"]
    assert (a["deduplicated"], b["deduplicated"]) == (False, True)
    assert b["memory_id"] == a["memory_id"] and stored == 1
    merged = b["memory"]
    assert merged["seen_count"] == 2 and merged["importance"] == 8  # the higher importance stays
    assert merged["entities"] == ["The Zombies", "Odessey and Oracle"]  # as first stated
    assert merged["metadata"] == {"check_after_days": 7, "mood": "sunny"}  # merge patch: null deleted a key
    assert merged["summary"] == a["memory"]["summary"]  # the restatement said nothing new
    assert merged["timestamp"] == a["memory"]["timestamp"] and merged["last_seen_at"] > merged["timestamp"]


async def test_a_restatement_keeps_what_each_statement_adds(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_add", memory(summary="Recommended the baroque pop album."))
        wider = await call.ok(
            "memory_add", memory(summary="Recommended the baroque pop album to a harmony fan.", importance=9)
        )
        both = await call.ok("memory_add", memory(summary="Recommended baroque pop; they loved Care of Cell 44"))
    assert wider["deduplicated"] and wider["memory"]["importance"] == 9
    assert (
        wider["memory"]["summary"] == "Recommended the baroque pop album to a harmony fan."
    )  # says all the first said
    assert both["memory"]["summary"] == (
        "Recommended the baroque pop album to a harmony fan. Recommended baroque pop; they loved Care of Cell 44"
    )  # each says something the other does not
    assert both["memory"]["seen_count"] == 3


async def test_different_type_entity_summary_age_or_skip_dedup_make_new_memories(settings: Settings) -> None:
    async with connected(settings) as call:
        base = await call.ok("memory_add", memory(timestamp=iso(40)))
        variants = [
            memory(type="feedback", timestamp=iso(40)),  # another type
            memory(entities=["The Zombies"], timestamp=iso(40)),  # another entity set
            memory(summary="Their live show is in town next month", timestamp=iso(40)),  # nothing in common
            memory(timestamp=iso(9)),  # 31 days after the stored one: outside the window
            memory(timestamp=iso(40), skip_dedup=True),  # forced
        ]
        added = [await call.ok("memory_add", v) for v in variants]
        within = await call.ok("memory_add", memory(timestamp=iso(10)))  # exactly 30 days after the first
        count = await call.service.database.memories.count_documents({"user_id": ALICE})
    assert [a["deduplicated"] for a in added] == [False] * 5
    assert len({base["memory_id"], *(a["memory_id"] for a in added)}) == 6 and count == 6
    assert within["deduplicated"]  # the window is measured from the latest statement, 30 days inclusive


async def test_concurrent_restatements_make_one_memory(settings: Settings) -> None:
    async with connected(settings) as call:
        answers = await asyncio.gather(*(call.ok("memory_add", memory()) for _ in range(8)))
        count = await call.service.database.memories.count_documents({"user_id": ALICE})
    assert count == 1 and len({a["memory_id"] for a in answers}) == 1
    assert sorted(a["memory"]["seen_count"] for a in answers) == list(range(1, 9))


async def test_bad_memories_are_refused_and_write_nothing(settings: Settings) -> None:
    async with connected(settings) as call:
        for bad, field in (
            (memory(entities=["  "]), "entities[0]"),
            (memory(summary=" \n "), "summary"),
            (memory(metadata={"check_after_days": "soon"}), "metadata.check_after_days"),
            (memory(metadata={"check_after_days": 7.5}), "metadata.check_after_days"),
            (memory(metadata={"blob": "x" * 5000}), "metadata"),
            (memory(importance=11), "importance"),
            (memory(entities=[]), "entities"),
            (memory(type="gossip"), "type"),
            (memory(timestamp="yesterday"), "timestamp"),
        ):
            error = await call.error("memory_add", bad, "INVALID_ARGUMENT")
            assert error["details"]["field"] == field, (bad, error)
        assert await call.service.database.memories.count_documents({}) == 0


async def _store_query_fixture(call: Any) -> dict[str, str]:
    ids = {}
    for name, fields in {
        "zombies_rec": memory(timestamp=iso(2)),
        "zombies_feedback": memory(
            type="feedback",
            entities=["The Zombies"],
            importance=9,
            timestamp=iso(20),
            summary="Found the harmonies too sweet",
        ),
        "tribute": memory(
            type="event",
            entities=["Zombies Tribute Band"],
            importance=7,
            timestamp=iso(5),
            summary="Tribute concert on Friday",
        ),
        "motley": memory(
            type="insight",
            entities=["Mötley Crüe"],
            importance=5,
            timestamp=iso(45),
            summary="Guilty pleasure: glam metal anthems",
        ),
        "swift": memory(
            type="insight",
            entities=["Taylor Swift", "storytelling"],
            importance=9,
            timestamp=iso(1),
            summary="Values narrative songwriting; folklore is the exemplar",
        ),
    }.items():
        ids[name] = (await call.ok("memory_add", fields))["memory_id"]
    await call.ok("memory_add", {**memory(), "user_id": BOB, "entities": ["The Zombies"], "summary": "Bob's own"})
    return ids


async def test_query_filters_alone_and_combined_and_days_ago(settings: Settings) -> None:
    async with connected(settings) as call:
        ids = await _store_query_fixture(call)

        async def found(**arguments: Any) -> list[str]:
            envelope = await call("memory_query", {"user_id": ALICE, **arguments})
            assert_valid_success("memory.query", envelope)
            by_id = {v: k for k, v in ids.items()}
            return [by_id[m["memory_id"]] for m in envelope["result"]["memories"]]

        everything = await call.ok("memory_query", {"user_id": ALICE, "limit": 50})
        assert await found(entity="zombies") == ["zombies_feedback", "zombies_rec", "tribute"]
        assert await found(entity="zombie") == ["zombies_feedback", "zombies_rec", "tribute"]  # the same stem
        assert await found(entity="zombeis") == ["zombies_feedback", "zombies_rec", "tribute"]  # a typo
        assert await found(entity="motley crue") == ["motley"]
        assert await found(entity="odessey & oracle") == ["zombies_rec"]
        assert await found(entity="beatles") == []
        assert await found(text="baroque arrangements") == ["zombies_rec"]
        assert await found(text="songwriting") == ["swift"]
        assert await found(type="insight") == ["swift", "motley"]  # importance, then recency
        assert await found(since_days=10) == ["swift", "zombies_rec", "tribute"]
        assert await found(importance_min=9) == ["swift", "zombies_feedback"]
        assert await found(entity="zombies", type="recommendation") == ["zombies_rec"]
        assert await found(entity="zombies", since_days=10, importance_min=8) == ["zombies_rec"]
        assert await found(entity="zombies", text="harmonies") == ["zombies_feedback"]
        assert await found(text="harmonies", type="event") == []
        assert await found(limit=2) == ["swift", "zombies_feedback"]
    days = {m["memory_id"]: m["days_ago"] for m in everything["memories"]}
    assert [days[ids[k]] for k in ("zombies_rec", "zombies_feedback", "tribute", "motley", "swift")] == [
        2,
        20,
        5,
        45,
        1,
    ]
    assert len(everything["memories"]) == 5  # Bob's memory is not Alice's


async def test_search_finds_memories_and_export_import_delete_keep_or_remove_them(settings: Settings) -> None:
    async with connected(settings) as call:
        ids = await _store_query_fixture(call)
        hits = (await call.ok("memory_search", {"user_id": ALICE, "query": "folklore songwriting"}))["results"]
        assert hits[0]["kind"] == "memory" and hits[0]["id"] == ids["swift"]
        bob_hits = (await call.ok("memory_search", {"user_id": BOB, "query": "harmonies"}))["results"]
        assert not [h for h in bob_hits if h["kind"] == "memory"]
        before = await call.ok("memory_query", {"user_id": ALICE, "limit": 50})
        exported = (await call.ok("memory_export_user_data", {"user_id": ALICE}))["data"]
        assert len(exported["memories"]) == 5 and "entity_key" not in exported["memories"][0]
        await call.ok("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
        assert (await call.ok("memory_query", {"user_id": ALICE}))["memories"] == []
        assert not (await call.ok("memory_search", {"user_id": ALICE, "query": "folklore"}))["results"]
        assert await call.service.database.memories.count_documents({"user_id": ALICE}) == 0
        empty = (await call.ok("memory_export_user_data", {"user_id": ALICE}))["data"]
        assert empty["memories"] == [] and empty["plays"] == [] and empty["memory_aging"] == []
        counts = await call.service.transfer.import_counts([exported], ALICE)
        assert counts["memories"] == 5
        after = await call.ok("memory_query", {"user_id": ALICE, "limit": 50})
        assert [m | {"days_ago": 0} for m in after["memories"]] == [m | {"days_ago": 0} for m in before["memories"]]
        again = await call.ok("memory_add", memory(timestamp=iso(1)))  # dedup works on imported memories
        assert again["deduplicated"] and again["memory_id"] == ids["zombies_rec"]
        assert (await call.ok("memory_search", {"user_id": ALICE, "query": "folklore"}))["results"][0]["id"] == ids[
            "swift"
        ]
        assert (await call.ok("memory_query", {"user_id": BOB}))["memories"][0]["summary"] == "Bob's own"


async def test_a_user_with_only_memories_is_listed_and_stays_listed_after_a_restart(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_add", {**memory(), "user_id": 7})
        listed = {u["user_id"] for u in (await call.ok("ops_list_users", {}))["users"]}
    assert 7 in listed
    async with connected(settings) as call:  # counters recounted from the records at start-up
        assert 7 in {u["user_id"] for u in (await call.ok("ops_list_users", {}))["users"]}
        await call.ok("memory_delete_user_data", {"user_id": 7, "confirm": True})
        assert 7 not in {u["user_id"] for u in (await call.ok("ops_list_users", {}))["users"]}
