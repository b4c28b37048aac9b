"""A plain reference model of the ledger moves (undo, redo, resync), written from SPEC §5.

Undo, as the spec words it: each undo reverses the latest change not already reversed (UNDO events
themselves skipped), restoring the contents and metadata from before it; a redo names an UNDO and
re-applies what it reversed; only the newest standing undo can be redone, and a new change ends
every pending redo. The model keeps the state after every event by sequence number and two
stacks of sequence numbers, nothing more.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tests.support.ledger_model import RefState, Rejected, ref_apply

META_FIELDS = ("name", "description", "intent_tags")


@dataclass
class RefLedger:
    states: list[RefState]  # states[seq]: after the event with that sequence number (0: creation)
    times: list[int]  # the moment (ms) of each sequence number
    event_ids: list[str | None] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    done: list[int] = field(default_factory=list)  # changes in force, oldest first
    redo: list[tuple[int, int]] = field(default_factory=list)  # (UNDO seq, the change it reversed)

    @classmethod
    def created(cls, state: RefState, at_ms: int) -> RefLedger:
        return cls([state], [at_ms], [None], ["CREATE"])

    @property
    def current(self) -> RefState:
        return self.states[-1]

    def _append(self, kind: str, state: RefState, at_ms: int) -> int:
        if at_ms < self.times[-1]:
            raise Rejected("CONFLICT")
        self.states.append(state)
        self.times.append(at_ms)
        self.types.append(kind)
        self.event_ids.append(None)
        return len(self.states) - 1

    def change(self, kind: str, payload: dict[str, Any], at_ms: int) -> int:
        if kind == "RESYNC":
            state = RefState(tuple(payload["track_ids"]), self.current.meta)
        else:
            state = ref_apply(self.current, kind, payload)
        seq = self._append(kind, state, at_ms)
        self.done.append(seq)
        self.redo.clear()
        return seq

    def undo(self, at_ms: int) -> tuple[int, int]:
        """(seq of the UNDO, seq of the change it reverses)."""
        if not self.done:
            raise Rejected("CONFLICT")
        if at_ms < self.times[-1]:
            raise Rejected("CONFLICT")
        change = self.done.pop()
        seq = self._append("UNDO", self.states[change - 1], at_ms)
        self.redo.append((seq, change))
        return seq, change

    def redo_of(self, undo_seq: int, at_ms: int) -> int:
        if not self.redo or self.redo[-1][0] != undo_seq or at_ms < self.times[-1]:
            raise Rejected("CONFLICT")
        _, change = self.redo.pop()
        seq = self._append("UNDO", self.states[undo_seq - 1], at_ms)
        self.done.append(change)
        return seq

    def at(self, ms: int) -> RefState | None:
        """The state at a moment: after every event stamped at or before it."""
        if ms < self.times[0]:
            return None
        last = max(s for s, t in enumerate(self.times) if t <= ms)
        return self.states[last]

    def events_between(self, after_ms: int | None, until_ms: int) -> list[str]:
        return [
            self.event_ids[s] or ""
            for s in range(1, len(self.states))
            if (after_ms is None or self.times[s] > after_ms) and self.times[s] <= until_ms
        ]


def lcs_length(a: list[str], b: list[str]) -> int:
    """Longest common subsequence, by the textbook table (the model's lists are short)."""
    row = [0] * (len(b) + 1)
    for x in a:
        previous_diagonal = 0
        for j, y in enumerate(b, 1):
            keep = row[j]
            row[j] = previous_diagonal + 1 if x == y else max(row[j], row[j - 1])
            previous_diagonal = keep
    return row[-1]


def check_diff(diff: dict[str, Any], before: RefState, after: RefState) -> None:
    """A diff answer is exact: it turns ``before`` into ``after`` and claims nothing else."""
    old, new = list(before.tracks), list(after.tracks)
    assert not diff["truncated"]
    assert diff["counts"] == {
        "added": len(diff["added"]),
        "removed": len(diff["removed"]),
        "moved": len(diff["moved"]),
        "events": len(diff["events"]),
    }
    # As multisets: added and removed are exactly the difference of the two lists.
    assert Counter(e["track_id"] for e in diff["added"]) == Counter(new) - Counter(old)
    assert Counter(e["track_id"] for e in diff["removed"]) == Counter(old) - Counter(new)
    for entry in diff["removed"]:
        assert old[entry["index"]] == entry["track_id"]
    for entry in diff["added"]:
        assert new[entry["index"]] == entry["track_id"]
    for entry in diff["moved"]:
        assert old[entry["from_index"]] == entry["track_id"] == new[entry["to_index"]]
    # Taking out the removed and moved tracks and putting the moved and added ones at their new
    # indices rebuilds the later list: the kept tracks keep their order.
    gone = {e["index"] for e in diff["removed"]} | {e["from_index"] for e in diff["moved"]}
    placed = {e["index"]: e["track_id"] for e in diff["added"]} | {e["to_index"]: e["track_id"] for e in diff["moved"]}
    kept = iter(t for i, t in enumerate(old) if i not in gone)
    assert [placed[j] if j in placed else next(kept) for j in range(len(new))] == new
    assert next(kept, None) is None
    if len(set(old)) == len(old) and len(set(new)) == len(new):
        # Distinct tracks: as few moves as possible (the kept tracks are a longest common subsequence).
        common = len(set(old) & set(new))
        assert common - len(diff["moved"]) == lcs_length(old, new)
    expected_meta = [
        {"field": k, "from": before.meta.get(k), "to": after.meta.get(k)}
        for k in META_FIELDS
        if before.meta.get(k) != after.meta.get(k)
    ]
    assert diff["meta_changes"] == expected_meta
