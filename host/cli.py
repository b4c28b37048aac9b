"""``memory-service``: serve, seed, export, import, age and rederive. Every flag also reads ``MEMORY_…``."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn
from rich.table import Column, Table
from rich.text import Text

from host.logging_setup import configure_logging
from host.running import ServiceHolder, background_work, running_service
from models.schema_files import seed_profile
from service.audit.origin import CallOrigin, acting_as, new_request_id
from service.auth.tokens import TokenStore
from service.errors import DataDirectoryLocked, MemoryServiceError
from service.settings import Settings
from service.storage.embedded.lockfile import DataDirLock
from service.timeutil import parse_iso


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

DataDir = Annotated[Path | None, typer.Option(help="Embedded store directory (env MEMORY_DATA_DIR, default ./data)")]
MongoUri = Annotated[str | None, typer.Option(help="Real MongoDB URI (env MEMORY_MONGODB_URI)")]
UserId = Annotated[int, typer.Option(min=1, help="User id")]
TokenFile = Annotated[
    Path | None, typer.Option(help="Token file (env MEMORY_TOKEN_FILE, default DATA_DIR/tokens.json)")
]


def _settings(**flags: Any) -> Settings:
    return Settings(**{k: v for k, v in flags.items() if v is not None})


def _fail(message: str) -> None:
    # Messages name paths, ids and labels: printed literally, never read as Rich markup.
    err.print(f"[red]error:[/red] {escape(message)}")
    raise typer.Exit(1)


def _check_data_dir(settings: Settings) -> None:
    if settings.mongodb_uri:
        return
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    probe = DataDirLock(settings.data_dir)
    try:
        probe.acquire()
    except DataDirectoryLocked as exc:
        _fail(str(exc))
    probe.release()


@app.command()
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
            help="Comma-separated: core, ledger, tracks, memories, control, ops, or all (env MEMORY_TOOLSETS, default all)"
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
) -> None:
    """Run the MCP server: SSE at GET /sse + POST /messages/, streamable HTTP at /mcp, or stdio."""
    try:
        settings = _settings(
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
        )
    except ValueError as exc:
        _fail(str(exc))
    configure_logging(settings.log_level)
    _check_data_dir(settings)
    if settings.transport == "stdio":
        asyncio.run(_serve_stdio(settings))
        return
    if not settings.loopback and not _tokens(settings).configured():
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


def _tokens(settings: Settings) -> TokenStore:
    try:
        store = TokenStore(settings.tokens_path)
        store.records()
    except RuntimeError as exc:
        _fail(str(exc))
    return store


def _run(settings: Settings, work: Any, command: str, recover: bool = True) -> Any:
    async def main() -> Any:
        async with running_service(settings, ServiceHolder(), recover) as service:
            # What the CLI writes is audited like a tool call, as the machine's own user.
            with acting_as(CallOrigin("local", f"cli.{command}", new_request_id())):
                return await work(service)

    try:
        return asyncio.run(main())
    except DataDirectoryLocked as exc:
        _fail(str(exc))
    except MemoryServiceError as exc:
        _fail(exc.message)


@app.command()
def seed(user_id: UserId = 1, data_dir: DataDir = None, mongodb_uri: MongoUri = None) -> None:
    """Load the PRD §11 example taste profile for a user; a second run changes nothing."""
    settings = _settings(data_dir=data_dir, mongodb_uri=mongodb_uri)
    configure_logging("WARNING")

    async def work(service: Any) -> dict[str, Any]:
        before = await service.profiles.get(user_id)
        after = await service.profiles.update(user_id, seed_profile(), "Seed profile from PRD §11", "user", True)
        return {"changed": after["version"] != before["version"], "version": after["version"]}

    outcome = _run(settings, work, "seed")
    state = "loaded" if outcome["changed"] else "already loaded, nothing changed"
    err.print(f"seed profile for user {user_id}: {state} (profile version {outcome['version']})")


@app.command("export")
def export_command(
    user_id: UserId,
    out: Annotated[Path, typer.Option(help="File to write ('-' for stdout)")],
    data_dir: DataDir = None,
    mongodb_uri: MongoUri = None,
) -> None:
    """Write everything stored for a user as one JSON file, whatever its size."""
    settings = _settings(data_dir=data_dir, mongodb_uri=mongodb_uri)
    configure_logging("WARNING")

    async def work(service: Any) -> dict[str, Any]:
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), console=err) as progress:
            task = progress.add_task("exporting", total=None)
            counts: dict[str, int] = {}

            def tick(section: str) -> None:
                counts[section] = counts.get(section, 0) + 1
                progress.update(task, description=", ".join(f"{n} {s}" for s, n in counts.items()))

            data = await service.transfer.export_all(user_id, tick)
        return {"user_id": user_id, "exported_at": data["as_of"], "data": data}

    document = _run(settings, work, "export")
    text = json.dumps(document, ensure_ascii=False)
    if str(out) == "-":
        sys.stdout.write(text + "\n")
    else:
        out.write_text(text)
        err.print(f"wrote {escape(str(out))} ({len(text.encode()):,} bytes)")


@app.command("import")
def import_command(
    file: Annotated[Path, typer.Option(help="An export file (or a JSON list of export parts)")],
    user_id: Annotated[int | None, typer.Option(min=1, help="Import as this user (default: the export's)")] = None,
    data_dir: DataDir = None,
    mongodb_uri: MongoUri = None,
) -> None:
    """Load an export back; refuses a user who already has data."""
    settings = _settings(data_dir=data_dir, mongodb_uri=mongodb_uri)
    configure_logging("WARNING")
    loaded = json.loads(file.read_text())
    documents = loaded if isinstance(loaded, list) else [loaded]
    target = user_id or documents[0].get("user_id")
    if not isinstance(target, int):
        _fail("the export names no user_id; pass --user-id")
    parts = [d.get("data", d) for d in documents]
    counts = _run(settings, lambda service: service.transfer.import_counts(parts, target), "import")
    err.print(f"imported for user {target}: " + ", ".join(f"{n} {k}" for k, n in counts.items()))


@app.command()
def age(
    user_id: Annotated[int | None, typer.Option(min=1, help="Only this user (default: every user)")] = None,
    now: Annotated[str | None, typer.Option(help="Age as of this RFC 3339 time (default: now)")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List what would change, write nothing")] = False,
    data_dir: DataDir = None,
    mongodb_uri: MongoUri = None,
) -> None:
    """Age typed memories (importance 5-7 past 30 days: a gist; below 5 past 60 days: removed), recorded."""
    configure_logging("WARNING")
    try:
        moment = parse_iso(now) if now is not None else None
    except ValueError as exc:
        _fail(f"--now {now!r}: {exc}")

    async def work(service: Any) -> dict[str, Any]:
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), console=err) as progress:
            task = progress.add_task("aging", total=None)
            return await service.aging.run(
                moment,
                user_id,
                dry_run,
                lambda uid, counts: progress.update(
                    task, description=f"user {uid}: {counts['examined']} memories examined"
                ),
            )

    report = _run(_settings(data_dir=data_dir, mongodb_uri=mongodb_uri), work, "age")
    table = Table("user", Column("memory", overflow="fold"), "action", "rule", "before", "after")
    for change in report["changes"]:
        table.add_row(
            *(
                Text(str(change[k] or ""))
                for k in ("user_id", "memory_id", "action", "rule", "before_summary", "after_summary")
            )
        )
    Console().print(table)
    err.print(
        ("dry run, nothing written: " if dry_run else "memories aged: ")
        + ", ".join(f"{n} {what}" for what, n in report["counts"].items())
    )


DIFFERENCES_FOUND = 3  # rederive's exit code when the stored views differed from the records


@app.command(
    epilog=f"Exit codes: 0 no difference; {DIFFERENCES_FOUND} differences found (repaired unless "
    "--dry-run; a second run then reports none); 1 an error (the store could not be opened)."
)
def rederive(
    user_id: Annotated[int | None, typer.Option(min=1, help="Only this user (default: every user with data)")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Report the differences, repair nothing")] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as JSON on stdout instead of a table")
    ] = False,
    data_dir: DataDir = None,
    mongodb_uri: MongoUri = None,
) -> None:
    """Rebuild the derived views (playlist documents, counters, supersession marks, profile from its
    history, in-process indexes) from the records; report and repair every difference."""
    configure_logging("WARNING")

    async def work(service: Any) -> dict[str, Any]:
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), console=err) as progress:
            task = progress.add_task("rederiving", total=None)
            return await service.rederiver.rederive(
                user_id,
                dry_run,
                lambda uid, done, total: progress.update(task, description=f"user {uid} checked ({done}/{total})"),
            )

    # Without start-up recovery: it repairs heads and counters silently, and they must be reported.
    report = _run(_settings(data_dir=data_dir, mongodb_uri=mongodb_uri), work, "rederive", recover=False)
    if as_json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
    else:
        table = Table("user", "view", Column("key", overflow="fold"), "fields", Column("detail", overflow="fold"))
        for row in report["users"]:
            for found in row["differences"]:
                table.add_row(
                    *(
                        Text(v)
                        for v in (
                            str(row["user_id"]),
                            found["view"],
                            found["key"],
                            ", ".join(found["fields"]),
                            found["detail"],
                        )
                    )
                )
        if report["differences"]:
            Console().print(table)
    skipped = [
        f"user {row['user_id']} {note['view']}: {note['reason']}"
        for row in report["users"]
        for note in row["not_checked"]
    ]
    users = len(report["users"])
    if not report["differences"]:
        err.print(f"no difference: {users} users checked" + (f"; not checked: {'; '.join(skipped)}" if skipped else ""))
        return
    state = "dry run, nothing repaired" if dry_run else "repaired"
    err.print(
        f"{report['differences']} differences in {sum(1 for r in report['users'] if r['differences'])} "
        f"of {users} users ({state})" + (f"; not checked: {'; '.join(skipped)}" if skipped else "")
    )
    raise typer.Exit(DIFFERENCES_FOUND)


tokens_app = typer.Typer(
    help="Bearer tokens: a token is shown once at creation and stored hashed.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(tokens_app, name="token")
Role = Annotated[
    str, typer.Option(help="user: acts only for its user ids; operator: reads any user, deletes, ops tools")
]


@tokens_app.command("create")
def token_create(
    user_id: Annotated[list[int] | None, typer.Option(min=1, help="A user this token acts for (repeatable)")] = None,
    role: Role = "user",
    label: Annotated[str | None, typer.Option(help="A note for 'token list' (who or what holds it)")] = None,
    rate_limit_per_minute: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="Calls per minute for this token, 0 = no limit (default: the server's MEMORY_RATE_LIMIT_PER_MINUTE)",
        ),
    ] = None,
    data_dir: DataDir = None,
    token_file: TokenFile = None,
) -> None:
    """Create a token and print it once on stdout (keep it: only its hash is stored)."""
    if role not in ("user", "operator"):
        _fail("--role must be user or operator")
    store = _tokens(_settings(data_dir=data_dir, token_file=token_file))
    try:
        token, record = store.create(role, list(user_id or []), label, rate_limit_per_minute)  # type: ignore[arg-type]
    except ValueError as exc:
        _fail(str(exc))
    users = ", ".join(map(str, record.user_ids)) or "none"
    err.print(
        f"created {record.role} token {record.token_id} (users: {users}) in {escape(str(store.path))}; "
        "it is shown once, below:"
    )
    sys.stdout.write(token + "\n")


@tokens_app.command("list")
def token_list(
    data_dir: DataDir = None,
    token_file: TokenFile = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a table")] = False,
) -> None:
    """Every token: id, role, users, label, created, revoked (never the secret)."""
    rows = _tokens(_settings(data_dir=data_dir, token_file=token_file)).listing()
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    table = Table("token id", "role", "users", "label", "calls/min", "created", "revoked")
    for row in rows:
        limit = row.get("rate_limit_per_minute")
        # Labels are free text: a cell shows them literally ("[prod]" is not a style).
        table.add_row(
            *(
                Text(value)
                for value in (
                    row["token_id"],
                    row["role"],
                    ", ".join(map(str, row["user_ids"])),
                    row["label"] or "",
                    "server default" if limit is None else "no limit" if limit == 0 else str(limit),
                    row["created_at"],
                    row["revoked_at"] or "",
                )
            )
        )
    Console().print(table)


@tokens_app.command("revoke")
def token_revoke(
    token_id: Annotated[str, typer.Argument(help="The id shown by 'token list' (not the secret)")],
    data_dir: DataDir = None,
    token_file: TokenFile = None,
) -> None:
    """Revoke a token; a running server refuses it from its next call."""
    store = _tokens(_settings(data_dir=data_dir, token_file=token_file))
    try:
        record = store.revoke(token_id)
    except KeyError:
        _fail(f"no token with id {token_id} in {store.path}")
    err.print(f"token {record.token_id} revoked at {record.revoked_at}")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
