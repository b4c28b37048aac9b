"""One lock per user, held while a memory_add decides between a new memory and a restatement,
so two concurrent restatements in this process make one memory (seen twice), not two."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class UserLocks:
    def __init__(self) -> None:
        self._locks: dict[int, asyncio.Lock] = {}
        self._users: dict[int, int] = {}  # holders and waiters per user: the lock goes with the last

    @asynccontextmanager
    async def held(self, user_id: int) -> AsyncIterator[None]:
        lock = self._locks.setdefault(user_id, asyncio.Lock())
        self._users[user_id] = self._users.get(user_id, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._users[user_id] -= 1
            if not self._users[user_id]:
                del self._users[user_id]
                del self._locks[user_id]
