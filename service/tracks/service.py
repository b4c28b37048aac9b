"""The track catalog: what the assistant learned of tracks, per user, and what it is used for
(naming tracks in ledger answers, resolving half-remembered titles, checking playlist rules).

Resolution reads an analysed copy of the user's catalog (``CatalogIndex``), built on first use and
kept for the most recently used users. Exact after any write: an upsert that changes anything
drops the user's copy (a build that was reading meanwhile is not kept), and so does a delete or an
import (the search engine's ``user_reloaded``, which calls back here).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, defaultdict
from typing import Any

from service.errors import InvalidArgument, TrackNotInCatalog
from service.profiles.situations import base, for_situation
from service.search.engine import SearchEngine
from service.settings import Settings
from service.storage.database import Database
from service.storage.units import unit_of_work
from service.text.words import folded_text
from service.tracks import catalog, choices
from service.tracks.check import Check, check, run_rules
from service.tracks.facts import TrackFacts
from service.tracks.identity import pasted_ids
from service.tracks.index import CatalogIndex, Known
from service.tracks.liked import liked_by_name
from service.tracks.resolver import resolve
from service.tracks.rest import Rest, counts_for
from service.tracks.rest_window import Windows
from service.tracks.rule_set import from_profile, normalised_inline
from service.tracks.signals import Signals, signals_of
from service.users import stats as user_stats

BUILD_SLICE = 200  # tracks analysed between two turns of the event loop (~15 ms)
CACHED_USERS = 64  # analysed catalogs kept (10,000 tracks ≈ 15 MB); the least recently used goes
RESOLVED_AT = 0.5
CONFIRMED = 0.99


def _answer(track: Known, confidence: float, reason: str) -> dict[str, Any]:
    return {
        "track_id": track.track_id,
        "name": track.name,
        "artists": list(track.artists),
        "confidence": confidence,
        "reason": reason,
    }


class TrackService:
    def __init__(self, db: Database, settings: Settings, search: SearchEngine) -> None:
        self._db = db
        self.settings = settings
        self._search = search
        self._indexes: OrderedDict[int, CatalogIndex] = OrderedDict()
        self._windows = Windows()
        self._generation: defaultdict[int, int] = defaultdict(int)
        search.on_user_reloaded(self.forget_user)

    def forget_user(self, user_id: int) -> None:
        """Drop the user's analysed catalog; a build under way is not kept."""
        self._indexes.pop(user_id, None)
        self._generation[user_id] += 1

    async def _index(self, user_id: int) -> CatalogIndex:
        index = self._indexes.get(user_id)
        if index is not None:
            self._indexes.move_to_end(user_id)
            return index
        generation = self._generation[user_id]
        tracks = await catalog.all_tracks(self._db, user_id)
        # Analysing 10,000 tracks takes ~0.7 s of CPU: in slices, giving the event loop back between
        # them, so other users' calls are served meanwhile.
        index = CatalogIndex()
        for start in range(0, len(tracks), BUILD_SLICE):
            index.add(tracks[start : start + BUILD_SLICE])
            if start + BUILD_SLICE < len(tracks):
                await asyncio.sleep(0)
        index.finish()
        if self._generation[user_id] == generation:  # no write landed while the store was read
            self._indexes[user_id] = index
            while len(self._indexes) > CACHED_USERS:
                self._indexes.popitem(last=False)
        return index

    @unit_of_work
    async def upsert_tracks(self, user_id: int, tracks: list[dict[str, Any]]) -> dict[str, Any]:
        try:
            done = await catalog.upsert_tracks(self._db, user_id, tracks)
        finally:  # whatever was written, the analysed copy and search read the store again
            self.forget_user(user_id)
        await user_stats.count_tracks_added(self._db, user_id, done["inserted"])
        if done["changed"]:
            self._search.tracks_changed(user_id, await catalog.describe_tracks(self._db, user_id, done["changed"]))
        answer = {
            "user_id": user_id,
            "inserted": done["inserted"],
            "updated": done["updated"],
            "unchanged": done["unchanged"],
        }
        return {**answer, "merged": done["merged"]} if done["merged"] else answer

    async def describe(self, user_id: int, track_ids: list[str]) -> dict[str, dict[str, Any]]:
        return await catalog.describe_tracks(self._db, user_id, track_ids)

    async def catalogued(self, user_id: int, track_ids: list[str]) -> set[str]:
        return await catalog.catalogued(self._db, user_id, track_ids)

    async def held_among(self, user_id: int, wanted: set[tuple[str, str]]) -> set[tuple[str, str]]:
        return await catalog.held_among(self._db, user_id, wanted)

    async def resolve_track(self, user_id: int, text: str, limit: int) -> dict[str, Any]:
        pasted = pasted_ids(text)
        if pasted is not None:  # a link or code names a recording exactly, or nothing the user has
            found = await catalog.find_by_ids(self._db, user_id, pasted)
            best = None
            if found is not None:
                best = {"track_id": found["track_id"], "name": found["name"], "artists": found["artists"]}
                best.update(confidence=1.0, reason="external_id")
            return {"user_id": user_id, "resolved": best is not None, "best": best, "alternatives": []}
        index = await self._index(user_id)
        signals = await signals_of(self._db, user_id)
        ranked = resolve(index, text, signals, limit)
        chosen = await choices.confirmed(self._db, user_id, text)
        answers = [_answer(s.track, s.confidence, s.reason) for s in ranked]
        if chosen is not None and chosen["track_id"] in index.by_id:
            track = index.tracks[index.by_id[chosen["track_id"]]]
            times = chosen["confirmations"]
            reason = f"you confirmed this track for this request ({times} time{'s' if times > 1 else ''})"
            answers = [_answer(track, CONFIRMED, reason + _kept(signals, track.track_id))] + [
                a for a in answers if a["track_id"] != track.track_id
            ]
        best = answers[0] if answers else None
        return {
            "user_id": user_id,
            "resolved": best is not None and best["confidence"] >= RESOLVED_AT,
            "best": best,
            "alternatives": answers[1 : limit + 1],
        }

    @unit_of_work
    async def confirm_track(self, user_id: int, text: str, track_id: str) -> dict[str, Any]:
        if not folded_text(text):
            raise InvalidArgument("text has no letters or digits to remember it by", {"field": "text"})
        known = await catalog.describe_tracks(self._db, user_id, [track_id])
        if track_id not in known:
            raise TrackNotInCatalog(
                "this track is not in the user's catalog; add it with memory_upsert_tracks", {"field": "track_id"}
            )
        stored = await choices.confirm(self._db, user_id, text, track_id)
        track = known[track_id]
        return {
            "user_id": user_id,
            "text": text,
            "track": {k: track[k] for k in ("track_id", "name", "artists")},
            "confirmations": stored["confirmations"],
            "confirmed_at": stored["confirmed_at"],
        }

    async def check_playlist(
        self,
        user_id: int,
        track_ids: list[str],
        rules: dict[str, Any] | None,
        cursor: str | None = None,
        situation: str | None = None,
    ) -> dict[str, Any]:
        if rules is not None and situation is not None:  # inline rules replace the profile a situation picks from
            raise InvalidArgument(
                "situation picks the profile's rules and inline rules replace them: give one or the other",
                {"field": "situation"},
            )
        profile: dict[str, Any] | None = None
        if rules is not None:
            known = await catalog.describe_tracks(self._db, user_id, track_ids)
            effective, source, facts = normalised_inline(rules), "inline", None
        else:
            stored = await self._db.profiles.find_one({"_id": user_id, "user_id": user_id}, {"profile": 1})
            profile = for_situation((stored or {}).get("profile") or {}, situation)
            known, facts, effective = await self._against(user_id, track_ids, profile)
            source = "profile"
        named = await self._named(user_id, effective)
        rested = await self._rested(user_id, track_ids, known, effective, profile, facts)
        answer = check(track_ids, known, effective, cursor, named, rested, facts)
        return {"user_id": user_id, "rules_source": source, **answer}

    async def run_profile_rules(
        self, user_id: int, track_ids: list[str], profile: dict[str, Any]
    ) -> tuple[Check, dict[str, Any]]:
        """(the check, the rules) of ``profile`` (the stored one, in a situation if one holds), every
        finding counted; a report reads the few it shows."""
        known, facts, effective = await self._against(user_id, track_ids, profile)
        named = await self._named(user_id, effective)
        rested = await self._rested(user_id, track_ids, known, effective, profile, facts)
        return run_rules(track_ids, known, effective, named, rested, facts), effective

    async def _against(
        self, user_id: int, track_ids: list[str], profile: dict[str, Any]
    ) -> tuple[dict[str, dict[str, Any]], TrackFacts | None, dict[str, Any]]:
        """(the tracks' descriptions, what the rules read of them if kept, the rules) for a check
        against ``profile``."""
        index = await self._index(user_id)
        known: dict[str, dict[str, Any]]
        if self._db.engine == "embedded":
            # This process is the store's only writer, so the analysed copy is exact after any
            # write, and reading it costs no copy out of the store: the whole catalog is handed on.
            known, facts = index.described, index.facts
        else:  # on MongoDB another process may have catalogued a track: ask the store
            known, facts = await catalog.describe_tracks(self._db, user_id, track_ids), None
        return known, facts, from_profile(profile, index.artist_names, index.genre_names, index.named)

    async def _named(self, user_id: int, effective: dict[str, Any]) -> dict[str, list[str]]:
        """The ``avoid_tracks`` entries that name tracks of this user's catalog, with their ids."""
        if not effective.get("avoid_tracks"):
            return {}
        index = await self._index(user_id)
        return {e: ids for e in dict.fromkeys(effective["avoid_tracks"]) if (ids := index.named(e))}

    async def _rested(
        self,
        user_id: int,
        track_ids: list[str],
        known: dict[str, dict[str, Any]],
        effective: dict[str, Any],
        profile: dict[str, Any] | None,
        facts: TrackFacts | None = None,
    ) -> dict[str, int]:
        """The tracks over the rest limit that the person does not like by name, with their plays;
        ``profile`` None (inline rules): the likes are the base profile's, rules or not."""
        if "rest" not in effective:
            return {}
        rest = Rest(effective["rest"]["max_plays"], effective["rest"]["days"])
        # With the analysed catalog (the embedded engine, this process the only writer) the window's
        # plays are counted once and slid forward; otherwise they are read afresh.
        kept = (self._windows, facts) if facts is not None else None
        counts = await counts_for(self._db, user_id, rest, track_ids, known, kept)
        over = {t: n for t, n in counts.items() if n >= rest.max_plays}
        if not over:
            return {}
        if profile is None:
            stored = await self._db.profiles.find_one({"_id": user_id, "user_id": user_id}, {"profile": 1})
            profile = base((stored or {}).get("profile") or {})
        liked = await liked_by_name(self._db, user_id, profile)
        return {t: n for t, n in over.items() if not liked.names(t, known.get(t))}


def _kept(signals: Signals, track_id: str) -> str:
    kept = signals.kept[track_id]
    return f"; kept in {kept} of your playlists" if kept else ""
