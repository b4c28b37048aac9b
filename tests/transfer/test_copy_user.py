"""Copying a user: user A's export imported into an empty user B on the same server, A still
there. Every id the import stores is derived from the user except a preference event's, so B's
events get ids of their own (derived from B and A's ids: the same on every import); everything
else is A's. B then answers every read as A does, once the user id and those event ids (paired
through the two exports, in recording order) are written alike; A is unchanged; importing again
is refused without replace and gives the very same B with it. The command line's import copies
a user the same way."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from service.settings import Settings
from tests.support import Caller, connected
from tests.support.rich_user import comparable_export, write_rich_user
from tests.transfer.copy_support import ASKS, NOT_COMPARED, answers, comparable, event_tokens, read_tools, write_more
from tests.transfer.export_support import cli

ALICE, BOB = 61, 62


async def rich(call: Caller, user: int) -> None:
    await write_rich_user(call, user)
    await write_more(call, user)


async def export_of(call: Caller, user: int) -> dict[str, Any]:
    return copy.deepcopy(await call.service.transfer.export_all(user))


async def assert_reads_alike(call: Caller, original: dict[str, Any], copied: dict[str, Any]) -> None:
    """B's every read equals A's, the user id and the event ids aside."""
    a_export, b_export = await export_of(call, ALICE), await export_of(call, BOB)
    a_ids, b_ids = event_tokens(a_export), event_tokens(b_export)
    assert len(a_ids) == len(b_ids) == 9  # 5 + 3 opinions + the recorded choice
    assert not set(a_ids) & set(b_ids), "the copy's events have ids of their own"
    assert comparable(b_export, BOB, b_ids) == comparable(a_export, ALICE, a_ids)
    # The reads name the events (search, feedback, context, explain, inspect, the export itself).
    named = [name for name, answer in original.items() if any(i in json.dumps(answer) for i in a_ids)]
    assert len(named) >= 10 and any(name.startswith("memory_explain") for name in named), named
    same(comparable(original, ALICE, a_ids), comparable(copied, BOB, b_ids))


def same(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    """Every read alike, or the first that is not, shown."""
    assert theirs.keys() == ours.keys()
    differ = [name for name in ours if theirs[name] != ours[name]]
    assert not differ, f"{differ}\n{json.dumps(ours[differ[0]])[:2500]}\n{json.dumps(theirs[differ[0]])[:2500]}"


async def test_a_copy_of_a_user_reads_as_the_original(settings: Settings) -> None:
    async with connected(settings) as call:
        assert await read_tools(call) == set(ASKS) | NOT_COMPARED, "a read tool is neither compared nor excused"
        await rich(call, ALICE)
        before_export, before = await export_of(call, ALICE), await answers(call, ALICE)
        data = (await call.ok("memory_export_user_data", {"user_id": ALICE}))["data"]
        assert data["continuation"]["next_cursor"] is None
        arguments = {"user_id": BOB, "data": data, "confirm": True}
        result = await call.ok("memory_import_user_data", arguments)
        assert result["replaced"] is False and result["imported"]["preference_events"] == 9, result
        # A is as it was, to the byte and in every read (the copy shares no stored record with it).
        assert await export_of(call, ALICE) | {"as_of": None} == before_export | {"as_of": None}
        after = await answers(call, ALICE)
        same(comparable(before, ALICE, {}), comparable(after, ALICE, {}))
        copied = await answers(call, BOB)
        await assert_reads_alike(call, after, copied)
        # The copy's supersession marks follow its own ids: a like, then a dislike, then a like.
        events = (await call.service.transfer.export_all(BOB))["preference_events"]
        stored = {e["_id"]: e for e in await call.service.database.preference_events.find({"user_id": BOB})}
        drake = [stored[e["event_id"]] for e in events if e["payload"].get("artist") == "Nick Drake"]
        assert [e.get("superseded_by") for e in drake] == [drake[1]["_id"], drake[2]["_id"], None]

        first = await comparable_export(call, BOB)
        error = await call.error("memory_import_user_data", arguments, "CONFLICT")
        assert error["details"]["reason"] == "user_has_data", error
        again = await call.ok("memory_import_user_data", arguments | {"replace": True})
        assert again["replaced"] is True and again["imported"] == result["imported"]
        # The same ids again: replacing with the same export changes nothing a client can see.
        assert await comparable_export(call, BOB) == first
        same(comparable(copied, BOB, {}), comparable(await answers(call, BOB), BOB, {}))


async def test_a_copy_of_a_copy_and_the_original_back(settings: Settings) -> None:
    """Copies of copies get ids of their own too; the original's export goes back into the original
    exactly; a user's own export whose ids another user holds, and a copy whose ids another user
    holds, are still refused."""
    async with connected(settings) as call:
        await rich(call, ALICE)
        original = await comparable_export(call, ALICE)
        alices = (await call.ok("memory_export_user_data", {"user_id": ALICE}))["data"]
        await call.ok("memory_import_user_data", {"user_id": BOB, "data": alices, "confirm": True})
        bobs = (await call.ok("memory_export_user_data", {"user_id": BOB}))["data"]
        await call.ok("memory_import_user_data", {"user_id": 63, "data": bobs, "confirm": True})
        ids = [{e["event_id"] for e in (await export_of(call, u))["preference_events"]} for u in (ALICE, BOB, 63)]
        assert len(set.union(*ids)) == 27, "three users, nine events each, no id shared"
        await call.ok("memory_import_user_data", {"user_id": ALICE, "data": alices, "confirm": True, "replace": True})
        assert await comparable_export(call, ALICE) == original
        # Bob's export back into Bob, over his data: his own ids, kept.
        before = await comparable_export(call, BOB)
        await call.ok("memory_import_user_data", {"user_id": BOB, "data": bobs, "confirm": True, "replace": True})
        assert await comparable_export(call, BOB) == before
        # Alice gone, her export goes to 64 under her ids (free then); her export back into Alice
        # cannot take them from 64: an export of a user is not a copy of another.
        await call.ok("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
        await call.ok("memory_import_user_data", {"user_id": 64, "data": alices, "confirm": True})
        error = await call.error(
            "memory_import_user_data", {"user_id": ALICE, "data": alices, "confirm": True}, "CONFLICT"
        )
        assert error["details"]["reason"] == "event_id_taken" and len(error["details"]["event_ids"]) == 9
        # Bob gone, his export goes to 65 under his ids: a new copy of Alice for Bob would be given
        # those same ids, which 65 now holds, so it is refused and stores nothing.
        bob_ids = sorted(e["event_id"] for e in bobs["preference_events"])
        await call.ok("memory_delete_user_data", {"user_id": BOB, "confirm": True})
        await call.ok("memory_import_user_data", {"user_id": 65, "data": bobs, "confirm": True})
        error = await call.error(
            "memory_import_user_data", {"user_id": BOB, "data": alices, "confirm": True}, "CONFLICT"
        )
        assert error["details"]["reason"] == "event_id_taken" and error["details"]["event_ids"] == bob_ids
        assert (await export_of(call, BOB))["preference_events"] == [] and (await export_of(call, BOB))[
            "profile"
        ] is None


async def test_the_command_line_copies_a_user(settings: Settings, tmp_path: Path) -> None:
    async with connected(settings) as call:
        await rich(call, ALICE)
        data = (await call.ok("memory_export_user_data", {"user_id": ALICE}))["data"]
        before_export = await export_of(call, ALICE)
    export_file = tmp_path / "alice.json"
    export_file.write_text(json.dumps({"user_id": ALICE, "data": data}))
    done = cli(settings, "import", "--file", str(export_file), "--user-id", str(BOB))
    assert f"imported for user {BOB}" in done.stderr and "9 preference_events" in done.stderr, done.stderr
    async with connected(settings) as call:
        assert await export_of(call, ALICE) | {"as_of": None} == before_export | {"as_of": None}
        original, copied = await answers(call, ALICE), await answers(call, BOB)
        await assert_reads_alike(call, original, copied)
