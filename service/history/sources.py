"""Where history files are: one JSON file, a folder of them, or the ZIP as a service ships it
(read member by member, never unpacked). Files are taken in name order, so a run is repeatable."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from service.errors import InvalidArgument


@dataclass(frozen=True)
class HistoryFile:
    name: str  # as shown in the report: the path, or the member inside the ZIP
    size: int  # bytes, for progress
    open: Callable[[], AbstractContextManager[TextIO]]


def history_files(path: Path) -> list[HistoryFile]:
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.is_file() and (p.suffix.lower() == ".json" or _is_zip(p)))
        return [f for p in found for f in history_files(p)]
    if not path.is_file():
        raise InvalidArgument(f"{path}: no such file or folder", {"field": "path", "reason": "not_found"})
    if _is_zip(path):
        return _zip_members(path)
    return [HistoryFile(str(path), path.stat().st_size, lambda: _text_file(path))]


def _is_zip(path: Path) -> bool:
    return path.suffix.lower() == ".zip" and zipfile.is_zipfile(path)


def _zip_members(path: Path) -> list[HistoryFile]:
    with zipfile.ZipFile(path) as archive:
        members = sorted(
            (m for m in archive.infolist() if not m.is_dir() and m.filename.lower().endswith(".json")),
            key=lambda m: m.filename,
        )
    return [HistoryFile(f"{path}:{m.filename}", m.file_size, _member_opener(path, m.filename)) for m in members]


def _member_opener(path: Path, member: str) -> Callable[[], AbstractContextManager[TextIO]]:
    return lambda: _zip_text(path, member)


@contextmanager
def _text_file(path: Path) -> Iterator[TextIO]:
    with path.open(encoding="utf-8-sig") as text:  # utf-8-sig: a byte-order mark is not data
        yield text


@contextmanager
def _zip_text(path: Path, member: str) -> Iterator[TextIO]:
    with zipfile.ZipFile(path) as archive, archive.open(member) as raw:
        yield io.TextIOWrapper(raw, encoding="utf-8-sig")
