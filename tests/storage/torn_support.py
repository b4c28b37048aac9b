"""What the torn-work tests share: a store holding one big user (thousands of records) and its
export file, commands started as processes and SIGKILLed at a chosen moment, and the state of a
store read back through the command line.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.settings import Settings
from tests.support import connected
from tests.support.backends import make_settings
from tests.support.rich_user import write_rich_user
from tests.support.server_process import SERVICE, child_environment, run_cli

BIG_USER = 1
OTHER_USER = 3
EXTRA_EVENTS = 2500  # preference events added to the rich user's export
EXTRA_TRACKS = 1000  # catalog entries added to it
STORE = "memory.sqlite3"


@dataclass(frozen=True)
class BigStore:
    base: Path  # a data directory holding BIG_USER, never written to by a test: copy it first
    export_file: Path  # BIG_USER's export, as `memory-service export` wrote it
    workdir: Path
    # A data directory holding another, small user only: the export's ids are free there (an
    # import refuses ids another user's records already hold).
    other: Path

    def clone(self, name: str, source: Path | None = None) -> Settings:
        """A fresh copy of the base store (or of ``source``) in its own directory."""
        target = self.workdir / name
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source or self.base, target, ignore=shutil.ignore_patterns("LOCK"))
        return make_settings("embedded", target)


def cli_ok(args: list[str], settings: Settings | None, workdir: Path) -> subprocess.CompletedProcess[str]:
    done = run_cli(args, settings, cwd=workdir, timeout=300)
    assert done.returncode == 0, f"{' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}"
    return done


async def _rich_export(scratch: Path) -> dict[str, Any]:
    async with connected(make_settings("embedded", scratch)) as call:
        await write_rich_user(call, BIG_USER)
        return await call.service.transfer.export_all(BIG_USER)


def _grown(data: dict[str, Any]) -> dict[str, Any]:
    """The rich user's export with thousands of preference events and catalog tracks more, made
    from its own records (writing them call by call would take a minute of fsyncs)."""
    data = copy.deepcopy(data)
    event, entry = data["preference_events"][-1], data["tracks"][0]
    for n in range(EXTRA_EVENTS):
        added = copy.deepcopy(event)
        added.update(event_id=str(uuid.uuid4()), recorded_ns=event["recorded_ns"] + n + 1)
        added["payload"] = {"raw_text": f"bulk note {n}", "n": n}
        data["preference_events"].append(added)
    for n in range(EXTRA_TRACKS):
        data["tracks"].append({**copy.deepcopy(entry), "track_id": f"track{50_000 + n:017d}", "name": f"Bulk {n}"})
    return data


async def build_big_store(workdir: Path) -> BigStore:
    """Build the big user once: rich user in process, grown, imported by the CLI into the base
    store, then exported by the CLI (the export file the import test loads)."""
    workdir.mkdir(parents=True, exist_ok=True)
    grown = workdir / "grown.json"
    data = _grown(await _rich_export(workdir / "scratch"))
    grown.write_text(json.dumps({"user_id": BIG_USER, "data": data}))
    base = make_settings("embedded", workdir / "base")
    cli_ok(["import", "--file", str(grown), "--user-id", str(BIG_USER)], base, workdir)
    export_file = workdir / "big-export.json"
    cli_ok(["export", "--user-id", str(BIG_USER), "--out", str(export_file)], base, workdir)
    exported = json.loads(export_file.read_text())["data"]
    assert len(exported["preference_events"]) > EXTRA_EVENTS and len(exported["tracks"]) > EXTRA_TRACKS
    other = make_settings("embedded", workdir / "other")
    cli_ok(["seed", "--user-id", str(OTHER_USER)], other, workdir)
    return BigStore(base.data_dir, export_file, workdir, other.data_dir)


def start(args: list[str], settings: Settings, workdir: Path) -> subprocess.Popen[bytes]:
    """A command on the store, started (not awaited); its output is not read, so it goes to files."""
    log = open(workdir / f"{args[0]}-{time.monotonic_ns()}.log", "wb")  # noqa: SIM115 - the child holds it
    with log:
        return subprocess.Popen(
            [*SERVICE, *args, "--data-dir", str(settings.data_dir)],
            cwd=workdir,
            env=child_environment(),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def kill_after(process: subprocess.Popen[bytes], delay: float) -> bool:
    """SIGKILL the process ``delay`` seconds from now; True if it was still running then."""
    try:
        process.wait(timeout=delay)
        return False
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        return True


def kill_when(process: subprocess.Popen[bytes], landed: Callable[[], bool], timeout: float = 300) -> bool:
    """SIGKILL the process as soon as ``landed()`` holds (its commit is on disk): a kill between the
    commit and the exit, a window too short for drawn delays to hit reliably. True if it was
    still running then."""
    deadline = time.monotonic() + timeout
    while process.poll() is None and not landed():
        assert time.monotonic() < deadline, "the command neither committed nor exited"
        time.sleep(0.005)
    return kill_after(process, 0)


def timed(
    args: list[str], settings: Settings, workdir: Path, landed: Callable[[], bool] | None = None
) -> tuple[float, float | None]:
    """Seconds an uninterrupted run of the command takes, start to exit (the kill points' range),
    and when ``landed()`` (a look at the files from outside, polled) first held: its commit point."""
    began = time.monotonic()
    process = start(args, settings, workdir)
    seen: float | None = None
    while process.poll() is None:
        if seen is None and landed is not None and landed():
            seen = time.monotonic() - began
        time.sleep(0.01)
    assert process.returncode == 0, f"{args} failed uninterrupted"
    return time.monotonic() - began, seen


def stored_rows(settings: Settings, where: str, *parameters: Any) -> int:
    """Rows of the store file matching ``where``, read beside whoever writes it (WAL: committed
    rows only); -1 when the file cannot be read at that moment."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{settings.data_dir / STORE}?mode=ro", uri=True)) as db:
            return int(db.execute(f"SELECT COUNT(*) FROM fields WHERE {where}", parameters).fetchone()[0])
    except sqlite3.OperationalError:  # the file is being created or locked for a moment
        return -1


