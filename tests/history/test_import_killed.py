"""An import killed part-way leaves every file wholly in or wholly out, and running it again
stores the rest: the store ends as one uninterrupted import leaves it. Several history files,
each in its own months, are imported by the real CLI into one store, which is SIGKILLed again and
again at different moments (before the first file is in, right after a file's commit, between two
files) and read back after each kill; a last run completes it. Embedded-only: on MongoDB a file
is not one transaction."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import subprocess
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.settings import Settings
from tests.history.history_fixtures import episode, extended, write_json
from tests.history.history_support import run_import, stored
from tests.storage.torn_support import STORE, cli_ok, kill_after, kill_when, start
from tests.support import connected
from tests.support.backends import make_settings

pytestmark = pytest.mark.slow

USER = 5
FILES = 4
ROWS = 1500  # rows a file: a fifth of a second of import each on 2 shared cores
TRACKS = 120  # distinct tracks a file names (its own: each file adds catalog tracks)
MONTHS = 2  # each file's rows fill two months of their own, so two month buckets of its own

Stored = tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]  # plays, skips, tracks


def first_month(file: int) -> datetime:
    return datetime(2015, 1 + MONTHS * file, 1, tzinfo=UTC)


def file_rows(file: int) -> list[dict[str, Any]]:
    """Plays, a skip in seven, a private stream and a podcast, spread over the file's months."""
    begin, step = first_month(file), timedelta(minutes=MONTHS * 28 * 24 * 60 // ROWS)
    rows = []
    for i in range(ROWS):
        n = 1000 * (file + 1) + i % TRACKS
        rows.append(extended(n, begin + i * step, ms=9_000 if i % 7 == 3 else 190_000, private=i == 11))
    rows[17] = episode(begin + 17 * step)
    return rows


def of_file(entry: tuple[Any, ...], file: int) -> bool:
    played_at = datetime.fromisoformat(entry[4]).replace(tzinfo=UTC)  # stored as UTC, read back naive or not
    return first_month(file) <= played_at < first_month(file + 1)


def buckets(store: Settings) -> int:
    """Month buckets of the user committed so far, read beside the running import (WAL)."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{store.data_dir / STORE}?mode=ro", uri=True)) as db:
            found = db.execute(
                "SELECT COUNT(DISTINCT doc_key) FROM fields WHERE collection = 'plays' AND user_id = ?", (USER,)
            )
            return int(found.fetchone()[0])
    except sqlite3.OperationalError:  # being created, or locked for a moment
        return -1


async def _read_back(store: Settings) -> Stored:
    async with connected(store) as call:
        plays, skips = await stored(call, USER)
        documents = await call.service.database.tracks.find({"user_id": USER}, sort=[("_id", 1)])
    tracks = [(d["track_id"], d["name"], tuple(d["artists"]), d.get("album"), d.get("external_ids")) for d in documents]
    return plays, skips, tracks


def read_back(store: Settings) -> Stored:
    """Every play, skip and catalog track of the user, once no process holds the store."""
    return asyncio.run(_read_back(store))


def files_in(now: Stored, whole: Stored) -> list[bool]:
    """Per file: True if all its plays and skips are stored, False if none; fails if some are."""
    seen = []
    for file in range(FILES):
        parts = [([e for e in now[k] if of_file(e, file)], [e for e in whole[k] if of_file(e, file)]) for k in (0, 1)]
        has = [got for got, _ in parts]
        assert all(has) or not any(has), f"file {file}: plays or skips only"
        assert all(got in ([], wanted) for got, wanted in parts), f"file {file} is partly in"
        seen.append(bool(has[0]))
    return seen


async def imported_whole(folder: Path, store: Settings) -> None:
    """The uninterrupted import, in process: the same importer the command runs."""
    async with connected(store) as call:
        await run_import(call, USER, folder)


def test_import_killed_leaves_every_file_in_or_out(tmp_path: Path) -> None:
    folder = tmp_path / "download"
    for file in range(FILES):
        write_json(folder / f"Streaming_History_Audio_2015_{file}.json", file_rows(file))
    clean = make_settings("embedded", tmp_path / "clean")
    asyncio.run(imported_whole(folder, clean))
    whole = read_back(clean)
    assert files_in(whole, whole) == [True] * FILES and len(whole[0]) > FILES * ROWS // 2 and whole[1]

    arguments = ["import-history", str(folder), "--user-id", str(USER), "--json"]
    store = make_settings("embedded", tmp_path / "killed")
    outcomes: Counter[str] = Counter()

    def killed(kill: Callable[[subprocess.Popen[bytes]], None], at: str) -> None:
        """Run the import on the store, SIGKILL it as ``kill`` says, read what it left."""
        kill(start(arguments, store, tmp_path))
        inside = files_in(read_back(store), whole)
        assert inside == sorted(inside, reverse=True), f"killed {at}: files are taken in name order, {inside}"
        outcomes[f"{sum(inside)} of {FILES} files in"] += 1

    def once(landed: Callable[[], bool], then: float = 0.0) -> Callable[[subprocess.Popen[bytes]], None]:
        def kill(process: subprocess.Popen[bytes]) -> None:
            assert kill_when(process, landed), "the import ended before it was killed"
            kill_after(process, then)

        return kill

    # The store opened (the lock's pid written), then a moment: while the first file is read.
    killed(once((store.data_dir / "LOCK.pid").exists, 0.1), "while reading the first file")
    for then, at in ((0.0, "right after a file's commit"), (0.05, "a moment after a file's commit")):
        before = max(buckets(store), 0)  # -1: no store file yet
        killed(once(lambda: buckets(store) > before, then), at)
    assert any(f"{k} of {FILES} files in" in outcomes for k in range(1, FILES)), outcomes

    cli_ok(arguments, store, tmp_path)  # the run that completes it
    assert read_back(store) == whole
    print(f"killed runs left {dict(outcomes)}")
