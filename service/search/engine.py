"""The engine switch. Embedded: an in-memory index per user, updated by every write and rebuilt
at start-up (mongomock has no ``$text``, and a scan per query would not scale). MongoDB: ``$text``
over the weighted text indexes, and a typo-tolerant pass over the user's entries when ``$text``
finds nothing. Either way a search reads only the caller's user's entries."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from service.ledger.keys import head_id
from service.search.analysis import ParsedQuery, parse_query
from service.search.fields import (
    PLAYLIST_FIELDS,
    Entry,
    event_entry,
    playlist_entry,
    profile_entries,
)
from service.search.index import UserIndex, analyse
from service.search.mongo_text import text_hits, text_query
from service.search.ranking import rank, to_hit
from service.storage import Database


def _index_of(entries: list[Entry]) -> UserIndex:
    index = UserIndex()
    for entry in entries:
        index.put(entry)
    return index


class SearchEngine:
    def __init__(self, db: Database) -> None:
        self._db = db
        self.in_memory = db.engine == "embedded"
        self._users: dict[int, UserIndex] = {}
        self._profile_versions: dict[int, int] = {}

    # -- start-up -----------------------------------------------------------------------------
    async def rebuild(self) -> tuple[int, float]:
        """Index every stored entry (embedded engine); return (entries, seconds)."""
        started = time.perf_counter()
        self._users.clear()
        self._profile_versions.clear()
        if self.in_memory:
            for head in await self._db.playlists.find({}, PLAYLIST_FIELDS):
                self._user(head["user_id"]).put(playlist_entry(head))
            for event in await self._db.preference_events.find({}):
                self._user(event["user_id"]).put(event_entry(event))
            for document in await self._db.profiles.find({}, {"history": 0}):
                self.profile_changed(document["user_id"], document)
        return sum(len(i) for i in self._users.values()), time.perf_counter() - started

    def _user(self, user_id: int) -> UserIndex:
        index = self._users.get(user_id)
        if index is None:
            index = self._users[user_id] = UserIndex()
        return index

    # -- after each successful write ------------------------------------------------------------
    def profile_changed(self, user_id: int, view: dict[str, Any]) -> None:
        """``view``: the profile as stored or as ``update_profile`` answers (profile, version …)."""
        if not self.in_memory or view.get("version", 0) < self._profile_versions.get(user_id, 0):
            return
        self._profile_versions[user_id] = view.get("version", 0)
        index = self._user(user_id)
        for key in index.keys_of_kind("profile"):
            index.remove(key)
        for entry in profile_entries(view):
            index.put(entry)

    def event_appended(self, user_id: int, event: dict[str, Any]) -> None:
        if self.in_memory:
            self._user(user_id).put(event_entry(event))

    def playlist_created(self, user_id: int, arguments: dict[str, Any], created_at: datetime) -> None:
        index = self._user(user_id) if self.in_memory else None
        if index is None or ("playlist", arguments["playlist_id"]) in index.entries:
            return  # a replayed create changes nothing (and must not undo a later rename)
        head = {k: arguments[k] for k in ("playlist_id", "name", "description", "intent_tags", "seed_context")
                if k in arguments}
        index.put(playlist_entry({**head, "created_at": created_at, "updated_at": created_at}))

    async def playlist_changed(self, user_id: int, playlist_id: str, mutation_type: str, moment: datetime) -> None:
        if not self.in_memory:
            return
        index = self._user(user_id)
        if mutation_type == "UPDATE_META":
            head = await self._db.playlists.find_one({"_id": head_id(user_id, playlist_id)}, PLAYLIST_FIELDS)
            if head is not None:
                index.put(playlist_entry(head))
            return
        indexed = index.entries.get(("playlist", playlist_id))
        if indexed is not None:
            known = indexed.entry.metadata.get("updated_at")
            try:
                later = known is None or moment > known
            except TypeError:  # naive and aware datetimes: trust the newest write
                later = True
            if later:
                indexed.entry.metadata["updated_at"] = moment

    def user_deleted(self, user_id: int) -> None:
        self._users.pop(user_id, None)
        self._profile_versions.pop(user_id, None)

    async def user_reloaded(self, user_id: int) -> None:
        """Re-index one user from the database (after an import)."""
        if self.in_memory:
            self.user_deleted(user_id)
            self._users[user_id] = await self._load_user(user_id)

    async def _load_user(self, user_id: int) -> UserIndex:
        entries = [playlist_entry(h) for h in await self._db.playlists.find({"user_id": user_id}, PLAYLIST_FIELDS)]
        entries += [event_entry(e) for e in await self._db.preference_events.find({"user_id": user_id})]
        profile = await self._db.profiles.find_one({"_id": user_id}, {"history": 0})
        if profile is not None:
            entries += profile_entries(profile)
            self._profile_versions[user_id] = profile["version"]
        return _index_of(entries)

    # -- queries ----------------------------------------------------------------------------------
    async def search(self, user_id: int, query: str, limit: int) -> list[dict[str, Any]]:
        parsed = parse_query(query)
        if parsed.empty:
            return []
        if self.in_memory:
            index = self._users.get(user_id)
            return [to_hit(*hit) for hit in rank(index, parsed, limit)] if index else []
        return await self._text_search(user_id, parsed, limit)

    async def _text_search(self, user_id: int, parsed: ParsedQuery, limit: int) -> list[dict[str, Any]]:
        found: list[tuple[float, Entry]] = []
        for name in ("playlists", "preference_events"):
            args = text_query(user_id, parsed, name, limit)
            documents = await getattr(self._db, name).find(
                args["filter"], args["projection"], sort=args["sort"], limit=args["limit"]
            )
            found += text_hits(documents, name, parsed)
        if not found:  # nothing by exact words: the typo-tolerant pass over this user's entries
            index = await self._load_user(user_id)
            return [to_hit(*hit) for hit in rank(index, parsed, limit)]
        profile = await self._db.profiles.find_one({"_id": user_id}, {"history": 0})
        ranked = rank(_index_of(profile_entries(profile) if profile else []), parsed, limit)
        query_terms = set(parsed.terms)
        ranked += [(score, entry, query_terms & analyse(entry).weights.keys()) for score, entry in found]
        ranked.sort(key=lambda hit: (-hit[0], hit[1].kind, hit[1].id))
        return [to_hit(score, entry, terms) for score, entry, terms in ranked[:limit]]
