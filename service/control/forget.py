"""Forget one item (``memory_forget``): a preference event, a typed memory, a play, a playlist or a
profile field, gone from every read, search, export and context block, and from the embedded
store's files (the same ``scrub`` as ``delete_user_data``, after the commit).

Each kind's method says what it removes. Every kind then leaves one audit entry, operation
``forget``, whose collection is null like a deleted user's tombstone, so audit retention keeps it;
the audit entries naming the item go. Unknown items and another user's items are NOT_FOUND;
forgetting twice, the second is NOT_FOUND.
"""

from __future__ import annotations

import copy
import hashlib
import uuid
from datetime import datetime
from typing import Any

from service.audit.origin import current_origin, written_by
from service.errors import ForgottenItemNotFound, InvalidArgument, SequenceConflict
from service.ledger.keys import head_id
from service.memories.keys import is_memory_id, memory_key
from service.memories.plays import month_of
from service.memories.service import MemoryStore
from service.pointers import array_index, parse_pointer, resolve
from service.profiles.supersession import remark
from service.search.engine import SearchEngine
from service.storage.database import Database
from service.storage.units import unit_of_work
from service.text.entities import folded_entity
from service.timeutil import as_utc, parse_iso, utc_now
from service.users import stats as user_stats

KINDS = ("preference_event", "memory", "play", "playlist", "profile_field")
FORGET = "forget"  # the audit operation of the tombstone
ATTEMPTS = 16


def _missing(kind: str) -> ForgottenItemNotFound:
    return ForgottenItemNotFound(f"no {kind} with this id for this user", {"field": "id"})


