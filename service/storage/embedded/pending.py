"""What each call has changed and not yet committed, so a call commits (or undoes) its own changes.

A call's changes are its unit of work: committed together in one SQLite transaction when it
ends, or, if it fails, put back to what the file holds, so an error answer leaves no trace and a
concurrent call's commit never carries another call's half-done work to disk.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextvars import ContextVar
from typing import Any

from service.errors import StorageFault, StorageUnavailable

Key = tuple[str, Any]  # (collection, _id)
# Whole document (insert, replace, delete) rather than named fields.
ALL_FIELDS = None
Changes = dict[Key, set[str] | None]  # key -> the top-level fields changed, or ALL_FIELDS


def merge(changes: Changes, key: Key, fields: Iterable[str] | None) -> None:
    if fields is ALL_FIELDS:
        changes[key] = ALL_FIELDS
    elif key not in changes:
        changes[key] = set(fields)
    else:
        pending = changes[key]
        if pending is not ALL_FIELDS:
            pending.update(fields)


class Unit:
    """One call's uncommitted changes; ``undone`` once another failure put any of them back."""

    def __init__(self) -> None:
        self.changes: Changes = {}
        self.undone: StorageUnavailable | None = None


current_unit: ContextVar[Unit | None] = ContextVar("current_unit", default=None)


def undo_reach(units: Iterable[Unit], keys: set[Key]) -> set[Key]:
    """Every document to put back when ``keys`` go back: each running call that changed any of
    them is undone (it will answer an error), and its other changes go back too, to a fixed point."""
    keys = set(keys)
    frontier = set(keys)
    while frontier:
        reached: set[Key] = set()
        for unit in units:
            if unit.changes.keys() & frontier and unit.undone is None:
                unit.undone = StorageFault("a failed write of another call undid this call's changes; retry")
            if unit.undone is not None:
                reached |= set(unit.changes) - keys
        keys |= reached
        frontier = reached
    return keys
