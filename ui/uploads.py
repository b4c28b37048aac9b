"""An uploaded history file on disk: the request body streamed into a folder of its own, a
megabyte at a time and never held whole, then named ``.zip`` or ``.json`` by its first bytes (the
importer reads a ZIP member by member). Every folder is removed when its import ends, on every
path; a killed server's leftovers are swept at the next start (only in the data directory, where
no other process puts them). The disk work runs in a thread, off the event loop."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import BinaryIO

from service.settings import Settings

PREFIX = "tm-history-"
BUFFER = 1024 * 1024  # bytes gathered before one write
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a member first, or an empty archive


def upload_root(settings: Settings) -> tuple[Path, bool]:
    """Where uploads go, and whether that folder is the service's own (swept at start): the data
    directory on the embedded store (the store's disk, already sized for it), else the system's."""
    if settings.mongodb_uri is None:
        return settings.data_dir / "uploads", True
    return Path(tempfile.gettempdir()), False


def sweep(root: Path) -> int:
    """Remove what a killed server left behind; returns how many folders."""
    if not root.is_dir():
        return 0
    left = [p for p in root.iterdir() if p.is_dir() and p.name.startswith(PREFIX)]
    for folder in left:
        shutil.rmtree(folder, ignore_errors=True)
    return len(left)


def remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def _open(root: Path) -> tuple[Path, BinaryIO]:
    root.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=PREFIX, dir=root))
    return folder, (folder / "upload.part").open("wb")


def _named(folder: Path) -> Path:
    part = folder / "upload.part"
    with part.open("rb") as head:
        suffix = ".zip" if head.read(4) in ZIP_MAGIC else ".json"
    return part.rename(folder / f"upload{suffix}")


async def receive(chunks: AsyncIterator[bytes], root: Path) -> tuple[Path, Path, int]:
    """The body into a new folder under ``root``: (folder, file, bytes). Whatever stops it (the
    size limit, a client gone, a cancel) removes the folder before the exception goes on."""
    folder, handle = await asyncio.to_thread(_open, root)
    size = 0
    try:
        try:
            pending: list[bytes] = []
            held = 0
            async for chunk in chunks:
                pending.append(chunk)
                held += len(chunk)
                size += len(chunk)
                if held >= BUFFER:
                    await asyncio.to_thread(handle.write, b"".join(pending))
                    pending, held = [], 0
            if pending:
                await asyncio.to_thread(handle.write, b"".join(pending))
        finally:
            await asyncio.to_thread(handle.close)
        return folder, await asyncio.to_thread(_named, folder), size
    except BaseException:
        await asyncio.shield(asyncio.to_thread(remove, folder))
        raise
