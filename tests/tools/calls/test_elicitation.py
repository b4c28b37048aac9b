"""Confirmation by the user before destruction: memory_delete_user_data, memory_forget and
memory_import_user_data ask through elicitation when the client can be asked; accept goes on,
decline / cancel / a failed answer change nothing (CONFLICT); a client that cannot be asked keeps
the confirm argument alone; other tools never ask. Both wire forms: the modern protocol (the
question returned as an InputRequiredResult, the client retries with the answer) and the legacy
one (an elicitation/create request mid-call)."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitRequestParams, ElicitResult, ErrorData

from service.settings import Settings
from tests.support import Caller, connected
from tests.support.contract import assert_valid_error

USER = 1
MODES = ["auto", "legacy"]  # 2026-07-28 (input_required) and the initialize handshake (back-channel)


class Person:
    """The user behind the client: answers every question the same way, and remembers them."""

    def __init__(self, action: str, confirm: bool = True, fail: bool = False) -> None:
        self.action, self.confirm, self.fail = action, confirm, fail
        self.asked: list[ElicitRequestParams] = []

    async def __call__(self, context: Any, params: ElicitRequestParams) -> ElicitResult | ErrorData:
        self.asked.append(params)
        if self.fail:
            return ErrorData(code=-32603, message="the dialog crashed")
        content = {"confirm": self.confirm} if self.action == "accept" else None
        return ElicitResult(action=self.action, content=content)


async def seeded(call: Caller) -> dict[str, Any]:
    await call.ok(
        "memory_update_profile", {"user_id": USER, "patch": {"likes": ["Nightwish"]}, "create_if_missing": True}
    )
    event = await call.ok(
        "memory_append_preference_event",
        {"user_id": USER, "type": "like", "source": "user", "payload": {"artist": "Nightwish"}},
    )
    return {
        "event_id": event["event_id"],
        "export": (await call.ok("memory_export_user_data", {"user_id": USER}))["data"],
    }


def destructive_calls(found: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        "memory_forget": {"user_id": USER, "kind": "preference_event", "id": found["event_id"], "confirm": True},
        "memory_import_user_data": {"user_id": USER, "data": found["export"], "confirm": True, "replace": True},
        "memory_delete_user_data": {"user_id": USER, "confirm": True},
    }


async def stored(call: Caller) -> Any:
    data = (await call.ok("memory_export_user_data", {"user_id": USER}))["data"]
    return {k: v for k, v in data.items() if k != "as_of"}  # the export's own time


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool", ["memory_forget", "memory_import_user_data", "memory_delete_user_data"])
async def test_the_user_is_asked_and_yes_goes_ahead(settings: Settings, tool: str, mode: str) -> None:
    person = Person("accept")
    async with connected(settings, elicitation_callback=person, mode=mode) as call:
        found = await seeded(call)
        before = await stored(call)
        await call.ok(tool, destructive_calls(found)[tool])
        after = await stored(call)
    assert len(person.asked) == 1
    question = person.asked[0]
    assert (f"user {USER}" in question.message and "undone" in question.message) or tool == "memory_import_user_data"
    assert question.requested_schema["properties"]["confirm"]["type"] == "boolean"
    if tool != "memory_import_user_data":
        assert after != before  # it happened
    else:
        assert "Replace everything" in question.message


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool", ["memory_forget", "memory_import_user_data", "memory_delete_user_data"])
@pytest.mark.parametrize(
    ("person", "reason"),
    [
        (Person("decline"), "declined"),
        (Person("cancel"), "cancelled"),
        (Person("accept", confirm=False), "declined"),
        (Person("accept", fail=True), "unanswered"),
    ],
    ids=["decline", "cancel", "accept-but-no", "client-error"],
)
async def test_anything_but_yes_changes_nothing(
    settings: Settings, tool: str, person: Person, reason: str, mode: str
) -> None:
    person.asked.clear()
    async with connected(settings, elicitation_callback=person, mode=mode) as call:
        found = await seeded(call)
        before = await stored(call)
        if person.fail and mode == "auto":
            # The modern client cannot send an error as an answer: its call fails, the server never resumes.
            with pytest.raises(MCPError, match="the dialog crashed"):
                await call(tool, destructive_calls(found)[tool])
            error = None
        else:
            error = assert_valid_error(await call(tool, destructive_calls(found)[tool]))
        after = await stored(call)
        trail = (await call.ok("ops_audit", {"user_id": USER, "limit": 500}))["entries"]
    if error is not None:
        assert error["code"] == "CONFLICT" and error["details"]["reason"] == reason
        assert "nothing was changed" in error["message"]
    assert after == before and len(person.asked) == 1
    assert not any(e["operation"] in ("forget", "delete") for e in trail)


@pytest.mark.parametrize("tool", ["memory_forget", "memory_import_user_data", "memory_delete_user_data"])
async def test_a_client_that_cannot_ask_keeps_the_confirm_argument(settings: Settings, tool: str) -> None:
    async with connected(settings) as call:  # no elicitation callback: the capability is not declared
        found = await seeded(call)
        arguments = destructive_calls(found)[tool]
        refused = await call(tool, {**arguments, "confirm": False})
        await call.ok(tool, arguments)
    assert assert_valid_error(refused)["code"] == "INVALID_ARGUMENT"


async def test_other_tools_never_ask(settings: Settings) -> None:
    person = Person("decline")
    async with connected(settings, elicitation_callback=person) as call:
        await seeded(call)
        await call.ok("memory_update_profile", {"user_id": USER, "patch": {"likes": None}})
        await call.ok("memory_get_profile", {"user_id": USER})
    assert person.asked == []


async def test_a_refused_call_is_refused_before_asking(settings: Settings) -> None:
    person = Person("accept")
    async with connected(settings, elicitation_callback=person) as call:
        found = await seeded(call)
        await call.ok("memory_set_enabled", {"user_id": USER, "enabled": False})
        envelope = await call("memory_import_user_data", destructive_calls(found)["memory_import_user_data"])
        bad = await call("memory_forget", {"user_id": USER, "kind": "nonsense", "id": "x", "confirm": True})
    assert assert_valid_error(envelope)["details"]["reason"] == "memory_disabled"
    assert assert_valid_error(bad)["code"] == "INVALID_ARGUMENT"
    assert person.asked == []  # nobody is asked about a call that cannot go ahead
