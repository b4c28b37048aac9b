"""A full disk, for real: the data directory on a small tmpfs the test mounts (CI runs as root).

Through the SSE client against a server process: every write answered with success is present
after a SIGKILL and a restart, no write answered with an error is (nor visible before it), reads
are served throughout, ``/readyz`` says ``degraded`` while commits fail and ``ready`` again once
one succeeds, the failed commits are counted in ``/metrics``, and writes resume by themselves
once space is freed. Embedded-only by nature: it is about the journal's file.
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.backends import make_settings
from tests.support.mcp_sessions import WireCaller, sse_session
from tests.support.server_process import http_get, running_server

pytestmark = pytest.mark.slow

USER, OTHER = 1, 2
NOTE = "x" * 3000  # big enough that a few writes use up what slack SQLite's files keep


@contextmanager
def small_disk(mountpoint: Path, megabytes: int) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.fail("this test mounts a tmpfs and needs root (CI runs as root)")
    mountpoint.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(mountpoint)], check=True)
    try:
        yield mountpoint
    finally:
        subprocess.run(["umount", "-l", str(mountpoint)], check=False)


def fill(disk: Path) -> Path:
    filler = disk / "filler"
    with open(filler, "wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    return filler


async def note(call: WireCaller, user_id: int, marker: str) -> dict[str, Any]:
    return await call(
        "memory_append_preference_event",
        {"user_id": user_id, "type": "note", "source": "user", "payload": {"raw_text": NOTE, "marker": marker}},
    )


def markers(exported: dict[str, Any]) -> set[str]:
    return {e["payload"].get("marker") for e in exported["preference_events"]}


async def test_a_full_disk_refuses_writes_cleanly_and_recovers(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", 12) as disk:
        settings = make_settings("embedded", disk / "data")
        acked: dict[int, set[str]] = {USER: set(), OTHER: set()}
        refused: set[str] = set()
        with running_server(settings, tmp_path / "work") as server:
            async with sse_session(server) as call:
                for n in range(5):
                    assert (await note(call, USER, f"before-{n}"))["success"]
                    acked[USER].add(f"before-{n}")
                filler = fill(disk)
                for n in range(400):
                    user = USER if n % 2 else OTHER
                    answer = await note(call, user, f"during-{n}")
                    if answer["success"]:
                        acked[user].add(f"during-{n}")  # what SQLite's files had room for still fits
                        continue
                    error = answer["error"]
                    assert error["code"] == "DB_ERROR", error
                    assert error["details"]["reason"] == "storage_full", error
                    assert "full" in error["message"], error
                    refused.add(f"during-{n}")
                    if len(refused) >= 6:
                        break
                assert len(refused) >= 6, "the disk never filled up"

                # Reads go on, and nothing refused is visible in them.
                exported = await call.export(USER)
                assert acked[USER] <= markers(exported)
                assert not refused & markers(exported)
                assert (await call("memory_get_profile", {"user_id": USER}))["success"]
                status, body = http_get(f"{server.base_url}/readyz")
                assert (status, body["status"], body["reason"]) == (503, "degraded", "storage_full"), body
                _, metrics = http_get(f"{server.base_url}/metrics")
                failures = next(
                    float(line.split()[-1])
                    for line in metrics.splitlines()
                    if line.startswith("taste_memory_store_commit_failures_total")
                )
                assert failures >= len(refused)

                filler.unlink()
                answer = await note(call, OTHER, "after")
                assert answer["success"], answer
                acked[OTHER].add("after")
                status, body = http_get(f"{server.base_url}/readyz")
                assert (status, body["status"]) == (200, "ready"), body
            server.kill()
        with running_server(settings, tmp_path / "work-restarted") as server:
            async with sse_session(server) as call:
                for user in (USER, OTHER):
                    stored = markers(await call.export(user))
                    assert acked[user] <= stored, f"user {user}: acknowledged writes lost: {acked[user] - stored}"
                    assert not refused & stored, f"user {user}: writes answered with an error are stored"
            server.stop()