class Forgetter:
    def __init__(self, db: Database, search: SearchEngine, memories: MemoryStore, writer: Any) -> None:
        self._db = db
        self._search = search
        self._memories = memories
        self._writer = writer

    async def forget(self, user_id: int, kind: str, item_id: str) -> dict[str, Any]:
        result = await self._forget(user_id, kind, item_id)
        # Only once committed: the checkpoint then overwrites the old page images (as for a delete).
        await self._db.scrub()
        return result

    @unit_of_work
    async def _forget(self, user_id: int, kind: str, item_id: str) -> dict[str, Any]:
        try:
            if kind == "memory":
                async with self._memories.held(user_id):
                    names = await self._memory(user_id, item_id)
            else:
                names = await getattr(self, "_" + kind)(user_id, item_id)
        finally:  # whatever was reached, the search index and the memories' copy hold only what is stored
            await self._search.user_reloaded(user_id)
        if await user_stats.derive(self._db, user_id) is None:  # nothing left: unlisted, as recount would
            await user_stats.forget(self._db, user_id)
        await self._drop_entries(user_id, names)
        moment = utc_now()
        # Who (principal, tool, request id), when, and "<kind>:<id>" as document key: for a play, whose
        # id is made of names, a digest of it instead.
        key = f"{kind}:{hashlib.sha256(item_id.encode()).hexdigest()[:32] if kind == 'play' else item_id}"
        origin = current_origin()
        await self._db.audit_log.insert_one(
            {
                "_id": uuid.uuid4().hex,
                "time": moment,
                "collection": None,
                "operation": FORGET,
                "user_id": user_id,
                "playlist_id": None,
                "document_key": key,
                "tool": origin.tool,
                "request_id": origin.request_id,
                "principal": origin.principal,
                "via": "write_path",
            }
        )
        return {"user_id": user_id, "kind": kind, "id": item_id, "forgotten_at": moment, "forgotten": True}

    async def _drop_entries(self, user_id: int, names: dict[str, Any]) -> None:
        """Audit entries naming the forgotten item (by document key, key prefix or playlist) go; the
        others stay, as they hold no document bodies (``ENTRY_FIELDS``), only keys."""
        if not names:
            return
        doomed = []
        for entry in await self._db.audit_log.find(
            {"user_id": user_id}, {"_id": 1, "document_key": 1, "playlist_id": 1, "operation": 1}
        ):
            if entry.get("operation") == FORGET:
                continue
            key = entry.get("document_key") or ""
            if (
                key in names.get("keys", ())
                or any(key.startswith(p) for p in names.get("prefixes", ()))
                or (names.get("playlist_id") is not None and entry.get("playlist_id") == names["playlist_id"])
            ):
                doomed.append(entry["_id"])
        if doomed:
            await self._db.audit_log.delete_many({"user_id": user_id, "_id": {"$in": doomed}})

    # -- the kinds ------------------------------------------------------------------------------
    async def _preference_event(self, user_id: int, event_id: str) -> dict[str, Any]:
        """The event document, and the audit entries naming it; the user's ``superseded_by`` marks are
        recomputed."""
        if not await self._db.preference_events.delete_many({"_id": event_id, "user_id": user_id}):
            raise _missing("preference_event")
        await user_stats.count_records_added(self._db, user_id, "preference_event_count", -1)
        # The opinion it superseded is in force again (or superseded by the next newer one).
        await remark(self._db, user_id)
        return {"keys": {event_id}}

    async def _memory(self, user_id: int, memory_id: str) -> dict[str, Any]:
        """The memory, its aging records (they hold its summary before and after), and the audit
        entries naming either."""
        key = memory_key(user_id, memory_id) if is_memory_id(memory_id) else None
        if key is None or not await self._db.memories.delete_many({"_id": key, "user_id": user_id}):
            raise _missing("memory")
        await user_stats.count_records_added(self._db, user_id, "memory_count", -1)
        aged = await self._db.memory_aging.delete_many({"user_id": user_id, "memory_id": memory_id})
        await user_stats.count_records_added(self._db, user_id, "aging_event_count", -aged)
        self._memories.removed(user_id, [memory_id])
        return {"keys": {key}, "prefixes": (f"{key}:",)}

    async def _playlist(self, user_id: int, playlist_id: str) -> dict[str, Any]:
        """Its history buckets, head, idempotency claims, its place in open listing cursors (blanked,
        so the pages of a cursor do not shift) and the audit entries naming the playlist."""
        head = await self._db.playlists.find_one({"_id": head_id(user_id, playlist_id), "user_id": user_id}, {"_id": 1})
        buckets = await self._db.history.delete_many({"user_id": user_id, "playlist_id": playlist_id})
        if head is None and not buckets:
            raise _missing("playlist")
        if await self._db.playlists.delete_many({"_id": head_id(user_id, playlist_id), "user_id": user_id}):
            await user_stats.count_records_added(self._db, user_id, "playlist_count", -1)
        await self._db.idempotency.delete_many({"user_id": user_id, "playlist_id": playlist_id})
        for cursor in await self._db.cursors.find({"user_id": user_id}):
            if playlist_id in cursor.get("playlist_ids", ()):
                blanked = ["" if p == playlist_id else p for p in cursor["playlist_ids"]]
                await self._db.cursors.replace_one({**cursor, "playlist_ids": blanked})
        self._writer.stale.discard((user_id, playlist_id))
        return {"playlist_id": playlist_id}

    async def _play(self, user_id: int, play_id: str) -> dict[str, Any]:
        """The play, out of its month bucket (a bucket left empty is deleted). Its id is
        ``"<artist>|<track>|<played_at>"``, the play's identity as ``memory_log_plays`` deduplicates
        it: artist and track compared folded, an empty track (or ``"<artist>|<played_at>"``) for a
        play without one, played_at any RFC 3339 time of the same millisecond."""
        names, _, moment_text = play_id.rpartition("|")
        try:
            moment = as_utc(parse_iso(moment_text))
        except ValueError:
            raise InvalidArgument(
                "a play's id is '<artist>|<track>|<played_at>' with an RFC 3339 played_at", {"field": "id"}
            ) from None
        splits = {
            (folded_entity(a), folded_entity(t) if t.strip() else "")
            for i, ch in enumerate(names)
            if ch == "|"
            for a, t in [(names[:i], names[i + 1 :])]
        }
        splits.add((folded_entity(names), ""))  # "<artist>|<played_at>": a play without a track
        for _ in range(ATTEMPTS):
            found = False
            for part in await self._db.plays.find({"user_id": user_id, "month": month_of(moment)}):
                kept = [p for p in part["plays"] if not _is_play(p, moment, splits)]
                if len(kept) == len(part["plays"]):
                    continue
                found = True
                if not kept and not part.get("skips"):  # a bucket still holding skips stays
                    if await self._db.plays.delete_many({"_id": part["_id"], "user_id": user_id}):
                        await user_stats.count_records_added(self._db, user_id, "play_bucket_count", -1)
                    return {}
                document = {**part, "plays": kept, "updated_at": utc_now(), "written_by": written_by()}
                if await self._db.plays.replace_one(document, condition={"plays": {"$size": len(part["plays"])}}):
                    return {}
                break  # another writer changed the bucket meanwhile: read the month again
            if not found:
                raise _missing("play")
        raise SequenceConflict("the plays of this month are being logged concurrently; retry", {"field": "id"})

    async def _profile_field(self, user_id: int, pointer: str) -> dict[str, Any]:
        """``pointer`` is an RFC 6901 JSON Pointer such as ``/rules/max_tracks_per_artist``. The value
        leaves the profile as a new version whose history entry is the merge patch removing it (reason
        ``"forgotten: <pointer>"``); in every earlier history entry the value is taken out of the patch
        (for a pointer into an array, the equal elements of the arrays the patch set) and that entry's
        reason, which often quotes it, is cleared."""
        tokens = _tokens(pointer)
        for _ in range(ATTEMPTS):
            current = await self._db.profiles.find_one({"_id": user_id, "user_id": user_id})
            if current is None:
                raise _missing("profile_field")
            profile = copy.deepcopy(current["profile"])
            parent = resolve(profile, tokens[:-1])
            last = tokens[-1]
            if isinstance(parent, dict) and last in parent:
                value = parent.pop(last)
                patch: dict[str, Any] = _nested(tokens[:-1], {last: None})
            elif isinstance(parent, list) and (index := array_index(last, parent)) is not None:
                value = parent.pop(index)
                patch = _nested(tokens[:-1], parent)
            else:
                raise _missing("profile_field")
            history = [_scrubbed(entry, tokens, value) for entry in current.get("history", [])]
            now, stamp, version = utc_now(), written_by(), current["version"] + 1
            history.append(
                {
                    "version": version,
                    "patch": patch,
                    "reason": f"forgotten: {pointer}",
                    "source": "user",
                    "applied_at": now,
                    "written_by": stamp,
                }
            )
            if await self._db.profiles.update_one(
                {"_id": user_id, "user_id": user_id, "version": current["version"]},
                {
                    "$set": {
                        "profile": profile,
                        "version": version,
                        "updated_at": now,
                        "written_by": stamp,
                        "history": history,
                    }
                },
            ):
                await user_stats.note_profile(self._db, user_id, version, now)
                return {}
        raise SequenceConflict("the profile is being updated concurrently; retry", {"field": "id"})


