"""``age`` and ``rederive``: the maintenance runs an operator starts by hand."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Column

from host.cli.base import AsJson, Command, DataDir, MongoUri, err, fail, run_on_service, settings_from
from host.cli.output import print_json, print_table, progress
from host.logging_setup import configure_logging
from service.facade import MemoryService
from service.timeutil import format_iso, parse_iso


def age(
    user_id: Annotated[int | None, typer.Option(min=1, help="Only this user (default: every user)")] = None,
    now: Annotated[str | None, typer.Option(help="Age as of this RFC 3339 time (default: now)")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List what would change, write nothing")] = False,
    as_json: AsJson = False,
    data_dir: DataDir = None,
    mongodb_uri: MongoUri = None,
) -> None:
    """Age typed memories (importance 5-7 past 30 days: a gist; below 5 past 60 days: removed), recorded."""
    configure_logging("WARNING")
    try:
        moment = parse_iso(now) if now is not None else None
    except ValueError as exc:
        fail(f"--now {now!r}: {exc}")

    async def work(service: MemoryService) -> dict[str, Any]:
        with progress() as spinner:
            task = spinner.add_task("aging", total=None)
            return await service.aging.run(
                moment,
                user_id,
                dry_run,
                lambda uid, counts: spinner.update(
                    task, description=f"user {uid}: {counts['examined']} memories examined"
                ),
            )

    # A dry run reads the file as it stands, beside a running server; a real run takes the store.
    settings = settings_from(data_dir=data_dir, mongodb_uri=mongodb_uri)
    report = run_on_service(settings, work, "age", readonly=dry_run)
    if as_json:
        print_json({**report, "now": format_iso(report["now"])})
    else:
        print_table(
            ["user", Column("memory", overflow="fold"), "action", "rule", "before", "after"],
            (
                [
                    str(change[k] or "")
                    for k in ("user_id", "memory_id", "action", "rule", "before_summary", "after_summary")
                ]
                for change in report["changes"]
            ),
        )
    err.print(
        ("dry run, nothing written: " if dry_run else "memories aged: ")
        + ", ".join(f"{n} {what}" for what, n in report["counts"].items())
    )


DIFFERENCES_FOUND = 3  # rederive's exit code when the stored views differed from the records


def rederive(
    user_id: Annotated[int | None, typer.Option(min=1, help="Only this user (default: every user with data)")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Report the differences, repair nothing")] = False,
    as_json: AsJson = False,
    data_dir: DataDir = None,
    mongodb_uri: MongoUri = None,
) -> None:
    """Rebuild the derived views (playlist documents, counters, supersession marks, profile from its
    history, in-process indexes) from the records; report and repair every difference."""
    configure_logging("WARNING")

    async def work(service: MemoryService) -> dict[str, Any]:
        with progress() as spinner:
            task = spinner.add_task("rederiving", total=None)
            return await service.rederiver.rederive(
                user_id,
                dry_run,
                lambda uid, done, total: spinner.update(task, description=f"user {uid} checked ({done}/{total})"),
            )

    # Without start-up recovery: it repairs heads and counters silently, and they must be reported.
    # A dry run repairs nothing: it reads the file as it stands, beside a running server too.
    settings = settings_from(data_dir=data_dir, mongodb_uri=mongodb_uri)
    report = run_on_service(settings, work, "rederive", recover=False, readonly=dry_run)
    if as_json:
        print_json(report)
    elif report["differences"]:
        print_table(
            ["user", "view", Column("key", overflow="fold"), "fields", Column("detail", overflow="fold")],
            (
                [str(row["user_id"]), found["view"], found["key"], ", ".join(found["fields"]), found["detail"]]
                for row in report["users"]
                for found in row["differences"]
            ),
        )
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


COMMANDS: list[Command] = [
    (age, {}),
    (
        rederive,
        {
            "epilog": f"Exit codes: 0 no difference; {DIFFERENCES_FOUND} differences found (repaired unless "
            "--dry-run; a second run then reports none); 1 an error (the store could not be opened)."
        },
    ),
]
