"""The engine switch. Embedded: an in-memory index per user (mongomock has no ``$text``, and a scan
per query would not scale), built from that user's documents the first time the user is searched
and kept up to date by every write from then on (``SearchEngine``). MongoDB: ``$text`` over the
weighted text indexes, and a typo-tolerant pass over the user's entries when ``$text`` finds
nothing. Either way a search reads only the caller's user's entries.

Search by meaning (``semantic``): each held index also keeps the user's vectors; embedded, the
hybrid ranking runs on it (``service.search.hybrid``); on MongoDB the index is held for its vectors
alone, and ``service.search.mongo_search`` checks each hit found by meaning against the store.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from service.search import updates
from service.search.fields import Entry
from service.search.hits import SearchHit
from service.search.hybrid import rank_hybrid
from service.search.index import UserIndex
from service.search.loading import load_entries
from service.search.mongo_search import text_ranked, with_meaning
from service.search.ranking import rank, to_hit
from service.search.semantic.model import model_identity, shared_model
from service.search.semantic.query import Meaning, meaning_of
from service.search.semantic.user import UserMeaning
from service.search.updates import Update
from service.storage.database import Database
from service.text.analysis import ParsedQuery, parse_query
from service.text.naming import names_any

HELD_MAX_AGE_S = 300.0  # MongoDB: a held index (for its vectors) is rebuilt once this old


@dataclass
class _Build:
    """A user's index being built: who waits for it, and the writes made meanwhile."""

    task: asyncio.Task[UserIndex] | None = None
    pending: list[Update] = field(default_factory=list)
    dropped: bool = False


