"""App assembly: the Starlette host owns the lifespan (database, recovery, audit watcher), the
MCP server is mounted inside it. In mcp 2.x ``MCPServer(lifespan=…)`` runs once per connection,
so nothing process-wide lives there."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.audit.watcher import watching_audit
from service.auth import RateLimiter, TokenStore
from service.memory import MemoryService
from service.metrics import CONTENT_TYPE, ToolMetrics
from service.settings import LOOPBACK_HOSTS, Settings
from service.storage import open_database
from tools import create_mcp_server
from tools.identity import BearerTokens, StoreTokenVerifier
from tools.registry import CallPolicy

log = logging.getLogger("taste_memory")


class ServiceHolder:
    """Hands the tools the service the lifespan opened; a call before start-up is a bug."""

    def __init__(self) -> None:
        self.service: MemoryService | None = None

    def __call__(self) -> MemoryService:
        if self.service is None:
            raise RuntimeError("the service is not started")
        return self.service


@contextlib.asynccontextmanager
async def running_service(settings: Settings, holder: ServiceHolder) -> AsyncIterator[MemoryService]:
    async with open_database(settings) as db:
        service = MemoryService(db, settings)
        rebuilt = await service.recover()
        if rebuilt:
            log.warning("rolled %d playlist documents forward after an interrupted write", rebuilt)
        if db.engine == "embedded":
            entries, seconds = await service.build_search_index()
            log.info("search index built: %d entries in %.1f ms", entries, seconds * 1000)
        holder.service = service
        try:
            yield service
        finally:
            holder.service = None


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """DNS-rebinding guard, always on: the SDK enables it by itself only for a loopback bind, so
    a server on 0.0.0.0 (a container) would otherwise accept any Host header."""
    hosts = [f"{h}:*" for h in ("127.0.0.1", "localhost", "[::1]")] + ["127.0.0.1", "localhost", "[::1]"]
    origins = [f"http://{h}:*" for h in ("127.0.0.1", "localhost", "[::1]")]
    if settings.host not in (*LOOPBACK_HOSTS, "0.0.0.0", "::"):
        hosts += [settings.host, f"{settings.host}:*"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts + settings.allowed_hosts,
        allowed_origins=origins + settings.allowed_origins,
    )


class QuietRefusals:
    """The SDK's SSE endpoint answers a refused Host/Origin (421/403) and then raises, which the
    server would log as a crash with a trace for every probe; once the refusal is sent, that
    exception is the expected outcome, logged as one warning by the SDK already."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        answered = False

        async def tracking(message: Message) -> None:
            nonlocal answered
            answered = answered or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except ValueError as exc:
            if not (answered and str(exc) == "Request validation failed"):
                raise


def call_policy(settings: Settings, tokens: TokenStore, metrics: ToolMetrics) -> CallPolicy:
    limiter = RateLimiter(settings.rate_limit_per_minute, settings.rate_limit_burst)
    return CallPolicy(identity=BearerTokens(tokens), limiter=limiter, metrics=metrics)


def build_app(settings: Settings) -> tuple[Starlette, MCPServer, ServiceHolder]:
    holder = ServiceHolder()
    tokens = TokenStore(settings.tokens_path)
    metrics = ToolMetrics()
    mcp = create_mcp_server(holder, settings.tool_names, call_policy(settings, tokens, metrics))
    security = transport_security(settings)
    if settings.transport == "streamable-http":
        inner = mcp.streamable_http_app(host=settings.host, transport_security=security,
                                        max_request_body_size=settings.max_request_bytes)
    else:
        inner = mcp.sse_app(host=settings.host, transport_security=security,
                            max_request_body_size=settings.max_request_bytes)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with running_service(settings, holder) as service, contextlib.AsyncExitStack() as stack:
            # Real MongoDB: the change-stream watcher writes the audit log (idle on embedded).
            await stack.enter_async_context(watching_audit(service.database))
            if settings.transport == "streamable-http":
                await stack.enter_async_context(mcp.session_manager.run())
            if tokens.configured():
                log.info("bearer tokens required (%s)", settings.tokens_path)
            else:
                log.warning("no tokens in %s: open to any local caller on %s (loopback only)",
                            settings.tokens_path, settings.host)
            log.info("taste memory ready on %s (%s store)", settings.transport, holder().database.engine)
            yield

    # Outside the MCP endpoints nothing is authenticated: these routes show no user data.
    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> JSONResponse:
        service = holder.service
        ready = service is not None and await service.database.ping()
        body: dict[str, Any] = {"status": "ready" if ready else "unavailable"}
        if service is not None:
            body["engine"] = service.database.engine
        return JSONResponse(body, status_code=200 if ready else 503)

    async def metrics_endpoint(request: Request) -> Response:
        return Response(metrics.exposition(), media_type=CONTENT_TYPE)

    app = Starlette(
        routes=[
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics_endpoint),
            Mount("/", app=QuietRefusals(inner)),
        ],
        # The SDK's bearer backend verifies the token of every HTTP request (each SSE POST too)
        # and leaves the verdict on the request; the tools answer UNAUTHORIZED / FORBIDDEN.
        middleware=[Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(StoreTokenVerifier(tokens)))],
        lifespan=lifespan,
    )
    return app, mcp, holder
