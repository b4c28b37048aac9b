"""Resource subscriptions: who asked to hear about which ``memory://`` URI, and telling them after a
write. One object per server process, so a write through any session reaches every subscriber.

Subscribing passes the gates of a read that need no storage: a valid token within its rate, a URI
of ours, a user the token covers (refused as the read's ``NOT_FOUND``). A subscription to a
playlist not logged yet is accepted: it is told when the playlist is created.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import anyio
from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated
from mcp_types import EmptyResult, SubscribeRequestParams, UnsubscribeRequestParams

from service.audit.origin import new_request_id
from service.auth.policy import Access, authorize
from service.errors import NotFound
from tools.calls.pipeline import CallPipeline
from tools.calls.rpc_errors import NOT_FOUND_MESSAGE, rpc_error
from tools.resources.changes import change_of
from tools.resources.reading import checked
from tools.resources.uris import Address, match

log = logging.getLogger("taste_memory.subscriptions")

NOTIFY_SECONDS = 2.0  # a subscriber that cannot take a notification this fast is dropped, not waited on


@dataclass
class _Subscriber:
    session: ServerSession  # sends on its connection's standalone channel, not the finished request's
    uris: dict[str, Address] = field(default_factory=dict)


class Subscriptions:
    """Two protocol eras, one table of interest:

    - up to protocol 2025-11-25 (the SSE transport, the TypeScript SDK): ``resources/subscribe`` and
      ``resources/unsubscribe``, answered here (the SDK's MCPServer serves neither), and a
      ``notifications/resources/updated`` on the subscriber's connection; a connection's
      subscriptions go when it closes;
    - 2026-07-28 (``subscriptions/listen``, served by the SDK): a listen stream names its URIs up
      front; ``_listen_gate`` checks and records them while the stream is open, and a change is
      published on the SDK's bus, which delivers it to the streams that named that URI.
    """

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()  # give it to MCPServer(subscriptions=...): listen streams hang on it
        self._pipeline: CallPipeline | None = None
        self._sessions: dict[object, _Subscriber] = {}  # connection -> its resources/subscribe URIs
        self._listened: dict[str, tuple[Address, int]] = {}  # URI -> (address, open listen streams naming it)

    def install(self, server: MCPServer, pipeline: CallPipeline) -> None:
        self._pipeline = pipeline
        # MCPServer has no public seam for these two spec methods; the low-level server does.
        lowlevel = server._lowlevel_server
        lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, self._subscribe)
        lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, self._unsubscribe)
        server.middleware.append(self._listen_gate)

    def _admit(self, ctx: ServerRequestContext[Any, Any], uri: str) -> Address:
        assert self._pipeline is not None, "install() first"
        try:
            principal = self._pipeline.admit(SimpleNamespace(request_context=ctx))
            found = match(uri)
            if found is None:
                raise NotFound(NOT_FOUND_MESSAGE)
            address, _ = checked(*found)
            authorize(principal, Access.READ, address.user_id)
            return address
        except Exception as exc:
            raise rpc_error(exc, uri, new_request_id()) from None

    async def _subscribe(self, ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams) -> EmptyResult:
        address = self._admit(ctx, params.uri)
        # The connection outlives this request's session proxy; the SDK keeps it private.
        connection = ctx.session._connection
        subscriber = self._sessions.get(connection)
        if subscriber is None:
            subscriber = self._sessions[connection] = _Subscriber(ctx.session)
            connection.exit_stack.callback(self._sessions.pop, connection, None)
        subscriber.uris[params.uri] = address
        return EmptyResult()

    async def _unsubscribe(self, ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams) -> EmptyResult:
        # Only ever this connection's own subscription: nothing to gate, and a revoked token can still stop it.
        subscriber = self._sessions.get(ctx.session._connection)
        if subscriber is not None:
            subscriber.uris.pop(params.uri, None)
        return EmptyResult()

    async def _listen_gate(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        """Around a ``subscriptions/listen`` stream: admit its memory URIs, remember them while it is open."""
        if ctx.method != "subscriptions/listen":
            return await call_next(ctx)
        requested = ((ctx.params or {}).get("notifications") or {}).get("resourceSubscriptions") or []
        ours = {uri: self._admit(ctx, uri) for uri in requested if isinstance(uri, str) and match(uri) is not None}
        for uri, address in ours.items():
            self._listened[uri] = (address, self._listened.get(uri, (address, 0))[1] + 1)
        try:
            return await call_next(ctx)
        finally:
            for uri in ours:
                address, count = self._listened[uri]
                if count > 1:
                    self._listened[uri] = (address, count - 1)
                else:
                    del self._listened[uri]

    async def changed(self, tool: str, arguments: dict[str, Any]) -> None:
        """After a successful write: tell every subscriber of a URI it may have changed. Never raises:
        the write is done whatever becomes of the news."""
        try:
            await self._tell(tool, arguments)
        except Exception:
            log.exception("telling subscribers failed")

    async def _tell(self, tool: str, arguments: dict[str, Any]) -> None:
        change = change_of(tool, arguments)
        if change is None:
            return
        for connection, subscriber in list(self._sessions.items()):
            for uri in [u for u, address in subscriber.uris.items() if change.touches(address)]:
                try:
                    with anyio.fail_after(NOTIFY_SECONDS):
                        await subscriber.session.send_resource_updated(uri)
                except Exception as exc:  # gone or stuck: its subscriptions go with it
                    log.info("dropping a subscriber", extra={"reason": type(exc).__name__})
                    self._sessions.pop(connection, None)
                    break
        for uri, (address, _) in list(self._listened.items()):
            if change.touches(address):
                await self.bus.publish(ResourceUpdated(uri))
