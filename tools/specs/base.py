"""What every tool declaration carries: PRD name, title, model-facing description, hints, adapter."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService

Handler = Callable[[MemoryService, dict[str, Any], Principal], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class ToolSpec:
    prd_name: str
    title: str
    description: str
    handler: Handler
    read_only: bool
    destructive: bool
    idempotent: bool
    access: Access | None  # None: no user's data (the tool listing)
    # Subject to the user's switches (memory off / paused); the switch tools and deletion are not.
    gated: bool = True


ENVELOPE = (
    " Answers {success, result} or {success:false, error:{code, message, details}}; "
    "error codes: INVALID_ARGUMENT (details.field names the bad field), NOT_FOUND, CONFLICT, UNAUTHORIZED (no valid "
    "bearer token), FORBIDDEN (the token does not cover this user), RATE_LIMITED (retry after "
    "details.retry_after_s), DB_ERROR, INTERNAL."
)

# The three destructive tools (tools/calls/confirmation.py): the user is asked too, when the client can ask.
ASKS_USER = (
    " If your client supports elicitation the user is also asked to confirm; anything but yes changes nothing "
    "and answers CONFLICT with details.reason 'declined', 'cancelled' or 'unanswered'."
)
