"""One process per embedded data directory: a second one would silently fork the data."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from service.errors import DataDirectoryLocked


class DataDirLock:
    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / "LOCK"
        self._handle: IO[str] | None = None

    def acquire(self) -> None:
        handle = open(self.path, "a+")  # noqa: SIM115 - held open for as long as the lock is
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise DataDirectoryLocked(
                f"data directory {self.path.parent} is already in use (pid {holder}); "
                "stop that server or choose another --data-dir"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._handle = handle

    def release(self) -> None:
        if self._handle is not None:
            fcntl.flock(self._handle.fileno(), fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None
