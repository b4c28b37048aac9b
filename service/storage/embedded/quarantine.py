"""Users with a damaged record: their sound records held aside, out of the store, until salvaged.

Held aside rather than loaded, nothing the service does can read a partial user as if whole, or
write over the damaged records (the journal refuses those users' rows too); every other user is
served as usual.
"""

from __future__ import annotations

import logging
from typing import Any

from service.storage.embedded.records import Damage
from service.storage.embedded.tuning.user_index import by_user

log = logging.getLogger(__name__)

Held = list[tuple[str, dict[str, Any]]]  # (collection, document)


class Quarantine:
    def __init__(self) -> None:
        self.damage: list[Damage] = []  # every damaged record found when the store was opened
        self.users: dict[int, list[Damage]] = {}
        self._held: dict[int, Held] = {}

    def set_aside(self, damage: list[Damage], stores: dict[str, Any]) -> int:
        """Take every record of a user with a damaged record out of the stores; return how many."""
        self.damage = list(damage)
        for found in damage:
            if found.user_id is None:
                log.error("store: damaged record %s (%s) belongs to no user: not loaded", found.record, found.reason)
                continue
            log.error(
                "store: damaged record %s of user %d (%s): user quarantined", found.record, found.user_id, found.reason
            )
            self.users.setdefault(found.user_id, []).append(found)
        held = 0
        for user_id in self.users:
            kept = self._held.setdefault(user_id, [])
            for name, store in stores.items():
                for doc_id in list(by_user(store).get(user_id, {})):
                    kept.append((name, store._documents[doc_id]))
                    del store[doc_id]
                    held += 1
        return held

    def release(self, user_id: int) -> tuple[list[Damage], Held]:
        """Lift the user's quarantine: (its damaged records, its sound records to put back)."""
        return self.users.pop(user_id, []), self._held.pop(user_id, [])
