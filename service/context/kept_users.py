"""The users whose event lines are kept (``UserContext``), least recently used dropped, with a
generation per user: a build that read the store before a write (or a forget) is thrown away
instead of kept, as the memories' analysed copies are (``service.memories.index.IndexCache``)."""

from __future__ import annotations

from collections import OrderedDict, defaultdict

from service.context.kept import UserContext

KEPT_USERS = 32  # a user of 20,000 events (12,000 lines in force) keeps about 40 MiB of lines and indexes


class KeptContexts:
    def __init__(self) -> None:
        self._users: OrderedDict[int, UserContext] = OrderedDict()
        self._generation: defaultdict[int, int] = defaultdict(int)

    def get(self, user_id: int) -> UserContext | None:
        kept = self._users.get(user_id)
        if kept is not None:
            self._users.move_to_end(user_id)
        return kept

    def generation(self, user_id: int) -> int:
        return self._generation[user_id]

    def keep(self, user_id: int, kept: UserContext, generation: int) -> None:
        if self._generation[user_id] != generation:
            return
        self._users[user_id] = kept
        while len(self._users) > KEPT_USERS:
            self._users.popitem(last=False)

    def forget(self, user_id: int) -> None:
        self._users.pop(user_id, None)
        self._generation[user_id] += 1
