"""Import of an export through a tool call (the CLI's ``memory-service import`` stays for big ones)."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ToolSpec


async def import_user_data(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    # The target is the user_id argument (the one auth checked); ids inside data select nothing.
    data = a["data"]
    parts = data if isinstance(data, list) else [data]
    return await service.transfer.import_user(parts, a["user_id"], a.get("replace", False))


IMPORT_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.import_user_data",
        "Import user data (memory.import_user_data)",
        "Call only when the user asks to bring their memory over from an export (memory_export_user_data, here or "
        "elsewhere). Needs confirm: true, and the user is asked to confirm too when your client supports "
        "elicitation. A user who has data needs replace: true. A refused import stores nothing. Returns counts "
        "imported.",
        import_user_data,
        read_only=False,
        destructive=True,
        idempotent=False,
        access=Access.WRITE,
    )
]
