"""What the tests over SSE check of a session's log lines and audit trail: the ``tool call`` log
lines, the audit trail read page by page (and, on MongoDB, again until the watcher has written it),
and one log line per call in order with every call that wrote attributed (tool, token, user) while
no other call left an entry."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Collection
from typing import Any

from service.settings import Settings
from tests.support.mcp_sessions import WireCaller
from tests.support.server_process import ServerProcess

AUDIT_WAIT = 30.0  # seconds the MongoDB watcher gets to write the entries of the calls just made


def tool_call_lines(server: ServerProcess) -> list[dict[str, Any]]:
    lines = []
    for raw in server.stderr_text().splitlines():
        if raw.startswith("{"):
            line = json.loads(raw)
            if line.get("event") == "tool call":
                lines.append(line)
    return lines


async def audit_entries(call: WireCaller, **filters: Any) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    arguments: dict[str, Any] = {**filters, "limit": 7}  # small pages: the cursor is exercised
    while True:
        page = await call.ok("ops_audit", arguments)
        entries += page["entries"]
        if page["next_cursor"] is None:
            return entries
        arguments = {**filters, "limit": 7, "cursor": page["next_cursor"]}


def audit_vias(settings: Settings) -> set[str]:
    """The ``via`` of the entries of ordinary writes on this backend."""
    return {"change_stream", "backfill"} if settings.mongodb_uri else {"write_path"}


async def settled_entries(
    call: WireCaller, settings: Settings, done: Callable[[list[dict[str, Any]]], bool], **filters: Any
) -> list[dict[str, Any]]:
    """``audit_entries`` once ``done`` holds for them: at once on the embedded engine (its entries
    are committed with the change), within AUDIT_WAIT on MongoDB (the watcher writes them later)."""
    deadline = time.monotonic() + (AUDIT_WAIT if settings.mongodb_uri else 0.0)
    while True:
        entries = await audit_entries(call, **filters)
        if done(entries) or time.monotonic() >= deadline:
            return entries
        await asyncio.sleep(0.25)


def assert_logged_and_audited(
    made: list[str],
    logged: list[dict[str, Any]],
    trail: list[dict[str, Any]],
    writes: Collection[str],
    token_id: str,
    user_id: int,
    settings: Settings,
    wrote_nothing: Collection[int] = (),
) -> None:
    """``made``: the wire names called, in order; ``writes``: PRD names of the tools that write;
    ``wrote_nothing``: positions in ``made`` of write calls that changed nothing (no entry)."""
    assert [line["tool"] for line in logged][-len(made) :] == [m.replace("_", ".", 1) for m in made]
    by_request: dict[str, list[dict[str, Any]]] = {}
    for entry in trail:
        by_request.setdefault(entry["request_id"], []).append(entry)
    for position, line in enumerate(logged[-len(made) :]):
        entries = by_request.get(line["request_id"], [])
        if line["tool"] in writes and position not in wrote_nothing:
            assert entries, f"no audit entry for {line['tool']}"
            assert {(e["tool"], e["principal"], e["user_id"]) for e in entries} == {(line["tool"], token_id, user_id)}
            assert {e["via"] for e in entries} <= audit_vias(settings)
            assert {e["source"] for e in entries} == {"mcp"}  # an agent's call, not the page's
        else:
            assert not entries, f"{line['tool']} wrote: {entries}"
