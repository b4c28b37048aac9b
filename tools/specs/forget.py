"""Forget one item: a preference event, memory, play, playlist or profile field."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ToolSpec


async def forget(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    return await service.forgetter.forget(a["user_id"], a["kind"], a["id"])


FORGET_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.forget",
        "Forget one item (memory.forget)",
        "Call only when the user explicitly asks to forget one thing ('forget that I said I hate jazz'): it is gone "
        "from every read, search, export and context block; cannot be undone. Needs confirm: true, and the user is "
        "asked to confirm too when your client supports elicitation. To erase everything use "
        "memory_delete_user_data.",
        forget,
        read_only=False,
        destructive=True,
        idempotent=False,
        access=Access.DELETE,
        gated=False,
    )
]
