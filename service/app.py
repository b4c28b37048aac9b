"""App assembly: the Starlette host owns the lifespan (database, recovery), the MCP server is
mounted inside it. In mcp 2.x ``MCPServer(lifespan=…)`` runs once per connection, so nothing
process-wide lives there."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

from service.memory import MemoryService
from service.settings import Settings
from service.storage import open_database
from tools import create_mcp_server

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


def build_app(settings: Settings) -> tuple[Starlette, MCPServer, ServiceHolder]:
    holder = ServiceHolder()
    mcp = create_mcp_server(holder, settings.tool_names)
    if settings.transport == "streamable-http":
        inner = mcp.streamable_http_app(host=settings.host)
    else:
        inner = mcp.sse_app(host=settings.host)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with running_service(settings, holder), contextlib.AsyncExitStack() as stack:
            if settings.transport == "streamable-http":
                await stack.enter_async_context(mcp.session_manager.run())
            log.info("taste memory ready on %s (%s store)", settings.transport, holder().database.engine)
            yield

    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> JSONResponse:
        service = holder.service
        ready = service is not None and await service.database.ping()
        body: dict[str, Any] = {"status": "ready" if ready else "unavailable"}
        if service is not None:
            body["engine"] = service.database.engine
        return JSONResponse(body, status_code=200 if ready else 503)

    app = Starlette(
        routes=[Route("/healthz", healthz), Route("/readyz", readyz), Mount("/", app=inner)],
        lifespan=lifespan,
    )
    return app, mcp, holder
