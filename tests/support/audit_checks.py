"""What the end-to-end story tests check of a session's log lines and audit trail: one log line
per call in order, and every call that wrote attributed (tool, token, user) while no other call
left an entry."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from service.settings import Settings
from tests.host.test_observability import audit_vias


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
