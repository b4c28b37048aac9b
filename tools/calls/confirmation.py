"""Confirmation by the user before destruction: ``memory_delete_user_data``, ``memory_forget`` and
``memory_import_user_data`` ask the person, through MCP elicitation, when the client declares it
can ask; ``confirm: true`` in the arguments is the model's word, this is the user's. Declined,
cancelled or unanswered: nothing happens and the call answers ``CONFLICT`` with ``details.reason``
``"declined"`` / ``"cancelled"`` / ``"unanswered"``. A client without the capability keeps the
PRD's contract: the ``confirm: true`` argument alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from mcp.server.elicitation import render_elicitation_schema
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from mcp_types.version import is_version_at_least
from pydantic import BaseModel, Field

from service.errors import NotConfirmedByUser


class Confirmation(BaseModel):
    confirm: bool = Field(description="Yes, do it (this cannot be undone)")


def _delete(a: dict[str, Any]) -> str:
    return (
        f"Delete everything Taste Memory stores about user {a['user_id']}: profile, preference history, "
        "playlists and their history, catalog, memories and plays? This cannot be undone."
    )


def _forget(a: dict[str, Any]) -> str:
    return (
        f"Forget the {a['kind'].replace('_', ' ')} {a['id']!r} of user {a['user_id']} everywhere (reads, search, "
        "export, context)? This cannot be undone."
    )


def _import(a: dict[str, Any]) -> str:
    if a.get("replace"):
        return (
            f"Replace everything Taste Memory stores about user {a['user_id']} with the imported data? What "
            "is stored now will be deleted; this cannot be undone."
        )
    return f"Import the given data as user {a['user_id']}'s memory?"


ASKS: dict[str, Callable[[dict[str, Any]], str]] = {
    "memory.delete_user_data": _delete,
    "memory.forget": _forget,
    "memory.import_user_data": _import,
}


def can_ask(context: Any) -> bool:
    """Whether the client on the other end of this call declared form elicitation (an empty
    ``elicitation`` object means form, as before modes existed; a URL-only client cannot be asked)."""
    try:
        declared = context.request_context.session.client_capabilities
    except (AttributeError, LookupError, ValueError):  # no request (called outside MCP)
        return False
    found = getattr(declared, "elicitation", None)
    return found is not None and (found.form is not None or found.url is None)


KEY = "confirm"  # the question's key in input_requests / input_responses
INPUT_REQUIRED_FROM = "2026-07-28"


def _digest(message: str) -> str:
    return hashlib.sha256(message.encode()).hexdigest()


def _judge(action: str, confirm: Any) -> None:
    if action == "accept" and confirm is True:
        return
    reason = "cancelled" if action == "cancel" else "declined"
    raise NotConfirmedByUser(f"the user {reason} the confirmation: nothing was changed", {"reason": reason})


def _unanswered() -> NotConfirmedByUser:
    return NotConfirmedByUser(
        "the user's confirmation could not be obtained: nothing was changed", {"reason": "unanswered"}
    )


async def confirmed_by_user(prd_name: str, arguments: dict[str, Any], context: Any) -> InputRequiredResult | None:
    """None when the call may go ahead (the user said yes, or cannot be asked); the question to
    return to the client when it must first be asked (2026-07-28); ``NotConfirmedByUser`` when the
    user did not say yes.

    Two wire forms, as the SDK's own resolvers do it (``mcp.server.mcpserver.resolve``): up to
    protocol 2025-11-25 the question is an ``elicitation/create`` request sent mid-call; from
    2026-07-28 the call answers an ``InputRequiredResult`` holding the question, and the client
    retries it with the answer (``input_responses``) and the echoed ``request_state``, a digest of
    the question, so an answer counts only for the question that was shown (another user id,
    another item: asked again)."""
    ask = ASKS.get(prd_name)
    if ask is None or not can_ask(context):
        return None
    message = ask(arguments)
    version = context.protocol_version
    if version is not None and is_version_at_least(version, INPUT_REQUIRED_FROM):
        answer = (context.input_responses or {}).get(KEY)
        if answer is None or context.request_state != _digest(message):
            question = ElicitRequest(
                params=ElicitRequestFormParams(
                    message=message, requested_schema=render_elicitation_schema(Confirmation)
                )
            )
            return InputRequiredResult(input_requests={KEY: question}, request_state=_digest(message))
        if not isinstance(answer, ElicitResult):
            raise _unanswered()
        _judge(answer.action, (answer.content or {}).get("confirm"))
        return None
    try:
        outcome = await context.elicit(message, Confirmation)
    except Exception as exc:  # the client failed to answer (an error reply, a bad form): not a yes
        raise _unanswered() from exc
    _judge(outcome.action, outcome.data.confirm if outcome.action == "accept" else None)
    return None