def _is_play(play: dict[str, Any], moment: datetime, splits: set[tuple[str, str]]) -> bool:
    if as_utc(play["played_at"]) != moment:
        return False
    track = play.get("track")
    return (folded_entity(play["artist"]), folded_entity(track) if track else "") in splits


def _tokens(pointer: str) -> list[str]:
    if not pointer.startswith("/"):
        raise InvalidArgument("a profile field is a JSON Pointer such as /rules/max_tracks_per_artist", {"field": "id"})
    return parse_pointer(pointer)


def _nested(tokens: list[str], leaf: Any) -> dict[str, Any]:
    """The merge patch that puts ``leaf`` at ``tokens`` (for an array's element: the whole array,
    as merge patches replace arrays)."""
    for token in reversed(tokens):
        leaf = {token: leaf}
    patch: dict[str, Any] = leaf
    return patch


def _scrubbed(entry: dict[str, Any], tokens: list[str], value: Any) -> dict[str, Any]:
    """A history entry without the forgotten value in its patch (and without its reason if so)."""
    patch = copy.deepcopy(entry.get("patch"))
    if not _remove(patch, tokens, value):
        return entry
    return {**entry, "patch": patch, "reason": None}


def _remove(node: Any, tokens: list[str], value: Any) -> bool:
    """Take the value at ``tokens`` out of a merge patch (or a value it sets); True if it was there."""
    token, rest = tokens[0], tokens[1:]
    if isinstance(node, dict):
        if token not in node:
            return False
        if not rest:
            del node[token]
            return True
        return _remove(node[token], rest, value)
    if isinstance(node, list):
        if not rest:  # arrays are set whole: the past arrays lose the equal elements
            kept = [v for v in node if v != value]
            changed = len(kept) != len(node)
            node[:] = kept
            return changed
        position = array_index(token, node)
        return position is not None and _remove(node[position], rest, value)
    return False
