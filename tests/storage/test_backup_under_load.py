"""A backup taken while 16 sessions write is a consistent store that holds every write
acknowledged before the backup began; ``restore`` puts it in place only when it is whole and only
into an empty directory. Embedded-only: the backup is of the SQLite journal.
"""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from service.auth.tokens import TokenStore
from tests.storage.load_writers import SESSIONS, USERS, Writer, missing_from
from tests.support.backends import make_settings
from tests.support.mcp_sessions import sse_session
from tests.support.server_process import SERVICE, ServerProcess, child_environment, run_cli, running_server

pytestmark = pytest.mark.slow

WARM_UP = 3.0  # seconds of load before the backup starts: the store has grown and every session writes
AFTER = 1.0  # seconds of load after the backup is written
SEED = 20261126
RATE_LIMIT = {"MEMORY_RATE_LIMIT_PER_MINUTE": "120", "MEMORY_RATE_LIMIT_BURST": "5"}


async def write_until(
    server: ServerProcess, writer: Writer, token: str, stop: asyncio.Event, started: asyncio.Event
) -> None:
    async with sse_session(server, token=token) as call:
        while not stop.is_set():
            await writer.step(call)
            started.set()


async def backup_during_load(
    server: ServerProcess, data_dir: Path, target: Path, writers: list[Writer], tokens: list[str]
) -> float:
    """Run the writers, take the backup with the CLI while they write; return when the backup
    command was started (time.monotonic())."""
    stop = asyncio.Event()
    started = [asyncio.Event() for _ in writers]
    tasks = [asyncio.create_task(write_until(server, *a, stop, s)) for a, s in zip(zip(writers, tokens), started)]
    try:
        await asyncio.wait_for(asyncio.gather(*(s.wait() for s in started)), timeout=120)
        await asyncio.sleep(WARM_UP)
        began = time.monotonic()
        # Not run_cli: the event loop must go on serving the writers while the backup runs.
        process = await asyncio.create_subprocess_exec(
            *SERVICE,
            "backup",
            str(target),
            "--json",
            "--data-dir",
            str(data_dir),
            cwd=target.parent,
            env=child_environment(),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), timeout=120)
        assert process.returncode == 0, f"backup failed ({process.returncode}):\n{err.decode()}"
        written = sum(len(w.acks) for w in writers)
        await asyncio.sleep(AFTER)
        assert sum(len(w.acks) for w in writers) > written, "the writers stopped while the backup ran"
        assert all(not t.done() for t in tasks), [t.exception() for t in tasks if t.done()]
    finally:
        stop.set()
        await asyncio.gather(*tasks)  # a writer's failure is raised here
    manifest = json.loads(out)
    assert manifest["path"] == str(target) and manifest["records"] > 0, manifest
    return began


def counts_in(store: Path) -> dict[str, int]:
    """Documents per collection in a store file, counted here rather than by the service's code."""
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as connection:
        rows = connection.execute("SELECT collection, COUNT(DISTINCT doc_key) FROM fields GROUP BY collection")
        return dict(rows.fetchall())


async def test_backup_under_load_holds_every_write_acknowledged_before_it(tmp_path: Path) -> None:
    settings = make_settings("embedded", tmp_path / "data")
    target = tmp_path / "taken.backup"
    rng = random.Random(SEED)
    writers = [Writer(i, random.Random(rng.random())) for i in range(SESSIONS)]
    # A token per session, each with a small rate budget, so the sessions really meet RATE_LIMITED
    # and wait it out (an open server, with no token file, limits nobody).
    store = TokenStore(settings.tokens_path)
    tokens = [store.create("user", [w.user], label=f"writer {w.index}")[0] for w in writers]
    with running_server(settings, tmp_path, extra_env=RATE_LIMIT) as server:
        began = await backup_during_load(server, settings.data_dir, target, writers, tokens)
    before = sum(len(w.acknowledged_before(began)) for w in writers)
    print(
        f"{sum(len(w.acks) for w in writers)} writes acknowledged, {before} before the backup began, "
        f"{sum(w.backoffs for w in writers)} RATE_LIMITED waited out"
    )
    assert sum(w.backoffs for w in writers) > 0, "no session met RATE_LIMITED: the backoff went untested"
    assert before >= SESSIONS and not list(tmp_path.glob("*.partial"))

    restored = make_settings("embedded", tmp_path / "restored")
    done = run_cli(["restore", str(target), "--data-dir", str(restored.data_dir)], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    checked = run_cli(["verify", "--json"], restored, cwd=tmp_path)
    assert checked.returncode == 0, f"the restored store fails verify:\n{checked.stdout}\n{checked.stderr}"
    assert json.loads(checked.stdout)["clean"] is True

    # The manifest's counts are what the restored store holds (counted before a server writes to it).
    shown = run_cli(["verify", "--backup", str(target), "--json"], restored, cwd=tmp_path)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    manifest = json.loads(shown.stdout)["manifest"]
    assert manifest["documents"] == counts_in(restored.data_dir / "memory.sqlite3")
    assert manifest["records"] == sum(manifest["documents"].values())

    with running_server(restored, tmp_path) as server:
        async with sse_session(server) as call:
            exports = {user: await call.export(user) for user in USERS}
    problems = [
        f"writer {w.index} (user {w.user}): {p}" for w in writers for p in missing_from(exports[w.user], w, began)
    ]
    assert not problems, f"{len(problems)} acknowledged writes missing from the backup: {problems[:10]}"

    damaged_backup_is_refused(target, tmp_path, writers)
    occupied_target_is_refused(target, tmp_path)


def damaged_backup_is_refused(target: Path, workdir: Path, writers: list[Writer]) -> None:
    """Bytes flipped inside one stored row of a copy (the file still opens as a database):
    ``verify --backup`` finds it, ``restore`` refuses it and writes no store."""
    damaged = workdir / "damaged.backup"
    shutil.copyfile(target, damaged)
    marker = f"writer {writers[0].index} note".encode()  # inside a preference event's payload
    data = bytearray(damaged.read_bytes())
    at = data.find(marker)
    assert at >= 0, "no preference event of writer 0 found in the backup file"
    data[at : at + len(marker)] = marker.upper()  # same length: the page stays well formed
    damaged.write_bytes(bytes(data))

    found = run_cli(
        ["verify", "--backup", str(damaged), "--json"], make_settings("embedded", workdir / "x"), cwd=workdir
    )
    assert found.returncode == 3, f"verify --backup exit {found.returncode}:\n{found.stdout}\n{found.stderr}"
    assert json.loads(found.stdout)["clean"] is False

    into = workdir / "from-damaged"
    refused = run_cli(["restore", str(damaged), "--data-dir", str(into)], cwd=workdir)
    assert refused.returncode != 0, refused.stderr
    assert "damaged" in refused.stderr and "Traceback" not in refused.stderr, refused.stderr
    assert not (into / "memory.sqlite3").exists()
    assert not list(into.glob("memory.sqlite3*")), list(into.iterdir())


def occupied_target_is_refused(target: Path, workdir: Path) -> None:
    into = workdir / "occupied"
    into.mkdir()
    (into / "notes.txt").write_text("an operator's file")
    refused = run_cli(["restore", str(target), "--data-dir", str(into)], cwd=workdir)
    assert refused.returncode != 0, refused.stderr
    assert "not empty" in refused.stderr and "Traceback" not in refused.stderr, refused.stderr
    assert sorted(p.name for p in into.iterdir() if p.name != "LOCK") == ["notes.txt"]
    assert (into / "notes.txt").read_text() == "an operator's file"
