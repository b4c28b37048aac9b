"""A sensitive memory (``memory_add`` with ``sensitive: true``) through the MCP tools: out of the
context block, of memory_query and of memory_search unless the call names its subject; an ordinary
memory beside it and another user's memories are unaffected; export and import keep the flag."""

from __future__ import annotations

from typing import Any

from service.settings import Settings
from tests.support import connected
from tests.support.contract import assert_valid_success

ALICE, BOB = 1, 2
FUNERAL = {
    "type": "insight",
    "entities": ["Dad's funeral"],
    "summary": "The songs from Dad's funeral: sad hymns for remembering him, only if they bring it up",
    "importance": 9,
    "sensitive": True,
}
ORDINARY = {
    "type": "insight",
    "entities": ["Nick Drake"],
    "summary": "Loves the sad, quiet songs of Pink Moon",
    "importance": 8,
}


async def _stored(call: Any) -> tuple[str, str]:
    added = await call("memory_add", {"user_id": ALICE, **FUNERAL})
    assert_valid_success("memory.add", added)
    assert added["result"]["memory"]["sensitive"] is True
    ordinary = await call.ok("memory_add", {"user_id": ALICE, **ORDINARY})
    assert "sensitive" not in ordinary["memory"]
    await call.ok("memory_add", {"user_id": BOB, **FUNERAL, "sensitive": False})
    return added["result"]["memory_id"], ordinary["memory_id"]


def _ids(answer: dict[str, Any]) -> list[str]:
    return [m["memory_id"] for m in answer["memories"]]


async def test_memory_query_returns_a_sensitive_memory_only_when_asked_for_by_name(settings: Settings) -> None:
    async with connected(settings) as call:
        funeral, ordinary = await _stored(call)
        listed = await call("memory_query", {"user_id": ALICE, "limit": 50})
        assert_valid_success("memory.query", listed)
        assert _ids(listed["result"]) == [ordinary]  # a list without a query never shows it
        by_meaning = await call.ok("memory_query", {"user_id": ALICE, "text": "sad songs for remembering"})
        assert funeral not in _ids(by_meaning) and ordinary in _ids(by_meaning)
        assert _ids(await call.ok("memory_query", {"user_id": ALICE, "entity": "funeral"})) == []  # a part is no name
        named = await call("memory_query", {"user_id": ALICE, "entity": "dad's Funeral"})
        assert_valid_success("memory.query", named)
        assert _ids(named["result"]) == [funeral] and named["result"]["memories"][0]["sensitive"] is True
        in_text = await call.ok("memory_query", {"user_id": ALICE, "text": "the songs from Dads funeral"})
        assert _ids(in_text)[0] == funeral  # the ordinary one may match its words too
        bob = await call.ok("memory_query", {"user_id": BOB})  # Bob's twin is not sensitive: listed
        assert len(bob["memories"]) == 1 and "sensitive" not in bob["memories"][0]


async def test_the_block_leaves_a_sensitive_memory_out_unless_focus_names_it(settings: Settings) -> None:
    async with connected(settings) as call:
        await _stored(call)
        plain = (await call.ok("memory_get_context", {"user_id": ALICE}))["block"]
        assert "Nick Drake" in plain and "funeral" not in plain.casefold()
        sad = (await call.ok("memory_get_context", {"user_id": ALICE, "focus": "sad songs for remembering"}))["block"]
        assert "Nick Drake" in sad and "funeral" not in sad.casefold()
        named = (await call.ok("memory_get_context", {"user_id": ALICE, "focus": "songs for Dad's funeral"}))["block"]
        assert "Dad's funeral" in named and "Nick Drake" in named
        assert "funeral" in (await call.ok("memory_get_context", {"user_id": BOB}))["block"]


async def test_memory_search_finds_it_only_by_name(settings: Settings) -> None:
    async with connected(settings) as call:
        funeral, ordinary = await _stored(call)
        for query in ("sad songs for remembering", "hymns", "funeral"):
            hits = (await call.ok("memory_search", {"user_id": ALICE, "query": query}))["results"]
            assert funeral not in [h["id"] for h in hits], query
        hits = (await call.ok("memory_search", {"user_id": ALICE, "query": "Dad's funeral"}))["results"]
        assert hits and hits[0]["id"] == funeral
        assert ordinary in [
            h["id"] for h in (await call.ok("memory_search", {"user_id": ALICE, "query": "sad songs"}))["results"]
        ]


async def test_export_and_import_keep_the_flag(settings: Settings) -> None:
    async with connected(settings) as call:
        funeral, ordinary = await _stored(call)
        exported = (await call.ok("memory_export_user_data", {"user_id": ALICE}))["data"]
        flags = {m["memory_id"]: m.get("sensitive") for m in exported["memories"]}
        assert flags == {funeral: True, ordinary: False}
        await call.ok("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
        await call.service.transfer.import_counts([exported], ALICE)
        assert _ids(await call.ok("memory_query", {"user_id": ALICE, "limit": 50})) == [ordinary]
        assert _ids(await call.ok("memory_query", {"user_id": ALICE, "entity": "Dad's funeral"})) == [funeral]
        broken = {**exported, "memories": [{**exported["memories"][0], "sensitive": "yes"}]}
        await call.ok("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
        refused = await call("memory_import_user_data", {"user_id": ALICE, "data": broken, "confirm": True})
        assert refused["success"] is False and refused["error"]["code"] == "INVALID_ARGUMENT"
