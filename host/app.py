"""App assembly: the Starlette host owns the lifespan (database, recovery, audit watcher), the
MCP server is mounted inside it. In mcp 2.x ``MCPServer(lifespan=…)`` runs once per connection,
so nothing process-wide lives there."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend
from mcp.server.auth.provider import TokenVerifier
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from host.loop_lag import watching_loop_lag
from host.metrics import CONTENT_TYPE, ToolMetrics
from host.oauth.challenge import OAuthChallenge
from host.oauth.wiring import EitherTokenVerifier, OAuthHost, oauth_host, oauth_routes
from host.running import ServiceHolder, background_work, running_service
from service.auth.ratelimit import RateLimiter
from service.auth.tokens import TokenStore
from service.settings import LOOPBACK_HOSTS, Settings
from tools.calls.identity import BearerTokens, StoreTokenVerifier
from tools.calls.pipeline import CallPipeline
from tools.calls.policy import CallPolicy
from tools.resources.subscriptions import Subscriptions
from tools.server import create_mcp_server, tool_calls
from ui.api import SessionIdentity
from ui.history_jobs import HistoryJobs
from ui.routes import ui_routes
from ui.uploads import sweep, upload_root

log = logging.getLogger("taste_memory")


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


class SessionAdmission:
    """Streamable HTTP: once tokens exist, only a verified, active token opens a stateful session.

    The SDK's session manager keeps a session for every ``initialize`` (30 minutes after its last
    request, 10,000 at most, then 503 for everyone): without this, a caller with no token could
    fill that table and lock every token holder out. A request that would open a session without
    a valid token is served statelessly instead: the same answers (its tool calls are
    UNAUTHORIZED), nothing kept. Requests naming a session go to the stateful manager, which
    answers only the credential that opened it.
    """

    def __init__(self, stateful: ASGIApp, stateless: ASGIApp, identity: BearerTokens) -> None:
        self.stateful = stateful
        self.stateless = stateless
        self.identity = identity

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Only a POST can open a session (a GET or DELETE without a session id is answered 400 by
        # the stateful manager, as before; served statelessly a GET would hold an empty stream).
        names_session = any(name == b"mcp-session-id" for name, _ in scope.get("headers", ()))
        if names_session or scope.get("method") != "POST" or self.identity.of_scope(scope) is not None:
            await self.stateful(scope, receive, send)
        else:
            await self.stateless(scope, receive, send)


def bearer_identity(settings: Settings, tokens: TokenStore) -> BearerTokens:
    # Open without tokens only on loopback: a server beyond it never turns open at run time.
    return BearerTokens(tokens, open_when_empty=settings.loopback)


def challenged(inner: ASGIApp, oauth: OAuthHost | None, identity: BearerTokens) -> ASGIApp:
    """The MCP endpoints behind OAuth's 401 while tokens are required (never in open mode)."""
    if oauth is None:
        return inner
    return OAuthChallenge(inner, oauth.resource_metadata_url, lambda: identity.of_scope({}) is None)


def call_policy(settings: Settings, identity: BearerTokens, metrics: ToolMetrics) -> CallPolicy:
    limiter = RateLimiter(settings.rate_limit_per_minute, settings.rate_limit_burst)
    return CallPolicy(identity=identity, limiter=limiter, metrics=metrics)


