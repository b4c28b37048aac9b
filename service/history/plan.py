"""Which files of a source are imported, in which format. Each file's format is recognised from
its first element, whatever its name. Spotify's account data repeats, to the minute, what the
extended streaming history holds to the second, and the two cannot be matched play for play: when
a source holds extended history, its account-data files are left out (in auto mode)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from service.errors import InvalidArgument
from service.history.formats import lastfm, spotify_account, spotify_extended
from service.history.reader import MalformedJson, elements
from service.history.sources import HistoryFile, history_files

FORMATS: dict[str, ModuleType] = {m.NAME: m for m in (spotify_account, spotify_extended, lastfm)}
AUTO = "auto"


@dataclass(frozen=True)
class Planned:
    file: HistoryFile
    format: ModuleType | None  # None: left out, for ``note``
    note: str = ""


def plan(path: Path, wanted: str = AUTO) -> list[Planned]:
    if wanted != AUTO and wanted not in FORMATS:
        raise InvalidArgument(f"unknown format {wanted!r}", {"field": "format"})
    files = history_files(path)
    found = [(f, _recognised(f)) for f in files]
    extended = any(module is spotify_extended for _, module in found)
    planned = []
    for file, module in found:
        if module is None:
            planned.append(Planned(file, None, "not a listening history"))
        elif wanted != AUTO and wanted != module.NAME:
            planned.append(Planned(file, None, f"{module.NAME}, not {wanted}"))
        elif wanted == AUTO and module is spotify_account and extended:
            planned.append(Planned(file, None, "account data beside the extended history"))
        else:
            planned.append(Planned(file, module))
    if not any(p.format is not None for p in planned):
        raise InvalidArgument(
            f"{path}: no listening history of format {wanted} found", {"field": "path", "reason": "no_history"}
        )
    return planned


def _recognised(file: HistoryFile) -> ModuleType | None:
    try:
        with file.open() as text:
            first = next(elements(text), None)
    except (MalformedJson, UnicodeDecodeError):
        return None
    return next((m for m in FORMATS.values() if m.looks_like(first)), None)
