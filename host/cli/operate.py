"""``verify``, ``salvage``, ``backup`` and ``restore``: the store's safety, as an operator runs it.

The embedded store only: on MongoDB the same jobs are ``validate``, ``mongodump --oplog`` and
``mongorestore`` (README, "Operating it").
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from host.cli.base import (
    Command,
    DataDir,
    UserId,
    announce_store,
    check_data_dir,
    err,
    fail,
    run_on_service,
    settings_from,
)
from host.cli.output import print_json
from host.logging_setup import configure_logging
from service.facade import MemoryService
from service.operate.checks import verify as verify_service
from service.operate.salvage import salvage as salvage_service
from service.settings import Settings
from service.storage.embedded.backup import (
    BackupRefused,
    backup_problems,
    restore_backup,
    store_problems,
    take_backup,
    user_documents,
)
from service.storage.embedded.engine import JOURNAL_FILE

DAMAGE_FOUND = 3  # verify's exit code when anything failed a check
Json = Annotated[bool, typer.Option("--json", help="Print the report as JSON on stdout")]


def _embedded(data_dir: Path | None) -> Settings:
    settings = settings_from(data_dir=data_dir)
    if settings.mongodb_uri:
        fail("this command works on the embedded store; on MongoDB use validate, mongodump and mongorestore")
    return settings


def _print(report: dict[str, Any], as_json: bool, lines: list[str]) -> None:
    if as_json:
        print_json(report)
    else:
        for line in lines:
            sys.stdout.write(line + "\n")


def verify(
    backup: Annotated[Path | None, typer.Option(help="Check this backup file instead of the store")] = None,
    as_json: Json = False,
    data_dir: DataDir = None,
) -> None:
    """Check the store (or a backup): SQLite's integrity check, every record's checksum, and every
    derived view against its records. Read-only: works while the server runs."""
    configure_logging("CRITICAL")
    settings = _embedded(data_dir)
    path = backup or settings.data_dir / JOURNAL_FILE
    try:
        if backup is not None:
            manifest, problems = backup_problems(backup)
        else:
            manifest, problems = None, store_problems(path)
    except BackupRefused as exc:
        fail(str(exc))
    findings: dict[str, Any] = {"damaged": [], "differences": [], "quarantined_users": [], "users_checked": 0}
    if not problems or backup is None:
        findings = run_on_service(settings, verify_service, "verify", recover=False, readonly=True, source=path)
    clean = not problems and not findings["damaged"] and not findings["differences"]
    report = {"store": str(path.resolve()), "integrity": problems or "ok", "manifest": manifest, **findings}
    report["clean"] = clean
    lines = [f"integrity: {p}" for p in problems]
    lines += [f"damaged: user {d['user_id']} record {d['record']} ({d['reason']})" for d in findings["damaged"]]
    lines += [f"differs: user {d['user_id']} {d['view']} {d['key']} ({d['detail']})" for d in findings["differences"]]
    _print(report, as_json, lines)
    err.print("clean" if clean else f"damage found ({len(lines)} findings)")
    if not clean:
        raise typer.Exit(DAMAGE_FOUND)


def salvage(
    user_id: UserId,
    from_backup: Annotated[Path | None, typer.Option(help="Take this user's records from a backup file")] = None,
    as_json: Json = False,
    data_dir: DataDir = None,
) -> None:
    """Serve a quarantined user again: drop its damaged records (or take the user from a backup),
    rebuild the derived views and report exactly what was lost. The server must be stopped."""
    configure_logging("CRITICAL")
    settings = _embedded(data_dir)
    taken: list[tuple[str, dict[str, Any]]] | None = None
    manifest = None
    if from_backup is not None:
        try:
            manifest, taken = user_documents(from_backup, user_id)
        except BackupRefused as exc:
            fail(str(exc))

    async def work(service: MemoryService) -> dict[str, Any]:
        return await salvage_service(service, user_id, taken)

    report = run_on_service(settings, work, "salvage", recover=False)
    if manifest is not None:
        report["from_backup"] = {
            "path": str(from_backup),
            "taken_at": manifest["taken_at"],
            "records": len(taken or []),
        }
    lines = [f"lost: {loss['what']} ({loss['record']})" for loss in report["lost"]]
    _print(report, as_json, lines)
    if not report["salvaged"]:
        err.print(f"user {user_id} has no damaged record: nothing to salvage")
    elif manifest is not None:
        err.print(f"user {user_id} taken from the backup of {manifest['taken_at']}; changes after it are gone")
    else:
        err.print(f"user {user_id} salvaged: {len(report['damaged'])} damaged records dropped, served again")


def backup(
    path: Annotated[Path, typer.Argument(help="The backup file to write (must not exist)")],
    as_json: Json = False,
    data_dir: DataDir = None,
) -> None:
    """Write a consistent backup of the whole store to one file, with a manifest (time, record
    counts, checksum). Works while the server runs and writes go on."""
    settings = _embedded(data_dir)
    store = settings.data_dir / JOURNAL_FILE
    announce_store(settings, readonly=True)
    try:
        manifest = take_backup(store, path)
    except BackupRefused as exc:
        fail(str(exc))
    _print({"path": str(path), **manifest}, as_json, [f"{k}: {v}" for k, v in manifest.items()])
    err.print(f"wrote {path} ({manifest['records']} records)")


def restore(
    path: Annotated[Path, typer.Argument(help="A backup file written by `memory-service backup`")],
    data_dir: Annotated[Path, typer.Option(help="A new or empty directory for the restored store")],
) -> None:
    """Restore a backup into a new or empty data directory (the server stopped); a damaged backup
    is refused."""
    settings = _embedded(data_dir)
    announce_store(settings)
    check_data_dir(settings)  # no server on that directory
    try:
        manifest = restore_backup(path, data_dir)
    except BackupRefused as exc:
        fail(str(exc))
    err.print(f"restored {path} (taken {manifest['taken_at']}, {manifest['records']} records) into {data_dir}")


COMMANDS: list[Command] = [
    (verify, {"epilog": f"Exit codes: 0 clean; {DAMAGE_FOUND} damage found (named on stdout); 1 an error."}),
    (salvage, {}),
    (backup, {}),
    (restore, {}),
]