def build_app(settings: Settings) -> tuple[Starlette, MCPServer, ServiceHolder]:
    holder = ServiceHolder()
    tokens = TokenStore(settings.tokens_path)
    metrics = ToolMetrics()
    metrics.watch_store(lambda: holder.service.database.health() if holder.service is not None else None)
    identity = bearer_identity(settings, tokens)
    base_url = settings.base_url
    oauth = oauth_host(settings, base_url) if base_url and settings.oauth_enabled(tokens.configured()) else None
    verifier: TokenVerifier = StoreTokenVerifier(tokens)
    if oauth is not None:
        verifier = EitherTokenVerifier(StoreTokenVerifier(tokens), oauth.provider)
    policy = call_policy(settings, identity, metrics)
    subscriptions = Subscriptions()  # the page's writes reach MCP subscribers too
    mcp = create_mcp_server(holder, settings.tool_names, policy, settings.toolsets, subscriptions)
    security = transport_security(settings)
    # The memory page: the same call path, rate limiter and metrics, its principal from its session.
    # Plain wire names whatever MEMORY_TOOL_NAMES says: the page is ours and names them one way.
    page_policy = replace(policy, identity=SessionIdentity(), changed=subscriptions.changed)
    imports = HistoryJobs()  # the page's history imports, running in this server
    page = (
        ui_routes(
            settings,
            tokens,
            tool_calls(holder, "plain", page_policy),
            security,
            CallPipeline(holder, page_policy),
            imports,
            oauth.server if oauth is not None else None,
        )
        if settings.ui == "on"
        else []
    )
    anonymous: StreamableHTTPSessionManager | None = None
    if settings.transport == "streamable-http":
        mcp.streamable_http_app(
            host=settings.host, transport_security=security, max_request_body_size=settings.max_request_bytes
        )
        anonymous = StreamableHTTPSessionManager(
            app=mcp.session_manager.app,
            stateless=True,
            security_settings=security,
            max_request_body_size=settings.max_request_bytes,
        )
        admission = SessionAdmission(
            StreamableHTTPASGIApp(mcp.session_manager), StreamableHTTPASGIApp(anonymous), identity
        )
        inner = Starlette(routes=[Route("/mcp", endpoint=admission)])
    else:
        inner = mcp.sse_app(
            host=settings.host, transport_security=security, max_request_body_size=settings.max_request_bytes
        )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with running_service(settings, holder) as service, contextlib.AsyncExitStack() as stack:
            await stack.enter_async_context(background_work(service, settings))
            await stack.enter_async_context(watching_loop_lag(metrics.loop_lag.observe))
            root, owned = upload_root(settings)
            if owned and settings.ui == "on":  # what a killed server left of its uploads
                await asyncio.to_thread(sweep, root)
            stack.push_async_callback(imports.close)  # running imports stop, their uploads removed
            if anonymous is not None:
                await stack.enter_async_context(mcp.session_manager.run())
                await stack.enter_async_context(anonymous.run())
            if oauth is not None:
                log.info("OAuth authorization server on, issuer %s, resource %s", oauth.issuer, oauth.resource)
            if tokens.configured():
                log.info("bearer tokens required (%s)", settings.tokens_path)
            elif not settings.loopback:
                log.warning(
                    "no tokens in %s: every call on %s is refused until one is created",
                    settings.tokens_path,
                    settings.host,
                )
            else:
                log.warning(
                    "no tokens in %s: open to any local caller on %s (loopback only)",
                    settings.tokens_path,
                    settings.host,
                )
            log.info(
                "taste memory ready on %s (%s store); search by meaning: %s",
                settings.transport,
                holder().database.engine,
                holder().search.meaning_model or "off",
            )
            if settings.ui == "on":
                host = f"[{settings.host}]" if ":" in settings.host else settings.host
                log.info("memory page at http://%s:%d/ui/", host, settings.port)
            yield

    # Outside the MCP endpoints nothing is authenticated: these routes show no user data.
    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> JSONResponse:
        service = holder.service
        ready = service is not None and await service.database.ping()
        body: dict[str, Any] = {"status": "ready" if ready else "unavailable"}
        if service is not None:
            health = service.database.health()
            if ready and health["degraded"]:
                # Reads are served; writes fail until a commit succeeds again (space freed).
                ready = False
                body = {"status": "degraded", "reason": health["degraded"]}
            body["engine"] = service.database.engine
            body["search_by_meaning"] = service.search.meaning_model or "off"
            body["quarantined_users"] = len(health["quarantined_users"])
        return JSONResponse(body, status_code=200 if ready else 503)

    async def metrics_endpoint(request: Request) -> Response:
        return Response(metrics.exposition(), media_type=CONTENT_TYPE)

    app = Starlette(
        routes=[
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics_endpoint),
            *page,
            *(oauth_routes(oauth) if oauth is not None else []),
            Mount("/", app=QuietRefusals(challenged(inner, oauth, identity))),
        ],
        # The SDK's bearer backend verifies the token of every HTTP request (each SSE POST too)
        # and leaves the verdict on the request; the tools answer UNAUTHORIZED / FORBIDDEN.
        middleware=[Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(verifier))],
        lifespan=lifespan,
    )
    return app, mcp, holder
