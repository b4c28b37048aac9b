"""Joining an export's continuation parts into one set of records per section, for the importer
(``service/transfer/build.py``): playlists split across parts, pieces larger than a part sent as
``chunks`` (consecutive slices of their JSON text). Checks only the parts' framing; the records
themselves are checked where they are built."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from service.errors import InvalidArgument, MemoryServiceError
from service.transfer.memories import SECTIONS as MEMORY_SECTIONS

FORMAT = "taste-memory-export/1"


@contextmanager
def checking(section: str) -> Iterator[None]:
    """Anything malformed inside ``section`` (a missing key, a wrong type, a bad date) is the
    caller's data, not a fault of the service."""
    try:
        yield
    except MemoryServiceError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as exc:
        where = "data" if section == "data" else f"data.{section}"
        raise InvalidArgument(
            f"the export is malformed in {where} ({type(exc).__name__}: {exc})"[:300], {"field": where}
        ) from None


def record(value: Any, section: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidArgument(f"a piece of data.{section} is not an object", {"field": f"data.{section}"})
    return value


# A piece's section → the export list it belongs to (what an error names).
LISTS = {
    "profile": "profile",
    "preference_event": "preference_events",
    "track": "tracks",
    "track_choice": "track_choices",
    "playlist": "playlists",
    "snapshot": "playlists",
    "event": "playlists",
    **dict(MEMORY_SECTIONS.items()),
}


def _place(merged: dict[str, Any], section: str, body: Any, pid: str | None) -> None:
    body = record(body, LISTS.get(section, "chunks"))
    if section == "profile":
        merged["profile"] = body
    elif section == "preference_event":
        merged["preference_events"].append(body)
    elif section in ("track", "track_choice"):
        merged[f"{section}s"].append(body)
    elif section in MEMORY_SECTIONS:
        merged[MEMORY_SECTIONS[section]].append(body)
    elif section in ("playlist", "snapshot", "event"):
        pid = pid or body["playlist_id"]
        if not isinstance(pid, str):
            raise InvalidArgument("a playlist_id in the export is not a string", {"field": "data.playlists"})
        target = merged["playlists"].setdefault(pid, {"snapshots": [], "events": []})
        if section == "playlist":
            target.update({k: v for k, v in body.items() if k not in ("snapshots", "events")})
        else:
            target[f"{section}s"].append(body)
    else:
        raise InvalidArgument(f"a chunk names an unknown section {section!r}"[:200], {"field": "data.chunks"})


def _lists(data: dict[str, Any], name: str, where: str | None = None) -> list[Any]:
    value = data.get(name) or []
    if not isinstance(value, list):
        raise InvalidArgument(f"data.{name} is not a list", {"field": f"data.{where or name}"})
    return value


def _merge_part(merged: dict[str, Any], data: Any, pending: str) -> str:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InvalidArgument(f"not a taste-memory export (format {FORMAT})", {"field": "data.format"})
    if data.get("profile"):
        _place(merged, "profile", data["profile"], None)
    with checking("preference_events"):
        for event in _lists(data, "preference_events"):
            _place(merged, "preference_event", event, None)
    with checking("playlists"):
        for entry in _lists(data, "playlists"):
            pid = record(entry, "playlists")["playlist_id"]
            _place(merged, "playlist", entry, pid)
            for section in ("snapshot", "event"):
                for body in _lists(entry, f"{section}s", "playlists"):
                    _place(merged, section, body, pid)
    for section in ("track", "track_choice"):  # absent from exports made before the catalog existed
        for body in _lists(data, f"{section}s"):
            _place(merged, section, body, None)
    for section, name in MEMORY_SECTIONS.items():  # absent from exports made before memories existed
        for body in _lists(data, name):
            _place(merged, section, body, None)
    with checking("chunks"):
        for chunk in _lists(data, "chunks"):
            pending += chunk["text"]
            if chunk["index"] == chunk["count"] - 1:
                _place(merged, chunk["section"], json.loads(pending), chunk.get("playlist_id"))
                pending = ""
    return pending


def merge_parts(parts: list[Any]) -> dict[str, Any]:
    """Join continuation parts: playlists split across parts, oversize pieces sent as chunks."""
    merged: dict[str, Any] = {
        "profile": None,
        "preference_events": [],
        "playlists": {},
        "tracks": [],
        "track_choices": [],
        **{name: [] for name in MEMORY_SECTIONS.values()},
    }
    if not parts:
        raise InvalidArgument("the export has no part", {"field": "data"})
    pending = ""
    for data in parts:
        pending = _merge_part(merged, data, pending)
    if pending:
        raise InvalidArgument("the export ends inside a chunked piece: a part is missing", {"field": "data.chunks"})
    return merged
