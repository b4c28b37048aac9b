"""The user's switches through the tools: memory off refuses every write tool (CONFLICT
memory_disabled, nothing stored) and answers reads as for a user with no data; paused refuses
writes (memory_paused, with until) and reads work; deleting data and the switches always work;
turning memory on brings everything back. Every gated write tool is driven, found from the
catalog, so a tool added later is covered (it needs a baseline in tests/tools/calls/baselines.py)."""

from __future__ import annotations

import copy
from typing import Any

from service.auth.policy import Access
from service.settings import Settings
from tests.support import Caller, connected
from tests.support.contract import assert_valid_error, assert_valid_success
from tests.tools.calls.baselines import BASELINES, EXISTING, live_baseline, seed
from tools.specs.catalog import TOOL_SPECS

USER = 1
GATED_WRITES = sorted(s.prd_name for s in TOOL_SPECS if s.access is Access.WRITE and s.gated)
UNTIL = "2099-01-01T00:00:00.000Z"


async def _stored(call: Caller) -> dict[str, Any]:
    """Everything stored for the user, read past the switches (the facade, as the CLI export)."""
    data = await call.service.transfer.export_all(USER)
    data.pop("as_of")
    data.pop("memory_controls")  # the switches themselves: what they guard is the rest
    return data


async def _valid_calls(call: Caller) -> dict[str, dict[str, Any]]:
    """A call of each gated write tool that would succeed (made while memory is on)."""
    return {prd_name: await live_baseline(call, prd_name) for prd_name in GATED_WRITES}


async def _refusals(call: Caller, calls: dict[str, dict[str, Any]], reason: str) -> list[str]:
    wrong = []
    for prd_name, arguments in calls.items():
        envelope = await call(prd_name.replace(".", "_"), copy.deepcopy(arguments))
        error = assert_valid_error(envelope) if not envelope["success"] else None
        if error is None or error["code"] != "CONFLICT" or error["details"].get("reason") != reason:
            wrong.append(f"{prd_name}: {envelope}")
        elif reason == "memory_paused" and error["details"].get("until") != UNTIL:
            wrong.append(f"{prd_name}: until {error['details']}")
    return wrong


async def test_memory_off_refuses_every_write_and_reads_as_empty_until_turned_on(settings: Settings) -> None:
    assert len(GATED_WRITES) >= 13 and all(name in BASELINES for name in GATED_WRITES), "a write tool lacks a baseline"
    async with connected(settings) as call:
        await seed(call)
        await call.ok(
            "memory_add",
            {"user_id": USER, "type": "insight", "entities": ["Jazz"], "summary": "Loves jazz", "importance": 9},
        )
        profile = await call.ok("memory_get_profile", {"user_id": USER})
        calls = await _valid_calls(call)
        before = await _stored(call)
        status = await call("memory_set_enabled", {"user_id": USER, "enabled": False})
        assert_valid_success("memory.set_enabled", status)
        assert status["result"]["enabled"] is False
        assert status["result"]["counts"]["memories"] == 2  # the insight and the live recommendation to validate
        wrong = await _refusals(call, calls, "memory_disabled")
        assert await _stored(call) == before, "a refused write stored something"
        # Reads answer as for a user with no data; nothing was deleted.
        assert await call.ok("memory_get_profile", {"user_id": USER}) == {
            "user_id": USER,
            "profile": {},
            "version": 0,
            "updated_at": None,
        }
        assert (await call.ok("memory_get_playlists", {"user_id": USER}))["items"] == []
        await call.error("memory_get_playlist", {"user_id": USER, "playlist_id": EXISTING}, "NOT_FOUND")
        await call.error("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": EXISTING}, "NOT_FOUND")
        assert (await call.ok("memory_search", {"user_id": USER, "query": "jazz"}))["results"] == []
        assert (await call.ok("memory_query", {"user_id": USER, "entity": "jazz"}))["memories"] == []
        exported = (await call.ok("memory_export_user_data", {"user_id": USER}))["data"]
        assert exported["profile"] is None and exported["playlists"] == [] and exported["memories"] == []
        assert (await call.ok("memory_status", {"user_id": USER}))["counts"]["playlists"] == 1  # the switch sees all
        other = await call.ok("memory_update_profile", {"user_id": 2, "patch": {"a": 1}})  # another user: unaffected
        assert other["version"] == 1
        await call.ok("memory_set_enabled", {"user_id": USER, "enabled": True})
        assert await call.ok("memory_get_profile", {"user_id": USER}) == profile
        assert (await call.ok("memory_query", {"user_id": USER, "entity": "jazz"}))["memories"]
        after = await _stored(call)
    assert not wrong, "\n".join(wrong)
    assert after == before


