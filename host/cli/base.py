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


# Summaries and errors stay one line each, so a log or ``grep`` sees them whole (a terminal wraps
# them itself).
err = Console(stderr=True, soft_wrap=True)
# A command function and the options ``app.command`` takes for it.
Command = tuple[Callable[..., None], dict[str, Any]]


DataDir = Annotated[Path | None, typer.Option(help="Embedded store directory (env MEMORY_DATA_DIR, default ./data)")]


MongoUri = Annotated[str | None, typer.Option(help="Real MongoDB URI (env MEMORY_MONGODB_URI)")]


# Every command with a report: the report as JSON on stdout, the human summary still on stderr.
AsJson = Annotated[bool, typer.Option("--json", help="Print the report as JSON on stdout instead of a table")]


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


def _mongodb_location(uri: str, database: str) -> str:
    """Scheme and hosts of ``uri`` with the database the service uses; never credentials or options.

    Split as the driver splits it: the hosts end at the first '/' (or '?' when there is no '/'),
    and userinfo is what precedes their last '@'. Options may carry secrets too, so they are
    dropped. An '@' only beyond the hosts may be a password holding an unescaped '/' (a URI the
    driver refuses), so then no host is shown either."""
    scheme, separator, rest = uri.partition("://")
    if not separator:
        return f"***/{database}"
    hosts, slash, _ = rest.partition("/")
    if not slash:
        hosts = hosts.partition("?")[0]
    if "@" in hosts:
        hosts = "***@" + hosts.rpartition("@")[2]
    elif "@" in rest:
        hosts = "***"
    return f"{scheme}://{hosts}/{database}"


def describe_store(settings: Settings, source: Path | None = None, readonly: bool = False) -> str:
    """Which store these settings open, e.g. ``embedded at /srv/tm/data``, safe to print
    (``source``: a file read instead of the data directory's, a backup)."""
    if settings.mongodb_uri:
        return f"mongodb at {_mongodb_location(settings.mongodb_uri, settings.database_name)}"
    where = f"file {source.resolve()}" if source is not None else f"at {settings.data_dir.resolve()}"
    return f"embedded {where}" + (" (read-only)" if readonly else "")


def announce_store(settings: Settings, source: Path | None = None, readonly: bool = False) -> None:
    # On stderr, first: a script or a log shows which store a run touched, even when it fails.
    err.print(f"store: {describe_store(settings, source, readonly)}", markup=False, highlight=False)


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
    err.print(f"store: tokens at {settings.tokens_path.resolve()}", markup=False, highlight=False)
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

    announce_store(settings, source, readonly)
    try:
        return asyncio.run(main())
    except DataDirectoryLocked as exc:
        fail(str(exc))
    except MemoryServiceError as exc:
        fail(exc.message)
