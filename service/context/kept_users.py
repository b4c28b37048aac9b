"""The users whose event lines are kept (``UserContext``): a ``UserCache`` (least recently used
dropped; a build that read the store before a write or a forget is thrown away instead of kept)."""

from __future__ import annotations

from service.context.kept import UserContext
from service.user_cache import UserCache

KEPT_USERS = 32  # a user of 20,000 events (12,000 lines in force) keeps about 40 MiB of lines and indexes


def kept_contexts() -> UserCache[UserContext]:
    return UserCache(KEPT_USERS)
