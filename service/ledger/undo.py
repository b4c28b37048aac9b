"""Which change an undo reverses and which undo a redo re-applies: pure, over a playlist's events.

SPEC §5: each undo reverses the latest change not already reversed (UNDO events themselves are
skipped), so k undos walk back k changes; a redo is an UNDO aimed at an UNDO event and re-applies
what it reversed. That is the editor's pair of stacks: a change goes on the done stack and clears
the redo stack; an undo moves the top change to the redo stack; a redo moves it back. Only the top
of the redo stack can be redone: an older undo would bring back a state that the newer undo's
change was built on top of. Creation (and the FORK that made a playlist) is on neither stack.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from service.errors import InvalidArgument, NothingToUndo, NotRedoable, PlaylistNotFound
from service.ledger.records import LedgerEvent
from service.ledger.state import CHANGE_TYPES


@dataclass
class UndoStacks:
    done: list[LedgerEvent] = field(default_factory=list)  # changes in force, oldest first
    redo: list[tuple[LedgerEvent, LedgerEvent]] = field(default_factory=list)  # (UNDO, change it reversed)

    def push(self, event: LedgerEvent) -> None:
        if event["type"] in CHANGE_TYPES:
            self.done.append(event)
            self.redo.clear()
        elif event["type"] == "UNDO":
            if event["payload"].get("redo"):
                _, change = self.redo.pop()
                self.done.append(change)
            else:
                self.redo.append((event, self.done.pop()))


def undo_stacks(events: list[LedgerEvent]) -> UndoStacks:
    """The stacks after these events (all of one playlist's, in sequence order)."""
    stacks = UndoStacks()
    for event in events:
        stacks.push(event)
    return stacks


@dataclass(frozen=True)
class UndoTarget:
    """What the next UNDO event restores: the state after ``restore_seq`` events, and what it names."""

    restore_seq: int
    undoes: LedgerEvent  # the change reversed, or the UNDO event re-applied by a redo
    redo: bool


def choose_target(events: list[LedgerEvent], redo_of: str | None) -> UndoTarget:
    """The undo (or, with ``redo_of`` naming an UNDO event, the redo) the next call performs."""
    stacks = undo_stacks(events)
    if redo_of is None:
        if not stacks.done:
            raise NothingToUndo(
                "nothing left to undo: every change is undone, and a playlist's creation cannot be",
                {"reason": "nothing_to_undo"},
            )
        change = stacks.done[-1]
        return UndoTarget(change["seq"] - 1, change, redo=False)
    named = next((e for e in events if e["event_id"] == redo_of), None)
    if named is None:
        raise PlaylistNotFound("no event with this id in this playlist", {"field": "event_id"})
    if named["type"] != "UNDO":
        raise InvalidArgument(
            "event_id must name an UNDO event (a redo re-applies what it reversed)",
            {"field": "event_id", "type": named["type"]},
        )
    top = stacks.redo[-1][0] if stacks.redo else None
    if top is None or top["event_id"] != redo_of:
        raise NotRedoable(
            "only the latest undo still standing can be redone (a change or another redo came after this one)",
            {"reason": "not_redoable", "redoable_event_id": top["event_id"] if top else None},
        )
    return UndoTarget(named["seq"] - 1, named, redo=True)
