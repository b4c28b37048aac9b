"""``import-history``: years of listening (Spotify's data download, Last.fm pages) as plays."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

from host.cli.base import AsJson, Command, DataDir, MongoUri, UserId, err, run_on_service, settings_from
from host.cli.output import print_json, print_table
from host.logging_setup import configure_logging
from service.facade import MemoryService
from service.history.importer import Outcome
from service.history.plan import AUTO, FORMATS


def _bar() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
        console=err,
        redirect_stdout=False,
    )


def import_history(
    path: Annotated[Path, typer.Argument(help="A JSON file, a folder of them, or the ZIP as downloaded")],
    user_id: UserId,
    history_format: Annotated[
        str, typer.Option("--format", help=f"{AUTO} (recognised per file), " + ", ".join(FORMATS))
    ] = AUTO,
    include_private: Annotated[
        bool, typer.Option("--include-private", help="Also import what was played in a private session")
    ] = False,
    as_json: AsJson = False,
    data_dir: DataDir = None,
    mongodb_uri: MongoUri = None,
) -> None:
    """Import a listening history as plays; a second run of the same files changes nothing."""
    configure_logging("WARNING")

    async def work(service: MemoryService) -> Outcome:
        with _bar() as bar:
            task = bar.add_task("importing", total=None)

            def shown(read: int, total: int, name: str) -> None:
                bar.update(task, completed=read, total=total, description=escape(name.rsplit("/", 1)[-1]))

            # Refused, before anything is read, for a quarantined user and one whose memory is off or paused.
            return await service.history.import_history(user_id, path, history_format, include_private, shown)

    settings = settings_from(data_dir=data_dir, mongodb_uri=mongodb_uri)
    outcome = run_on_service(settings, work, "import-history")
    report: dict[str, Any] = outcome.report.as_json()
    if as_json:
        print_json(report)
    else:
        print_table(["what", "count"], ([k, "" if v is None else str(v)] for k, v in report.items()))
    for file in outcome.files:
        if file.report is None:
            err.print(f"left out {escape(file.name)}: {escape(file.note)}")
    err.print(
        f"history imported for user {user_id}: {report['plays']} plays, {report['skips']} skips, "
        f"{report['duplicates']} duplicates of {report['entries']} entries"
    )


COMMANDS: list[Command] = [(import_history, {"name": "import-history"})]