class SearchEngine:
    """Lazy indexes, precisely (embedded engine):

    * nothing is indexed at start-up; ``warm_up`` (a background task of the server) may build users
      one at a time, yielding to the event loop, so first searches are usually already warm;
    * a write to a user whose index is not built changes nothing here: the build reads the store,
      which already holds the write;
    * a write while that user's index is being built is queued and applied to the finished index,
      so a build that read the store before the write still ends up with it (every update is
      idempotent: it sets an entry to what the store now holds);
    * a deleted or re-imported user's index is dropped (a build under way is discarded), and the
      next search builds it again from what the store then holds;
    * a build yields to the event loop every few milliseconds, so a large user's first search does
      not stall the other sessions.
    """

    def __init__(self, db: Database, semantic: bool = False) -> None:
        self._db = db
        self.in_memory = db.engine == "embedded"
        self.semantic = semantic
        # Embedded: the index is the search path. MongoDB with meaning on: held for its vectors.
        self._holds = self.in_memory or semantic
        self._built_at: dict[int, float] = {}  # monotonic time each held index was built
        self._users: dict[int, UserIndex] = {}  # built indexes, kept until the user is dropped
        self._profile_versions: dict[int, int] = {}
        self._building: dict[int, _Build] = {}
        self._reload_listeners: list[Callable[[int], None]] = []

    @property
    def meaning_model(self) -> str | None:
        """The model of search by meaning (name, version, dimensions), None when it is off."""
        return model_identity() if self.semantic else None

    def on_user_reloaded(self, listener: Callable[[int], None]) -> None:
        """Call ``listener(user_id)`` whenever a user's data changes around the write path (a
        delete, an import): other per-user caches (the track resolver's) drop that user too."""
        self._reload_listeners.append(listener)

    # -- building -------------------------------------------------------------------------------
    @property
    def built_users(self) -> int:
        return len(self._users)

    @property
    def indexed_entries(self) -> int:
        return sum(len(i) for i in self._users.values())

    def held_index(self, user_id: int) -> UserIndex | None:
        """The user's index if this process has built it (``rederive`` compares it with the store)."""
        return self._users.get(user_id) if self.in_memory else None

    async def index_from_store(self, user_id: int) -> UserIndex:
        """A new index of the user built from the store, not kept."""
        index, _ = await self._load_user(user_id)
        return index

    async def warm_up(self, user_ids: Iterable[int]) -> tuple[int, float]:
        """Build the index of each user not built yet, one at a time, yielding between users
        (and within a large one); return (entries indexed, seconds). Nothing on real MongoDB."""
        started = time.perf_counter()
        if self.in_memory:
            for user_id in user_ids:
                if user_id not in self._users:
                    await self._index(user_id)
                await asyncio.sleep(0)
        return self.indexed_entries, time.perf_counter() - started

    async def _index(self, user_id: int) -> UserIndex:
        """The user's index, built from the store on first use; concurrent first uses share one
        build, and a build dropped meanwhile (the user deleted or re-imported) is done again."""
        while True:
            index = self._users.get(user_id)
            if index is not None:
                return index
            build = self._building.get(user_id)
            if build is None:
                build = self._building[user_id] = _Build()
                build.task = asyncio.ensure_future(self._build(user_id, build))
            assert build.task is not None
            # A caller that goes away (its request cancelled) does not cancel the shared build.
            index = await asyncio.shield(build.task)
            if not build.dropped:
                return index

    async def _build(self, user_id: int, build: _Build) -> UserIndex:
        try:
            index, version = await self._load_user(user_id)
            if version is not None and not build.dropped:  # an older profile view queued is stale
                self._profile_versions[user_id] = max(version, self._profile_versions.get(user_id, 0))
            while build.pending and not build.dropped:  # writes made while the store was read
                applied = build.pending.pop(0)(index)
                if inspect.isawaitable(applied):
                    await applied
            if not build.dropped:  # no await from the last check to here: nothing slips between
                self._users[user_id] = index
                self._built_at[user_id] = time.monotonic()
            return index
        finally:
            if self._building.get(user_id) is build:
                del self._building[user_id]

    def _apply(self, user_id: int, update: Update) -> Awaitable[None] | None:
        """Apply a write to the user's index if built, queue it if a build is under way; else
        nothing (the build will read the write from the store)."""
        index = self._users.get(user_id)
        if index is not None:
            return update(index)
        build = self._building.get(user_id)
        if build is not None:
            build.pending.append(update)
        return None

    # -- after each successful write (the updates themselves: ``updates``) -------------------------
    def profile_changed(self, user_id: int, view: dict[str, Any]) -> None:
        """``view``: the profile as stored or as ``update_profile`` answers (profile, version …)."""
        if self._holds:
            self._apply(user_id, updates.profile_update(user_id, view, self._profile_versions))

    def event_appended(self, user_id: int, event: dict[str, Any]) -> None:
        if self._holds:
            self._apply(user_id, updates.event_update(event))

    def playlist_created(self, user_id: int, arguments: dict[str, Any], created_at: datetime) -> None:
        if self._holds:
            self._apply(user_id, updates.playlist_created_update(arguments, created_at))

    async def playlist_changed(self, user_id: int, playlist_id: str, mutation_type: str, moment: datetime) -> None:
        if not self._holds:
            return
        update = updates.playlist_changed_update(self._db, user_id, playlist_id, mutation_type, moment)
        applied = self._apply(user_id, update)
        if applied is not None:
            await applied

    def tracks_changed(self, user_id: int, tracks: dict[str, dict[str, Any]]) -> None:
        """``tracks``: track_id → the track as now stored (inserted or rewritten)."""
        if self._holds:
            self._apply(user_id, updates.tracks_update(tracks))

    def memories_changed(self, user_id: int, memories: list[dict[str, Any]]) -> None:
        """``memories``: typed memories as now stored (added, restated, compressed, validated)."""
        if self._holds:
            self._apply(user_id, updates.memories_update(memories))

    def memories_removed(self, user_id: int, memory_ids: list[str]) -> None:
        if self._holds:
            self._apply(user_id, updates.memories_removed_update(memory_ids))

    def user_deleted(self, user_id: int) -> None:
        """Forget the user's index (a build under way is discarded); the next search rebuilds it."""
        for listener in self._reload_listeners:
            listener(user_id)
        self._drop(user_id)

    def _drop(self, user_id: int) -> None:
        self._users.pop(user_id, None)
        self._profile_versions.pop(user_id, None)
        self._built_at.pop(user_id, None)
        build = self._building.pop(user_id, None)
        if build is not None:
            build.dropped = True

    async def user_reloaded(self, user_id: int) -> None:
        """After an import or a delete: the store changed around the write path, so the user's
        index is dropped and built again, from the store, on its next search."""
        self.user_deleted(user_id)

    async def _load_user(self, user_id: int, with_meaning: bool = True) -> tuple[UserIndex, int | None]:
        """The user's index from the store, and the profile version it holds."""
        index = UserIndex(UserMeaning(shared_model()) if self.semantic and with_meaning else None)
        return index, await load_entries(self._db, user_id, index)

    async def _held(self, user_id: int) -> UserIndex:
        """The user's index; on MongoDB rebuilt once older than ``HELD_MAX_AGE_S`` (other processes
        write too), the old one dropped first so no two builds of one user overlap."""
        built = self._built_at.get(user_id)
        if not self.in_memory and built is not None and time.monotonic() - built > HELD_MAX_AGE_S:
            self._drop(user_id)
        return await self._index(user_id)

    # -- queries ----------------------------------------------------------------------------------
    async def search(self, user_id: int, query: str, limit: int, detail: str = "lean") -> list[SearchHit]:
        """The best hits; what is kept out of sight (a sensitive memory, event or profile field) only
        when the query names it, so it never comes back for words that merely mean something close."""
        return [
            hit
            for hit, entry in await self._ranked(user_id, query, limit, detail)
            if entry.hidden_unless is None or names_any(entry.hidden_unless, text=query)
        ]

    async def _ranked(self, user_id: int, query: str, limit: int, detail: str) -> list[tuple[SearchHit, Entry]]:
        parsed = parse_query(query)
        if parsed.empty:
            return []
        if not self.in_memory:
            return await self._text_search(user_id, parsed, limit, detail)
        index = await self._index(user_id)
        if index.meaning is not None and index.entries:
            meaning = meaning_of(index.meaning, index.postings, len(index.entries), parsed)
            return [
                (to_hit(score, entry, terms, detail, index.entries[(entry.kind, entry.id)].field_terms, alone), entry)
                for score, entry, terms, alone in rank_hybrid(index, parsed, limit, meaning)
            ]
        return [
            (to_hit(score, entry, terms, detail, index.entries[(entry.kind, entry.id)].field_terms), entry)
            for score, entry, terms in rank(index, parsed, limit)
        ]

    async def meaning(self, user_id: int, text: str, kind: str | None = None) -> Meaning | None:
        """What ``text`` means among the user's entries (of ``kind``): None when search by meaning
        is off or the text has no words (``memory_query`` fuses it with its own ranking)."""
        parsed = parse_query(text)
        if not self.semantic or parsed.empty:
            return None
        index = await self._held(user_id)
        if index.meaning is None or not index.entries:
            return None
        return meaning_of(index.meaning, index.postings, len(index.entries), parsed, kind)

    async def _text_search(
        self, user_id: int, parsed: ParsedQuery, limit: int, detail: str
    ) -> list[tuple[SearchHit, Entry]]:
        profile = await self._db.profiles.find_one({"_id": user_id, "user_id": user_id}, {"history": 0})
        lexical = await text_ranked(self._db, user_id, parsed, limit, profile)
        if not lexical:  # nothing by exact words: the typo-tolerant pass over this user's entries
            lexical = rank((await self._load_user(user_id, with_meaning=False))[0], parsed, limit)
        meaning = None
        if self.semantic:
            index = await self._held(user_id)
            if index.meaning is not None and index.entries:
                meaning = meaning_of(index.meaning, index.postings, len(index.entries), parsed)
        if meaning is None:
            return [(to_hit(score, entry, terms, detail), entry) for score, entry, terms in lexical]
        fused = await with_meaning(self._db, user_id, lexical, meaning, limit, profile)
        return [(to_hit(score, entry, terms, detail, None, alone), entry) for score, entry, terms, alone in fused]
