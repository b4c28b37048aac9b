"""``rederive``: rebuild every derived view from the canonical records and report each difference
from what is stored (none, in a healthy store).

Canonical: the profile's patch history, the preference events, the ledger's history buckets and
the other records (catalog, memories, plays, aging records, switches); ``Rederiver.rederive_user``
lists the derived views checked. Without ``dry_run`` each difference is repaired (the derived view
replaces the stored one), so a second run reports none. Users are every user with a record or a
counter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.memories.service import MemoryStore
from service.profiles.supersession import forget_chains, mark_superseded, marks_held
from service.rederive.compare import Difference, difference, differing, json_safe
from service.rederive.heads import check_heads
from service.rederive.indexes import check_memory_index, check_search_index
from service.rederive.profile import check_profile
from service.search.engine import SearchEngine
from service.storage.database import Database
from service.storage.units import unit_of_work
from service.users import stats as user_stats

Progress = Callable[[int, int, int], None]  # (user_id, users done, users in all)


class Rederiver:
    def __init__(self, db: Database, caps: dict[str, int], search: SearchEngine, memories: MemoryStore) -> None:
        self._db = db
        self._caps = caps
        self._search = search
        self._memories = memories
        # A delete or an import changes a user's events around the append path: its kept chains go.
        search.on_user_reloaded(lambda user_id: forget_chains(db, user_id))

    async def users(self) -> list[int]:
        """Every user with a record in any collection, or a counter document (a counter left for
        a user without records is itself a difference)."""
        found: set[int] = set()
        for collection in (*self._db.user_collections(), self._db.user_stats):
            found.update(u for u in (await collection.count_by_user()) if isinstance(u, int))
        return sorted(found)

    async def rederive(
        self, user_id: int | None = None, dry_run: bool = False, progress: Progress | None = None
    ) -> dict[str, Any]:
        """The report: per user its differences (each repaired unless ``dry_run``), what was
        checked and what could not be; ``differences`` counts them all."""
        user_ids = [user_id] if user_id is not None else await self.users()
        rows = []
        for done, uid in enumerate(user_ids):
            rows.append(await self.rederive_user(uid, dry_run))
            if progress is not None:
                progress(uid, done + 1, len(user_ids))
        return {
            "users": rows,
            "differences": sum(len(r["differences"]) for r in rows),
            "dry_run": dry_run,
            "repaired": not dry_run and any(r["differences"] for r in rows),
        }

    @unit_of_work
    async def rederive_user(self, user_id: int, dry_run: bool = False) -> dict[str, Any]:
        """The derived views of one user, each checked against its canonical records:

        * ``playlist_head``: each playlist document against the projection of its buckets (``heads``);
        * ``counters``: the ``user_stats`` document against counts of the records;
        * ``supersession``: each like/dislike event's ``superseded_by`` against
          ``service.profiles.opinions.superseded``;
        * ``profile``: the stored profile against the replay of its history (``profile``; not checkable
          once the history cap dropped patches, and reported so);
        * ``search_index`` / ``memory_index``: the in-process indexes, when this process holds them
          (``indexes``: a CLI run holds none and says so).
        """
        write = not dry_run
        found: list[Difference] = []
        not_checked: list[dict[str, Any]] = []
        # The profile first: the counters copy its version and time.
        profile_differences, note = await check_profile(self._db, user_id, write)
        found += profile_differences
        if note is not None:
            not_checked.append(note)
            profile_status = "not_replayed"
        else:
            has_profile = await self._db.profiles.count_documents({"_id": user_id, "user_id": user_id})
            profile_status = "replayed" if has_profile else "none"
        heads, playlists = await check_heads(self._db, user_id, self._caps, write)
        found += heads
        async with marks_held(user_id):
            marks = await mark_superseded(self._db, user_id, write, strays=True)
            if marks and write:
                forget_chains(self._db, user_id)  # built from marks that were wrong
        found += [
            difference(
                "supersession",
                event_id,
                ["superseded_by"],
                "mark set" if old is None else "mark removed" if new is None else "mark changed",
                stored=old,
                derived=new,
            )
            for event_id, (old, new) in sorted(marks.items())
        ]
        found += await self._counters(user_id, write)
        # After the repairs above: a held index is compared with the store as now repaired.
        memory_differences, memory_status = await check_memory_index(self._db, self._memories, user_id, write)
        search_differences, search_status = await check_search_index(self._search, user_id, write)
        found += memory_differences + search_differences
        checked = {
            "playlists": playlists,
            "preference_events": await self._db.preference_events.count_documents({"user_id": user_id}),
            "profile": profile_status,
            "counters": "compared",
            "search_index": search_status,
            "memory_index": memory_status,
        }
        return {"user_id": user_id, "differences": json_safe(found), "checked": checked, "not_checked": not_checked}

    async def _counters(self, user_id: int, write: bool) -> list[Difference]:
        stored = await user_stats.stored(self._db, user_id)
        derived = await user_stats.derive(self._db, user_id)
        if stored is None and derived is None:
            return []
        if derived is None:
            fields, detail = [], "counters of a user without records"
        elif stored is None:
            fields, detail = [], "records without counters"
        else:
            # A counter the write path never bumped is absent from the document: zero.
            stored = {**dict.fromkeys(user_stats.FIELDS, 0), "updated_at": None, **stored}
            fields = differing(stored, derived, user_stats.FIELDS)
            if not fields:
                return []
            detail = "counters differ from the records"
        if write:
            await user_stats.recount(self._db, user_id)
        return [
            difference(
                "counters",
                user_id,
                fields,
                detail,
                stored={f: (stored or {}).get(f) for f in fields},
                derived={f: (derived or {}).get(f) for f in fields},
            )
        ]
