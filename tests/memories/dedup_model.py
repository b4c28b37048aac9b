"""A plain model of memory deduplication, written from the rule in the issue, not from the code.

Names come from known spellings of three entities, so "the same entities once folded" is the
same set of entity numbers; summaries come from two groups whose members share words within a
group and none across, so "summaries overlap" is "the same group". A statement restates the
memory of the same type, entities and summary group whose latest statement lies within 30 days
of it (the most recent such memory); otherwise, or when forced, it is a new memory.
"""

from __future__ import annotations

from dataclasses import dataclass

DAY_MS = 86_400_000
WINDOW_MS = 30 * DAY_MS

SPELLINGS = [
    ["The Zombies", "zombies", "ZOMBIES", "the zombies"],
    ["Odessey and Oracle", "odessey and oracle", "ODESSEY AND ORACLE"],
    ["Mötley Crüe", "Motley Crue", "motley crüe"],
]
SUMMARIES = [
    [
        "Recommended the baroque pop album",
        "Baroque pop album recommended for its harmonies",
        "The baroque pop record I recommended",
    ],
    ["Saw them live at the festival", "Their live festival set was loud"],
]


@dataclass
class ModelMemory:
    type: str
    entities: frozenset[int]
    group: int
    first_ms: int
    last_ms: int
    importance: int
    seen: int

    def observed(self) -> tuple[object, ...]:
        return (
            self.type,
            tuple(sorted(self.entities)),
            self.group,
            self.first_ms,
            self.last_ms,
            self.importance,
            self.seen,
        )


@dataclass
class DedupModel:
    memories: list[ModelMemory]

    def add(
        self, memory_type: str, entities: frozenset[int], group: int, at_ms: int, importance: int, forced: bool
    ) -> bool:
        """Apply one statement; True if it restated a stored memory."""
        same = [
            m
            for m in self.memories
            if not forced
            and m.type == memory_type
            and m.entities == entities
            and m.group == group
            and abs(m.last_ms - at_ms) <= WINDOW_MS
        ]
        if not same:
            self.memories.append(ModelMemory(memory_type, entities, group, at_ms, at_ms, importance, 1))
            return False
        target = max(same, key=lambda m: m.last_ms)
        target.first_ms = min(target.first_ms, at_ms)
        target.last_ms = max(target.last_ms, at_ms)
        target.importance = max(target.importance, importance)
        target.seen += 1
        return True
