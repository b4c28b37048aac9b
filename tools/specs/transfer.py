"""Import of an export through a tool call (the CLI's ``memory-service import`` stays for big ones)."""

from __future__ import annotations

from typing import Any

from service.auth.policy import Access, Principal
from service.facade import MemoryService
from tools.specs.base import ASKS_USER, ENVELOPE, ToolSpec


async def import_user_data(service: MemoryService, a: dict[str, Any], caller: Principal) -> dict[str, Any]:
    # The target is the user_id argument (the one auth checked); ids inside data select nothing.
    data = a["data"]
    parts = data if isinstance(data, list) else [data]
    return await service.transfer.import_user(parts, a["user_id"], a.get("replace", False))


IMPORT_SPECS: list[ToolSpec] = [
    ToolSpec(
        "memory.import_user_data",
        "Import user data (memory.import_user_data)",
        "Load what memory_export_user_data exported (here or on another server) into user_id: pass data as "
        "result.data of the export, or, for an export that came in parts, the list of every part's result.data "
        "in order. Only when the user asks to bring their memory over; requires confirm: true. The whole "
        "request must stay within the server's request size limit (2 MiB by default); bigger exports are "
        "imported by an operator with the memory-service import command. Everything is checked before anything "
        "is stored: a malformed export is INVALID_ARGUMENT (details.field names data or data.<section>) and "
        "stores nothing. A user who already has data is CONFLICT with details.reason 'user_has_data' unless "
        "replace: true, which deletes that user's data and stores the export instead (nothing is deleted if the "
        "export is refused). Another user's export whose event ids are still stored is a copy: its preference "
        "events get ids of their own (the same on every import); an export of this same user whose event ids "
        "another user holds is CONFLICT with details.reason 'event_id_taken'. The import is exact: exporting the "
        "user afterwards gives the same records (a copy's event ids aside). Returns user_id, imported (counts per kind) and replaced."
        + ASKS_USER
        + ENVELOPE,
        import_user_data,
        read_only=False,
        destructive=True,
        idempotent=False,
        access=Access.WRITE,
    )
]
