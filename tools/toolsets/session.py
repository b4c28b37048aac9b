"""What each session lists: the deployment's toolsets, plus those it enabled in-band with
``memory_enable_toolsets``. Every tool stays callable; only ``tools/list`` is narrowed.

A session is the client's connection up to protocol 2025-11-25 (SSE, stdio, streamable HTTP with a
session id): its toolsets go when it closes, and it is told ``notifications/tools/list_changed``.
The 2026-07-28 protocol has no session (each request is its own connection), so there the toolsets
belong to the caller (its token; the machine's own user on stdio and in process), for the last
``CALLERS`` callers, and the change is published to ``subscriptions/listen`` streams.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Collection
from types import SimpleNamespace
from typing import Any

from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.subscriptions import SubscriptionBus, ToolsListChanged
from mcp_types import ListToolsResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tools.calls.identity import CallerIdentity
from tools.specs.catalog import TOOLSETS, listed_names
from tools.specs.listing import SessionListing

log = logging.getLogger("taste_memory.toolsets")

CALLERS = 1024  # sessionless callers whose enabled toolsets are kept (least recent go first)


class SessionToolsets:
    def __init__(
        self,
        toolsets: Collection[str] | None,
        identity: CallerIdentity,
        bus: SubscriptionBus,
        wire_name: Callable[[str], str],
    ) -> None:
        self._start = tuple(TOOLSETS) if toolsets is None else tuple(toolsets)
        self._identity = identity
        self._bus = bus
        self._wire_name = wire_name
        self._sessions: dict[object, tuple[str, ...]] = {}  # connection -> its toolsets
        self._callers: OrderedDict[str, tuple[str, ...]] = OrderedDict()  # principal name -> its toolsets

    def install(self, server: MCPServer) -> None:
        server.middleware.append(self._narrow_listing)

    def listing_for(self, context: Any) -> SessionListing:
        """The handle ``memory_enable_toolsets`` changes, for the request ``context`` belongs to."""
        return _Listing(self, context.request_context)

    def listed(self, ctx: ServerRequestContext[Any, Any]) -> frozenset[str]:
        return listed_names(self._toolsets_of(ctx))

    def _key(self, ctx: ServerRequestContext[Any, Any]) -> tuple[str, object] | None:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            principal = self._identity.resolve(SimpleNamespace(request_context=ctx))
            return None if principal is None else ("caller", principal.name)
        return ("session", ctx.session._connection)  # the SDK keeps the connection private

    def _toolsets_of(self, ctx: ServerRequestContext[Any, Any]) -> tuple[str, ...]:
        key = self._key(ctx)
        if key is None:
            return self._start
        kind, owner = key
        if kind == "caller":
            return self._callers.get(str(owner), self._start)
        return self._sessions.get(owner, self._start)

    async def enable(self, ctx: ServerRequestContext[Any, Any], wanted: list[str]) -> dict[str, Any]:
        before = self._toolsets_of(ctx)
        names = tuple(TOOLSETS) if "all" in wanted else tuple(wanted)
        after = before + tuple(name for name in names if name not in before)
        added = listed_names(after) - listed_names(before)
        key = self._key(ctx)  # never None here: the call pipeline has authenticated the caller
        if added and key is not None:
            kind, owner = key
            if kind == "caller":
                self._callers[str(owner)] = after
                self._callers.move_to_end(str(owner))
                while len(self._callers) > CALLERS:
                    self._callers.popitem(last=False)
            else:
                if owner not in self._sessions:
                    owner.exit_stack.callback(self._sessions.pop, owner, None)  # type: ignore[attr-defined]
                self._sessions[owner] = after
            await self._tell(ctx, modern=kind == "caller")
        return {"enabled": list(after), "added": sorted(self._wire_name(name) for name in added)}

    async def _tell(self, ctx: ServerRequestContext[Any, Any], modern: bool) -> None:
        """Never raises: the listing changed whatever becomes of the news."""
        try:
            if modern:
                await self._bus.publish(ToolsListChanged())
            else:
                await ctx.session.send_tool_list_changed()
        except Exception as exc:
            log.info("could not tell a client its tools changed", extra={"reason": type(exc).__name__})

    async def _narrow_listing(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        result = await call_next(ctx)
        if ctx.method != "tools/list" or result is None:
            return result
        listed = frozenset(self._wire_name(name) for name in self.listed(ctx))
        tools = ListToolsResult.model_validate(result) if isinstance(result, dict) else result
        if isinstance(tools, ListToolsResult):
            return tools.model_copy(update={"tools": [tool for tool in tools.tools if tool.name in listed]})
        return result


class _Listing:
    def __init__(self, toolsets: SessionToolsets, ctx: ServerRequestContext[Any, Any]) -> None:
        self._toolsets = toolsets
        self._ctx = ctx

    async def enable(self, toolsets: list[str]) -> dict[str, Any]:
        return await self._toolsets.enable(self._ctx, toolsets)
