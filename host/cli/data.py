"""``seed``, ``export`` and ``import``: a user's memory in and out, whatever its size."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from host.cli.base import Command, DataDir, MongoUri, UserId, err, fail, run_on_service, settings_from
from host.cli.output import progress
from host.logging_setup import configure_logging
from models.schema_files import seed_profile
from service.facade import MemoryService


def seed(user_id: UserId = 1, data_dir: DataDir = None, mongodb_uri: MongoUri = None) -> None:
    """Load the PRD §11 example taste profile for a user; a second run changes nothing."""
    settings = settings_from(data_dir=data_dir, mongodb_uri=mongodb_uri)
    configure_logging("WARNING")

    async def work(service: MemoryService) -> dict[str, Any]:
        service.refuse_quarantined(user_id)
        before = await service.profiles.get(user_id)
        after = await service.profiles.update(user_id, seed_profile(), "Seed profile from PRD §11", "user", True)
        return {"changed": after["version"] != before["version"], "version": after["version"]}

    outcome = run_on_service(settings, work, "seed")
    state = "loaded" if outcome["changed"] else "already loaded, nothing changed"
    err.print(f"seed profile for user {user_id}: {state} (profile version {outcome['version']})")


def export_command(
    user_id: UserId,
    out: Annotated[Path, typer.Option(help="File to write ('-' for stdout)")],
    data_dir: DataDir = None,
    mongodb_uri: MongoUri = None,
) -> None:
    """Write everything stored for a user as one JSON file, whatever its size."""
    settings = settings_from(data_dir=data_dir, mongodb_uri=mongodb_uri)
    configure_logging("WARNING")

    async def work(service: MemoryService) -> dict[str, Any]:
        service.refuse_quarantined(user_id)  # an export of what is left would look like the whole
        with progress() as spinner:
            task = spinner.add_task("exporting", total=None)
            counts: dict[str, int] = {}

            def tick(section: str) -> None:
                counts[section] = counts.get(section, 0) + 1
                spinner.update(task, description=", ".join(f"{n} {s}" for s, n in counts.items()))

            data = await service.transfer.export_all(user_id, tick)
        return {"user_id": user_id, "exported_at": data["as_of"], "data": data}

    # Read-only: beside a running server, from the file as it stands (every committed write).
    document = run_on_service(settings, work, "export", readonly=True)
    text = json.dumps(document, ensure_ascii=False)
    if str(out) == "-":
        sys.stdout.write(text + "\n")
    else:
        out.write_text(text)
        err.print(f"wrote {escape(str(out))} ({len(text.encode()):,} bytes)")


def import_command(
    file: Annotated[Path, typer.Option(help="An export file (or a JSON list of export parts)")],
    user_id: Annotated[int | None, typer.Option(min=1, help="Import as this user (default: the export's)")] = None,
    data_dir: DataDir = None,
    mongodb_uri: MongoUri = None,
) -> None:
    """Load an export back; refuses a user who already has data."""
    settings = settings_from(data_dir=data_dir, mongodb_uri=mongodb_uri)
    configure_logging("WARNING")
    loaded = json.loads(file.read_text())
    documents = loaded if isinstance(loaded, list) else [loaded]
    target = user_id or documents[0].get("user_id")
    if not isinstance(target, int):
        fail("the export names no user_id; pass --user-id")
    parts = [d.get("data", d) for d in documents]

    async def work(service: MemoryService) -> dict[str, int]:
        service.refuse_quarantined(target)
        return await service.transfer.import_counts(parts, target)

    counts = run_on_service(settings, work, "import")
    err.print(f"imported for user {target}: " + ", ".join(f"{n} {k}" for k, n in counts.items()))


COMMANDS: list[Command] = [(seed, {}), (export_command, {"name": "export"}), (import_command, {"name": "import"})]
