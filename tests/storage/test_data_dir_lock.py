"""The data-directory lock across processes: a second process is refused with the holder's pid,
and the directory is free again as soon as the holder closes its lock (not only when it exits)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from service.errors import DataDirectoryLocked
from service.storage.embedded.lockfile import DataDirLock

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# A holder that locks, says so, releases when told, says so again, then waits to be told to exit.
HOLDER = """
import sys
from pathlib import Path
from service.storage.embedded.lockfile import DataDirLock
lock = DataDirLock(Path(sys.argv[1]))
lock.acquire()
print("locked", flush=True)
sys.stdin.readline()
lock.release()
print("released", flush=True)
sys.stdin.readline()
"""


def start_holder(data_dir: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(data_dir)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    line = holder.stdout.readline().strip()
    assert line == "locked", holder.stderr.read() if holder.stderr else line
    return holder


def tell(holder: subprocess.Popen[str]) -> str:
    assert holder.stdin is not None and holder.stdout is not None
    holder.stdin.write("\n")
    holder.stdin.flush()
    return holder.stdout.readline().strip()


def test_a_second_process_is_refused_with_the_holders_pid_until_the_holder_closes(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    holder = start_holder(data_dir)
    try:
        contender = DataDirLock(data_dir)
        with pytest.raises(DataDirectoryLocked) as refused:
            contender.acquire()
        assert f"pid {holder.pid}" in str(refused.value)
        assert f"data directory {data_dir} is already in use" in str(refused.value)

        assert tell(holder) == "released"  # still running: closing the lock is what frees the directory
        assert holder.poll() is None
        contender.acquire()
        try:
            assert contender.pid_path.read_text() == str(os.getpid())
        finally:
            contender.release()
        assert not contender.pid_path.exists()
    finally:
        tell(holder)
        holder.wait(timeout=30)
    assert holder.returncode == 0


def test_a_holder_that_dies_leaves_the_directory_free(tmp_path: Path) -> None:
    holder = start_holder(tmp_path)
    holder.kill()  # no release: the operating system drops the lock with the process
    holder.wait(timeout=30)
    lock = DataDirLock(tmp_path)
    lock.acquire()  # its stale pid file is no obstacle, and is overwritten
    try:
        assert lock.pid_path.read_text() == str(os.getpid())
    finally:
        lock.release()


def test_two_locks_in_one_process_conflict_and_release_is_idempotent(tmp_path: Path) -> None:
    first, second = DataDirLock(tmp_path), DataDirLock(tmp_path)
    first.acquire()
    with pytest.raises(DataDirectoryLocked):
        second.acquire()
    first.release()
    first.release()
    second.acquire()
    second.release()
