"""memory_import_user_data refuses an export lacking a field the reads take as given (a snapshot's
``source``, an event's ``source``, a memory's dates and ``seen_count``): INVALID_ARGUMENT naming
the section, nothing written, rather than INTERNAL half-way through the write (a snapshot's
``source``) or an import whose first read is INTERNAL (the others)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from service.settings import Settings
from tests.support import Caller, connected
from tests.support.contract import assert_valid_error
from tests.support.rich_user import comparable_export, export_parts, write_rich_user

ALICE, BOB, CAROL = 41, 42, 43


def first_snapshot_source(parts: list[dict[str, Any]]) -> None:
    """As an operator editing the export file would: the key deleted from the JSON text."""
    text = json.dumps(parts)
    assert '"source": "create"' in text
    parts[:] = json.loads(text.replace('"source": "create", ', "", 1))
    snapshots = [s for p in parts for entry in p["playlists"] for s in entry["snapshots"]]
    assert sum("source" not in s for s in snapshots) == 1


def drop_last(section: str, name: str) -> Callable[[list[dict[str, Any]]], None]:
    def mutate(parts: list[dict[str, Any]]) -> None:
        [p for p in parts if p.get(section)][-1][section][-1].pop(name)

    return mutate


# What is broken → (how, details.field, the word the message names).
BREAKS: dict[str, tuple[Callable[[list[dict[str, Any]]], None], str, str]] = {
    "a snapshot without its source": (first_snapshot_source, "data.playlists", "source"),
    "a preference event without its source": (
        drop_last("preference_events", "source"),
        "data.preference_events",
        "source",
    ),
    "a memory without its timestamp": (drop_last("memories", "timestamp"), "data.memories", "timestamp"),
    "a memory without its seen_count": (drop_last("memories", "seen_count"), "data.memories", "seen_count"),
    "a memory without its last_seen_at": (drop_last("memories", "last_seen_at"), "data.memories", "last_seen_at"),
}


async def stored_for(call: Caller, user: int) -> dict[str, int]:
    db = call.service.database
    counts = {c.name: await c.count_documents({"user_id": user}) for c in db.user_collections()}
    return {name: n for name, n in counts.items() if n}


async def test_an_export_lacking_what_reads_need_is_refused_and_writes_nothing(settings: Settings) -> None:
    async with connected(settings) as call:
        await write_rich_user(call, ALICE)
        parts = await export_parts(call, ALICE)
        await call.ok("memory_delete_user_data", {"user_id": ALICE, "confirm": True})
        await call.ok(
            "memory_add",
            {"user_id": CAROL, "type": "insight", "entities": ["Carol"], "summary": "Carol's own", "importance": 7},
        )
        carols = await comparable_export(call, CAROL)
        empty = await comparable_export(call, BOB)
        for label, (mutate, field, name) in BREAKS.items():
            data = copy.deepcopy(parts)
            mutate(data)
            for user, extra in ((BOB, {}), (CAROL, {"replace": True})):
                envelope = await call(
                    "memory_import_user_data", {"user_id": user, "data": data, "confirm": True, **extra}
                )
                error = assert_valid_error(envelope)
                assert error["code"] == "INVALID_ARGUMENT", f"{label} for {user}: {error}"
                assert error["details"]["field"] == field and name in error["message"], f"{label}: {error}"
            assert await stored_for(call, BOB) == {}, f"{label}: a rejected import wrote something"
            assert await comparable_export(call, BOB) == empty
            assert await comparable_export(call, CAROL) == carols, f"{label}: replace deleted or wrote something"
        # The same export, untouched, is accepted: the refusals were the missing fields.
        result = await call.ok("memory_import_user_data", {"user_id": BOB, "data": parts, "confirm": True})
        assert result["imported"]["playlists"] == 3 and result["imported"]["memories"] == 3
