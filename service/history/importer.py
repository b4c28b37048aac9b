"""``import-history``: a listening history into the play store, one file at a time.

Each file's plays are one unit of work (on the embedded store one SQLite transaction), so a run
killed midway leaves every file's plays wholly in or wholly out, and the next run stores the rest
(a file already in is all duplicates: nothing written); its new catalog tracks follow in small
units. On real MongoDB, which acknowledges each write itself, a killed file is partly in until the
next run completes it. The file is streamed, its rows kept only as the plays they become, and the
event loop is given back every ``SLICE`` rows."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from service.history.catalog import add_tracks
from service.history.plan import AUTO, Planned, plan
from service.history.reader import MalformedJson, elements
from service.history.report import Report
from service.history.rows import Row, bad_row
from service.history.store import Folding, Key, Pending, store_month
from service.memories.plays import month_of
from service.storage.database import Database
from service.tracks.service import TrackService

SLICE = 100  # rows parsed between two turns of the event loop (a few milliseconds)
SKIP_BELOW_MS = 30_000  # a stream shorter than this is a skip, whatever else the row says

Progress = Callable[[int, int, str], None]  # bytes read, bytes in all, the file being read


@dataclass
class FileOutcome:
    name: str
    format: str | None
    report: Report | None  # None: left out, for ``note``
    note: str = ""


@dataclass
class Outcome:
    report: Report
    files: list[FileOutcome]


class HistoryImporter:
    def __init__(self, db: Database, tracks: TrackService) -> None:
        self._db = db
        self._tracks = tracks

    async def run(
        self,
        user_id: int,
        path: Path,
        wanted: str = AUTO,
        include_private: bool = False,
        progress: Progress | None = None,
    ) -> Outcome:
        planned = plan(path, wanted)
        total = sum(p.file.size for p in planned if p.format is not None)
        outcome = Outcome(Report(), [])
        read = 0
        fold = Folding()
        for item in planned:
            if item.format is None:
                outcome.files.append(FileOutcome(item.file.name, None, None, item.note))
                continue

            def advance(n: int, name: str = item.file.name) -> None:
                nonlocal read
                read += n
                if progress is not None:
                    progress(min(read, total), total, name)

            report = await self._file(user_id, item, include_private, fold, advance)
            outcome.report.add(report)
            outcome.files.append(FileOutcome(item.file.name, item.format.NAME, report))
        return outcome

    async def _file(
        self, user_id: int, item: Planned, include_private: bool, fold: Folding, advance: Callable[[int], None]
    ) -> Report:
        report = Report()
        by_month: defaultdict[str, dict[Key, Pending]] = defaultdict(dict)
        lengths: dict[Key, int] = {}  # ms played of the row kept for each identity
        assert item.format is not None
        async for row in _rows(item, item.format, advance):
            report.entries += 1
            if not row.music or row.played_at is None or row.artist is None:
                report.not_music += 1
            elif row.private and not include_private:
                report.private_skipped += 1
            else:
                _keep(by_month[month_of(row.played_at)], lengths, fold, row)
        async with self._db.unit():  # the file's plays wholly in, or (failed, killed) not at all
            for month in sorted(by_month):
                rows = by_month[month]
                for key in await store_month(self._db, user_id, month, rows, fold):
                    _, entry, skip = rows[key]
                    report.skips += skip
                    report.plays += not skip
                    report.covers(entry["played_at"])
                await asyncio.sleep(0)
        # Every row counts once: what was not stored, nor left out before, was a duplicate.
        report.duplicates = report.entries - report.not_music - report.private_skipped - report.plays - report.skips
        # The catalog after the plays, in small units of their own (one unit of 20,000 new tracks
        # holds the event loop for a second while it is encoded), from every kept row, stored now
        # or before: a run killed between the two adds the missing tracks when run again.
        kept = [entry for rows in by_month.values() for _, entry, _ in rows.values()]
        report.tracks_added = await add_tracks(self._db, self._tracks, user_id, kept)
        self._db.settle()
        return report


def _keep(month: dict[Key, Pending], lengths: dict[Key, int], fold: Folding, row: Row) -> None:
    """Of the rows sharing an identity, the longest stream is kept (a play over a skip), so the
    order rows come in does not change what is stored."""
    assert row.artist is not None and row.played_at is not None
    key = fold.key(row.artist, row.track, row.played_at)
    played = row.ms_played if row.ms_played is not None else SKIP_BELOW_MS  # a scrobble is a play
    if key in month and lengths[key] >= played:
        return
    entry = {
        "artist": row.artist,
        "track": row.track,
        "album": row.album,
        "track_id": row.track_id,
        "played_at": key[2],
    }
    month[key] = (key, entry, played < SKIP_BELOW_MS)
    lengths[key] = played


async def _rows(item: Planned, module: ModuleType, advance: Callable[[int], None]) -> AsyncIterator[Row]:
    with item.file.open() as text:
        try:
            for i, element in enumerate(elements(text, advance)):
                for row in module.rows(element, f"{item.file.name} row {i}"):
                    yield row
                if i % SLICE == SLICE - 1:
                    await asyncio.sleep(0)
        except (MalformedJson, UnicodeDecodeError) as exc:
            raise bad_row(item.file.name, str(exc)) from None
