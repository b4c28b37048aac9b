#!/usr/bin/env python
"""import-history at scale: generated extended streaming history (300,000 rows in 12 files)
imported into a fresh embedded store by a child process as the CLI does, then again (every row a
duplicate); reports each run's time, the child's peak RSS and the loop lag (p50 / p99 / max).
``--page`` zips the files as Spotify ships them and uploads them to the memory page of a server
built as ``serve`` builds it (in process, httpx), polling the job: the lag is the server's loop.

    python scripts/bench_history.py [--rows 300000] [--files 12] [--page]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]

START = datetime(2015, 1, 1, tzinfo=UTC)
SPAN_S = 10 * 365 * 86400


def row(i: int, rows: int) -> dict[str, object]:
    """Row ``i``: 20,000 tracks of 3,000 artists; a quarter skips, 2% private, 3% podcasts."""
    at = START + timedelta(seconds=i * SPAN_S // rows)
    n = (i * 7919) % 20_000
    podcast = i % 33 == 0
    return {
        "ts": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "username": "listener",
        "platform": "Android OS 12 API 31",
        "ms_played": 9_000 if i % 4 == 0 else 185_000,
        "conn_country": "SE",
        "ip_addr_decrypted": "192.0.2.1",
        "user_agent_decrypted": "unknown",
        "master_metadata_track_name": None if podcast else f"Song number {n}",
        "master_metadata_album_artist_name": None if podcast else f"Artist number {n % 3000}",
        "master_metadata_album_album_name": None if podcast else f"Album number {n % 6000}",
        "spotify_track_uri": None if podcast else f"spotify:track:{n:022d}",
        "episode_name": "An episode" if podcast else None,
        "episode_show_name": "A show" if podcast else None,
        "spotify_episode_uri": "spotify:episode:0000000000000000000001" if podcast else None,
        "audiobook_title": None,
        "audiobook_uri": None,
        "audiobook_chapter_uri": None,
        "audiobook_chapter_title": None,
        "reason_start": "trackdone",
        "reason_end": "trackdone",
        "shuffle": False,
        "skipped": i % 4 == 0,
        "offline": False,
        "offline_timestamp": 0,
        "incognito_mode": i % 50 == 1,
    }


def generate(folder: Path, rows: int, files: int) -> int:
    folder.mkdir(parents=True)
    size = 0
    per_file = -(-rows // files)
    for f in range(files):
        path = folder / f"Streaming_History_Audio_{f}.json"
        with path.open("w") as out:
            out.write("[\n")
            for k, i in enumerate(range(f * per_file, min(rows, (f + 1) * per_file))):
                out.write((",\n" if k else "") + json.dumps(row(i, rows)))
            out.write("\n]\n")
        size += path.stat().st_size
    return size


def _lag(gaps: list[float]) -> dict[str, float]:
    """p50 / p99 / max of the sorted ``gaps``, in ms."""

    def at(q: float) -> float:
        return round(gaps[min(len(gaps) - 1, int(q * len(gaps)))] * 1000, 1) if gaps else 0.0

    return {"p50": at(0.5), "p99": at(0.99), "max": round(gaps[-1] * 1000, 1) if gaps else 0.0}


async def child(folder: Path, data_dir: Path) -> None:
    from host.loop_lag import watching_loop_lag
    from host.running import ServiceHolder, running_service
    from service.history.importer import HistoryImporter
    from service.settings import Settings

    runs = []
    async with running_service(Settings(data_dir=data_dir), ServiceHolder()) as service:
        # The first run stores everything; the second finds every row stored already (all duplicates).
        for _ in range(2):
            gaps: list[float] = []
            started = time.perf_counter()
            async with watching_loop_lag(gaps.append, 0.005):
                outcome = await HistoryImporter(service.database, service.tracks).run(1, folder)
            runs.append((time.perf_counter() - started, sorted(gaps), outcome.report.as_json()))

    (seconds, gaps, report), (again_s, again_gaps, again) = runs
    print(
        json.dumps(
            {
                "import_s": round(seconds, 1),
                "lag_ms": _lag(gaps),
                "report": report,
                "again_s": round(again_s, 1),
                "again_lag_ms": _lag(again_gaps),
                "again_duplicates": again["duplicates"],
                "again_plays": again["plays"],
            }
        )
    )


async def page_child(folder: Path, data_dir: Path) -> None:
    import httpx

    from host.app import build_app
    from host.loop_lag import watching_loop_lag
    from service.auth.tokens import TokenStore
    from service.settings import Settings

    archive = folder.parent / "my_spotify_data.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as packed:
        for path in sorted(folder.iterdir()):
            packed.write(path, f"Spotify Extended Streaming History/{path.name}")
    settings = Settings(data_dir=data_dir, search_warmup=False, aging_interval_s=0)
    token, _ = TokenStore(settings.tokens_path).create("user", [1])
    app, _, _ = build_app(settings)
    transport = httpx.ASGITransport(app)
    gaps: list[float] = []

    async def chunks() -> AsyncIterator[bytes]:
        with archive.open("rb") as body:
            while chunk := body.read(1 << 20):
                yield chunk

    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", timeout=600) as client,
    ):
        session = await client.post("/ui/api/session", json={"token": token})
        csrf = session.json()["csrf"]
        started = time.perf_counter()
        async with watching_loop_lag(gaps.append, 0.005):
            answer = await client.post(
                "/ui/api/history-imports", params={"user_id": "1"}, content=chunks(), headers={"X-CSRF-Token": csrf}
            )
            uploaded = time.perf_counter() - started
            job = answer.json()["job_id"]
            while (state := (await client.get(f"/ui/api/history-imports/{job}")).json())["state"] == "running":
                await asyncio.sleep(0.5)
        seconds = time.perf_counter() - started
    gaps.sort()
    print(
        json.dumps(
            {
                "zip_mb": round(archive.stat().st_size / 1e6, 1),
                "upload_s": round(uploaded, 1),
                "import_s": round(seconds, 1),
                "state": state["state"],
                "lag_ms": _lag(gaps),
                "report": state.get("report") or state.get("error"),
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--files", type=int, default=12)
    parser.add_argument("--page", action="store_true", help="import through the memory page's upload")
    parser.add_argument("--child", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        asyncio.run((page_child if args.page else child)(*args.child))
        return
    with tempfile.TemporaryDirectory(prefix="bench-history-") as tmp:
        folder = Path(tmp) / "history"
        size = generate(folder, args.rows, args.files)
        started = time.perf_counter()
        done = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                str(folder),
                str(Path(tmp) / "data"),
                *(["--page"] if args.page else []),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        wall = time.perf_counter() - started
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # kB on Linux
        result = json.loads(done.stdout.strip().splitlines()[-1])
    print(
        json.dumps(
            {
                "rows": args.rows,
                "files": args.files,
                "mb": round(size / 1e6, 1),
                "wall_s_with_startup": round(wall, 1),
                "peak_rss_mb": round(peak_mb),
                **result,
            }
        )
    )


if __name__ == "__main__":
    main()