async def test_a_pause_refuses_writes_until_it_ends_and_reads_go_on(settings: Settings) -> None:
    async with connected(settings) as call:
        await seed(call)
        calls = await _valid_calls(call)
        before = await _stored(call)
        paused = await call("memory_pause", {"user_id": USER, "until": "2099-01-01T00:00:00Z"})
        assert_valid_success("memory.pause", paused)
        assert paused["result"]["paused_until"] == UNTIL and paused["result"]["enabled"] is True
        wrong = await _refusals(call, calls, "memory_paused")
        assert await _stored(call) == before
        assert (await call.ok("memory_get_profile", {"user_id": USER}))["version"] >= 1  # reads work
        assert len((await call.ok("memory_get_playlists", {"user_id": USER}))["items"]) == 1
        # A pause that has ended is no pause; null resumes now.
        await call.ok("memory_pause", {"user_id": USER, "until": "2020-01-01T00:00:00Z"})
        assert (await call.ok("memory_status", {"user_id": USER}))["paused_until"] is None
        await call.ok("memory_update_profile", {"user_id": USER, "patch": {"b": 2}})
        await call.ok("memory_pause", {"user_id": USER, "until": UNTIL})
        resumed = await call("memory_pause", {"user_id": USER, "until": None})
        assert_valid_success("memory.pause", resumed)
        assert resumed["result"]["paused_until"] is None
        await call.ok("memory_update_profile", {"user_id": USER, "patch": {"c": 3}})
    assert not wrong, "\n".join(wrong)


async def test_deletion_and_the_switches_always_work_and_are_audited(settings: Settings) -> None:
    async with connected(settings) as call:
        await seed(call)
        await call.ok("memory_set_enabled", {"user_id": USER, "enabled": False})
        await call.ok("memory_pause", {"user_id": USER, "until": UNTIL})
        status = await call("memory_status", {"user_id": USER})
        assert_valid_success("memory.status", status)
        assert (status["result"]["enabled"], status["result"]["paused_until"]) == (False, UNTIL)
        trail = (await call.ok("ops_audit", {"user_id": USER, "limit": 50}))["entries"]
        switched = [e for e in trail if e["collection"] == "memory_controls"]
        assert [e["tool"] for e in switched] == ["memory.pause", "memory.set_enabled"]  # newest first
        await call.ok("memory_delete_user_data", {"user_id": USER, "confirm": True})  # removing is never refused
        assert await call.service.database.memory_controls.count_documents({"user_id": USER}) == 0
        fresh = await call.ok("memory_status", {"user_id": USER})
    assert (fresh["enabled"], fresh["paused_until"]) == (True, None)
    assert set(fresh["counts"].values()) == {0}


async def test_the_switches_travel_with_an_export(settings: Settings) -> None:
    async with connected(settings) as call:
        await seed(call)
        await call.ok("memory_pause", {"user_id": USER, "until": UNTIL})
        await call.ok("memory_set_enabled", {"user_id": USER, "enabled": False})
        exported = await call.service.transfer.export_all(USER)
        assert [{k: v for k, v in c.items() if k != "updated_at"} for c in exported["memory_controls"]] == [
            {"enabled": False, "paused_until": UNTIL}
        ]
        await call.ok("memory_delete_user_data", {"user_id": USER, "confirm": True})
        await call.service.transfer.import_counts([exported], 7)
        copied = await call.ok("memory_status", {"user_id": 7})
        assert (copied["enabled"], copied["paused_until"]) == (False, UNTIL)
        assert (await call.ok("memory_get_profile", {"user_id": 7}))["version"] == 0  # off: reads as empty
