"""Per-user values built from the store and kept in this process, least recently used dropped first,
with a generation per user: a build that read the store before a write (or a forget, a delete) is
thrown away instead of kept."""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from typing import Generic, TypeVar

T = TypeVar("T")


class UserCache(Generic[T]):
    def __init__(self, most: int) -> None:
        self._most = most
        self._values: OrderedDict[int, T] = OrderedDict()
        self._generation: defaultdict[int, int] = defaultdict(int)

    def get(self, user_id: int) -> T | None:
        value = self._values.get(user_id)
        if value is not None:
            self._values.move_to_end(user_id)
        return value

    def generation(self, user_id: int) -> int:
        """Read before building; ``keep`` stores the build only if no ``forget`` came between."""
        return self._generation[user_id]

    def keep(self, user_id: int, value: T, generation: int) -> None:
        if self._generation[user_id] != generation:
            return
        self._values[user_id] = value
        while len(self._values) > self._most:
            self._values.popitem(last=False)

    def forget(self, user_id: int) -> None:
        self._values.pop(user_id, None)
        self._generation[user_id] += 1