def exported(settings: Settings, user_id: int, workdir: Path) -> dict[str, Any]:
    """The user's whole export by the CLI, without the moments it was taken."""
    done = cli_ok(["export", "--user-id", str(user_id), "--out", "-"], settings, workdir)
    document = json.loads(done.stdout)
    document.pop("exported_at")
    document["data"].pop("as_of")
    return dict(document)


def verified(settings: Settings, workdir: Path, backup: Path | None = None) -> tuple[int, dict[str, Any]]:
    """(exit code, report) of ``verify --json`` on the store or on a backup file."""
    args = ["verify", "--json"] + (["--backup", str(backup)] if backup is not None else [])
    done = run_cli(args, settings, cwd=workdir, timeout=300)
    assert done.returncode in (0, 3), f"verify failed ({done.returncode}):\n{done.stderr[-3000:]}"
    return done.returncode, json.loads(done.stdout)


def damage_one_record(settings: Settings, user_id: int) -> str:
    """Flip bytes inside the body of one of the user's preference events, its checksum left as it
    was (what a bad disk sector does); return the record's name as verify reports it."""
    with sqlite3.connect(settings.data_dir / STORE) as connection:
        key, body = connection.execute(
            "SELECT doc_key, body FROM fields WHERE collection = 'preference_events' AND user_id = ? "
            "ORDER BY doc_key LIMIT 1",
            (user_id,),
        ).fetchone()
        at = body.find(b"raw_text")
        assert at >= 0
        flipped = body[:at] + body[at : at + 8].upper() + body[at + 8 :]
        connection.execute(
            "UPDATE fields SET body = ? WHERE collection = 'preference_events' AND doc_key = ?", (flipped, key)
        )
    return f"preference_events/{key}"
