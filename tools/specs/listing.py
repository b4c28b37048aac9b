"""The tool listing of the session a call came in on, for the one tool that changes it
(``memory_enable_toolsets``). Set around every tool call by the server; unset on surfaces that have
no tool listing (the memory page), where enabling toolsets means nothing.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Protocol


class SessionListing(Protocol):
    async def enable(self, toolsets: list[str]) -> dict[str, Any]:
        """List these toolsets too, tell the client its tool list changed; ``{enabled, added}``."""
        ...


current_listing: ContextVar[SessionListing | None] = ContextVar("current_listing", default=None)
