"""The discipline every credential file follows: an exclusive lock for writers, the file replaced
atomically (a reader never sees half of it), created 0600, the directory synced."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock


@contextmanager
def locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    # The lock file holds nothing. filelock opens it without truncating and without following a
    # link planted in its place (that would empty the link's target with the operator's rights).
    with FileLock(path.with_name(path.name + ".lock"), mode=0o600, thread_local=False):
        yield


def replace_atomically(path: Path, body: str, prefix: str) -> None:
    # mkstemp creates the file 0600: hashes only, but nobody else needs to read them.
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=prefix)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(body)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    if sys.platform != "win32":  # Windows cannot open a directory to sync it; its rename is journaled
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
