"""One process per embedded data directory: a second one would silently fork the data.

The lock is the operating system's (``filelock``: flock on Unix, a Windows file lock elsewhere) on
``LOCK``. The holder's pid goes into ``LOCK.pid`` beside it rather than into the lock file itself:
a locked file cannot be read on Windows, and some filelock releases truncate the lock file when
another process merely tries it.
"""

from __future__ import annotations

import os
from pathlib import Path

from filelock import FileLock, Timeout

from service.errors import DataDirectoryLocked


class DataDirLock:
    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / "LOCK"
        self.pid_path = data_dir / "LOCK.pid"
        # Not thread-local: the lock belongs to the process, whichever thread closes the store.
        self._lock = FileLock(self.path, mode=0o600, thread_local=False)

    def acquire(self) -> None:
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            raise DataDirectoryLocked(
                f"data directory {self.path.parent} is already in use ({self._holder()}); "
                "stop that server or choose another --data-dir"
            ) from None
        self.pid_path.write_text(str(os.getpid()))

    def _holder(self) -> str:
        # The holder writes its pid just after locking: a reader in between finds none (or a dead
        # holder's), which is why this only names it and never acts on it.
        try:
            pid = self.pid_path.read_text().strip()
        except OSError:
            pid = ""
        return f"pid {pid}" if pid.isdigit() else "another process"

    def release(self) -> None:
        if self._lock.is_locked:
            self.pid_path.unlink(missing_ok=True)
            self._lock.release(force=True)
