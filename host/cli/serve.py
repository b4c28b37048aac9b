"""``memory-service serve``: the MCP server over SSE, streamable HTTP or stdio."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer
from rich.markup import escape

from host.cli.base import (
    Command,
    DataDir,
    MongoUri,
    TokenFile,
    announce_store,
    check_data_dir,
    err,
    fail,
    settings_from,
    token_store,
)
from host.logging_setup import configure_logging
from host.running import ServiceHolder, background_work, running_service
from service.settings import Settings


def serve(
    transport: Annotated[
        str | None, typer.Option(help="sse | streamable-http | stdio (env MEMORY_TRANSPORT, default sse)")
    ] = None,
    host: Annotated[str | None, typer.Option(help="Bind address (env MEMORY_HOST, default 127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="Port (env MEMORY_PORT, default 8765)")] = None,
    data_dir: DataDir = None,
    mongodb_uri: MongoUri = None,
    tool_names: Annotated[
        str | None, typer.Option(help="plain | dotted (env MEMORY_TOOL_NAMES, default plain)")
    ] = None,
    log_level: Annotated[str | None, typer.Option(help="DEBUG | INFO | WARNING | ERROR (env MEMORY_LOG_LEVEL)")] = None,
    token_file: TokenFile = None,
    toolsets: Annotated[
        str | None,
        typer.Option(
            help="Listed at session start, comma-separated: core, everyday, ledger, tracks, memories, control, ops, "
            "or all (env MEMORY_TOOLSETS, default core,everyday)"
        ),
    ] = None,
    stdio_user_ids: Annotated[
        str | None,
        typer.Option(
            help="stdio: the users this server acts for, comma-separated (env MEMORY_STDIO_USER_IDS; unset: any user)"
        ),
    ] = None,
    semantic_search: Annotated[
        str | None,
        typer.Option(help="on | off: search by meaning as well as by words (env MEMORY_SEMANTIC_SEARCH, default on)"),
    ] = None,
    ui: Annotated[
        str | None,
        typer.Option(help="on | off: the memory page at /ui/ on the HTTP transports (env MEMORY_UI, default on)"),
    ] = None,
    max_history_upload_bytes: Annotated[
        int | None,
        typer.Option(
            help="Memory page: largest listening-history upload in bytes "
            "(env MEMORY_MAX_HISTORY_UPLOAD_BYTES, default 536870912)"
        ),
    ] = None,
    oauth: Annotated[
        str | None,
        typer.Option(
            help="auto | on | off: OAuth 2.1 for remote MCP clients; auto = on whenever tokens are required "
            "(env MEMORY_OAUTH, default auto; off answers a tokenless call in band, as before)"
        ),
    ] = None,
    public_url: Annotated[
        str | None,
        typer.Option(
            help="The address clients reach this server at, the OAuth issuer (env MEMORY_PUBLIC_URL; unset on "
            "loopback: http://127.0.0.1:PORT)"
        ),
    ] = None,
    oauth_access_token_minutes: Annotated[
        int | None, typer.Option(help="OAuth access-token lifetime (env MEMORY_OAUTH_ACCESS_TOKEN_MINUTES, default 60)")
    ] = None,
    oauth_refresh_token_days: Annotated[
        int | None, typer.Option(help="OAuth refresh-token lifetime (env MEMORY_OAUTH_REFRESH_TOKEN_DAYS, default 30)")
    ] = None,
) -> None:
    """Run the MCP server: SSE at GET /sse + POST /messages/, streamable HTTP at /mcp, or stdio."""
    try:
        settings = settings_from(
            transport=transport,
            host=host,
            port=port,
            data_dir=data_dir,
            mongodb_uri=mongodb_uri,
            tool_names=tool_names,
            log_level=log_level,
            token_file=token_file,
            toolsets=toolsets,
            stdio_user_ids=stdio_user_ids,
            semantic_search=semantic_search,
            ui=ui,
            max_history_upload_bytes=max_history_upload_bytes,
            oauth=oauth,
            public_url=public_url,
            oauth_access_token_minutes=oauth_access_token_minutes,
            oauth_refresh_token_days=oauth_refresh_token_days,
        )
    except ValueError as exc:
        fail(str(exc))
    configure_logging(settings.log_level)
    announce_store(settings)
    check_data_dir(settings)
    if settings.transport == "stdio":
        asyncio.run(_serve_stdio(settings))
        return
    if not settings.loopback and not token_store(settings).configured():
        err.print(
            f"[red]error:[/red] refusing to listen on {escape(settings.host)} without authentication: anyone "
            f"who reaches this port could read and change every user's memory. Create a token first "
            f"('memory-service token create --user-id N', stored in {escape(str(settings.tokens_path))}) or bind "
            f"127.0.0.1."
        )
        raise typer.Exit(2)
    import uvicorn

    from host.app import build_app  # the HTTP host and the MCP stack: only ``serve`` needs them

    starlette_app, _, _ = build_app(settings)
    uvicorn.run(
        starlette_app, host=settings.host, port=settings.port, log_level=settings.log_level.lower(), log_config=None
    )


async def _serve_stdio(settings: Settings) -> None:
    from tools.calls.identity import StdioIdentity
    from tools.calls.policy import CallPolicy
    from tools.server import create_mcp_server

    holder = ServiceHolder()
    policy = CallPolicy(identity=StdioIdentity(settings.stdio_user_ids))
    mcp = create_mcp_server(holder, settings.tool_names, policy, settings.toolsets)
    async with running_service(settings, holder) as service, background_work(service, settings):
        await mcp.run_stdio_async()


COMMANDS: list[Command] = [(serve, {})]
