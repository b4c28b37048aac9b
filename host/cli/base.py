"""What every command shares: the Typer app, the common flags, settings from flags over ``MEMORY_…``,
and running work on the service as the machine's own user."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from host.running import ServiceHolder, running_service
from service.audit.origin import CallOrigin, acting_as, new_request_id
from service.auth.tokens import TokenStore
from service.errors import DataDirectoryLocked, MemoryServiceError
from service.facade import MemoryService
from service.settings import Settings
from service.storage.embedded.lockfile import DataDirLock


def _environment_help() -> str:
    lines = [
        f"{'MEMORY_' + name.upper()}: {field.description or name.replace('_', ' ')}"
        for name, field in Settings.model_fields.items()
    ]
    return "Every setting is read from the environment; command flags override it.\n\n" + "\n\n".join(lines)


app = typer.Typer(
    help="Taste Memory: persistent taste profile and playlist ledger served as MCP tools.",
    epilog=_environment_help(),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


err = Console(stderr=True)
# A command function and the options ``app.command`` takes for it.
Command = tuple[Callable[..., None], dict[str, Any]]


DataDir = Annotated[Path | None, typer.Option(help="Embedded store directory (env MEMORY_DATA_DIR, default ./data)")]


MongoUri = Annotated[str | None, typer.Option(help="Real MongoDB URI (env MEMORY_MONGODB_URI)")]


UserId = Annotated[int, typer.Option(min=1, help="User id")]


TokenFile = Annotated[
    Path | None, typer.Option(help="Token file (env MEMORY_TOKEN_FILE, default DATA_DIR/tokens.json)")
]


def settings_from(**flags: Any) -> Settings:
    return Settings(**{k: v for k, v in flags.items() if v is not None})


def fail(message: str) -> NoReturn:
    # Messages name paths, ids and labels: printed literally, never read as Rich markup.
    err.print(f"[red]error:[/red] {escape(message)}")
    raise typer.Exit(1)


def check_data_dir(settings: Settings) -> None:
    if settings.mongodb_uri:
        return
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    probe = DataDirLock(settings.data_dir)
    try:
        probe.acquire()
    except DataDirectoryLocked as exc:
        fail(str(exc))
    probe.release()


def token_store(settings: Settings) -> TokenStore:
    try:
        store = TokenStore(settings.tokens_path)
        store.records()
    except RuntimeError as exc:
        fail(str(exc))
    return store


T = TypeVar("T")


def run_on_service(
    settings: Settings,
    work: Callable[[MemoryService], Awaitable[T]],
    command: str,
    recover: bool = True,
    readonly: bool = False,
    source: Path | None = None,
) -> T:
    """``work`` on the opened store; ``readonly``: beside a running server, writing nothing."""

    async def main() -> T:
        async with running_service(settings, ServiceHolder(), recover, readonly, source) as service:
            # What the CLI writes is audited like a tool call, as the machine's own user.
            with acting_as(CallOrigin("local", f"cli.{command}", new_request_id())):
                return await work(service)

    try:
        return asyncio.run(main())
    except DataDirectoryLocked as exc:
        fail(str(exc))
    except MemoryServiceError as exc:
        fail(exc.message)
