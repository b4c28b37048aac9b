"""Checking an ordered list of track ids against a rule set (``rule_set``), with the catalog's data.

A rule is *violated* when the known data breaks it; it is *unverified* when it holds for what is
known but tracks it needs data of are missing from the catalog (or lack the field it reads), so
nothing is silently passed. Breathers, precisely: in a list of n ≥ 3 tracks the middle third
(positions ⌊n/3⌋ … ⌈2n/3⌉-1) must hold a track with energy ≤ max_energy, and the first and last
tracks must not be breathers (the arc opens and closes with drive).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from functools import lru_cache
from typing import Any

from service.errors import InvalidArgument
from service.limits import json_bytes
from service.paging import PAGE_BYTES, decode_cursor, encode_cursor, offset_of, shares
from service.text.words import folded_text

MAX_LISTED_IDS = 50  # per violation: the answer stays small whatever the playlist's length
MAX_VIOLATIONS = 50  # per page
# A 5,000-track playlist folds ~10,000 artist and genre names per check, mostly the same few hundred.
_folded = lru_cache(maxsize=1 << 16)(folded_text)


def _ids(track_ids: list[str]) -> list[str]:
    return list(dict.fromkeys(track_ids))[:MAX_LISTED_IDS]


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _shown(track_id: str, track: dict[str, Any] | None) -> str:
    """ "Title – Artist" from the catalog; the id when the catalog does not know the track."""
    if not track or not track.get("name"):
        return track_id
    artists = track.get("artists") or []
    return f"{track['name']} – {artists[0]}" if artists else str(track["name"])


class Check:
    def __init__(self, track_ids: list[str], known: dict[str, dict[str, Any]]) -> None:
        self.track_ids = track_ids
        self.known = known
        self.unknown = [t for t in dict.fromkeys(track_ids) if t not in known]
        self.violations: list[dict[str, Any]] = []
        self.unverified: list[dict[str, Any]] = []

    def violate(self, rule: str, track_ids: list[str], message: str, suggestion: str) -> None:
        self.violations.append(
            {"rule": rule, "track_ids": _ids(track_ids), "message": message, "suggestion": suggestion}
        )

    def cannot_verify(self, rule: str, track_ids: list[str], what: str) -> None:
        if track_ids:
            self.unverified.append(
                {"rule": rule, "track_ids": _ids(track_ids), "message": f"{len(set(track_ids))} track(s) {what}"}
            )

    def missing(self, field: str) -> list[str]:
        """Tracks this rule cannot read: unknown ones, and known ones without ``field``."""
        return [t for t in dict.fromkeys(self.track_ids) if t not in self.known or self.known[t].get(field) is None]

    # -- the rules ----------------------------------------------------------------------------
    def no_duplicates(self) -> None:
        for track_id, count in Counter(self.track_ids).items():
            if count > 1:
                self.violate(
                    "no_duplicates",
                    [track_id],
                    f"{track_id} appears {count} times",
                    f"keep one occurrence and remove the other {count - 1}",
                )

    def max_tracks_per_artist(self, limit: int) -> None:
        by_artist: dict[str, list[str]] = defaultdict(list)
        shown: dict[str, str] = {}
        for track_id in self.track_ids:
            for artist in (self.known.get(track_id) or {}).get("artists") or []:
                key = _folded(artist)
                by_artist[key].append(track_id)
                shown.setdefault(key, artist)
        for key, found in by_artist.items():
            if len(found) > limit:
                self.violate(
                    "max_tracks_per_artist",
                    found,
                    f"{len(found)} tracks by {shown[key]} (at most {limit})",
                    f"remove or swap {len(found) - limit} of the tracks by {shown[key]}",
                )
        self.cannot_verify("max_tracks_per_artist", self.unknown, "not in the catalog: their artists are unknown")

    def target_duration(self, low: float | None, high: float | None) -> None:
        minutes = sum((self.known[t].get("duration_ms") or 0) for t in self.track_ids if t in self.known) / 60000
        unread = self.missing("duration_ms")
        span = f"{low if low is not None else 0:g}–{high:g}" if high is not None else f"at least {low:g}"
        if high is not None and minutes > high:  # already too long, whatever the unknown add
            self.violate(
                "target_duration",
                [],
                f"{minutes:.1f} minutes, more than the target {span} minutes",
                f"remove about {minutes - high:.0f} minutes of tracks",
            )
        elif unread:
            self.cannot_verify("target_duration", unread, f"without a known duration (known total {minutes:.1f} min)")
        elif low is not None and minutes < low:
            self.violate(
                "target_duration",
                [],
                f"{minutes:.1f} minutes, less than the target {span} minutes",
                f"add about {low - minutes:.0f} minutes of tracks",
            )

    def avoid_tracks(self, avoided: list[str], named: dict[str, list[str]]) -> None:
        """An entry is an id, or names catalog tracks (``named``: its title, or "title – artist")."""
        avoided_ids = {a for a in avoided if a not in named}
        hits = [t for t in self.track_ids if t in avoided_ids]
        if hits:
            self.violate("avoid_tracks", hits, f"{len(set(hits))} track(s) the user avoids", "remove these tracks")
        for entry, ids in named.items():
            ruled = set(ids)
            found = [t for t in self.track_ids if t in ruled]
            if found:
                self.violate(
                    "avoid_tracks",
                    found,
                    f"{len(set(found))} track(s) named {entry}, which the user avoids",
                    f"remove or swap {entry}",
                )
        if named:
            self.cannot_verify("avoid_tracks", self.unknown, "not in the catalog: their names are unknown")

    def avoid_artists(self, avoided: list[str]) -> None:
        self._avoid_named(
            "avoid_artists", "artists", avoided, "by {}, whom the user avoids", "remove or swap the tracks by {}"
        )

    def avoid_genres(self, avoided: list[str]) -> None:
        """Genres only where the catalog knows them (a known track without genres is not checked)."""
        self._avoid_named(
            "avoid_genres", "genres", avoided, "of {}, which the user avoids", "remove or swap the {} tracks"
        )

    def _avoid_named(self, rule: str, field: str, avoided: list[str], said: str, suggestion: str) -> None:
        """Tracks whose catalog ``field`` (artists, genres) names an avoided one, folded."""
        names = {_folded(a): a for a in avoided}
        hits: dict[str, list[str]] = defaultdict(list)
        for track_id in self.track_ids:
            for value in (self.known.get(track_id) or {}).get(field) or []:
                if (key := _folded(value)) in names:
                    hits[key].append(track_id)
        for key, found in hits.items():
            self.violate(
                rule, found, f"{len(set(found))} track(s) {said.format(names[key])}", suggestion.format(names[key])
            )
        self.cannot_verify(rule, self.unknown, f"not in the catalog: their {field} are unknown")

    def rest(self, rested: dict[str, int], max_plays: int, days: int) -> None:
        """One violation per rested track (``rested``: its plays in the window), in playlist order."""
        for track_id in dict.fromkeys(self.track_ids):
            if track_id in rested:
                self.violate(
                    "rest",
                    [track_id],
                    f"{_shown(track_id, self.known.get(track_id))} played {_n(rested[track_id], 'time')} in the last "
                    f"{_n(days, 'day')} (rest limit {max_plays})",
                    f"rest it: swap for a track played fewer than {_n(max_plays, 'time')} in the last {_n(days, 'day')}",
                )

    def breathers(self, max_energy: float) -> None:
        n = len(self.track_ids)
        if n < 3:
            return
        start, end = n // 3, -(-2 * n // 3)
        energy = {t: (self.known.get(t) or {}).get("energy") for t in self.track_ids}

        def low(t: str) -> bool:
            value = energy[t]
            return value is not None and value <= max_energy

        for position in (0, n - 1):
            track_id = self.track_ids[position]
            if low(track_id):
                where = "opens" if position == 0 else "closes"
                self.violate(
                    "breathers",
                    [track_id],
                    f"a breather (energy {energy[track_id]:g}) {where} the playlist",
                    f"move it to the middle (positions {start + 1}–{end}) and put a driving track here",
                )
        middle = self.track_ids[start:end]
        if not any(low(t) for t in middle):
            unread = [t for t in middle if energy[t] is None]
            if unread:
                self.cannot_verify("breathers", unread, "mid-way without a known energy")
            else:
                elsewhere = [t for t in self.track_ids if low(t)]
                self.violate(
                    "breathers",
                    elsewhere,
                    f"no breather (energy ≤ {max_energy:g}) mid-way",
                    f"put a low-energy track at positions {start + 1}–{end}"
                    + (" (move one of these there)" if elsewhere else ""),
                )
        edges = [t for t in (self.track_ids[0], self.track_ids[-1]) if energy[t] is None]
        self.cannot_verify("breathers", edges, "opening or closing without a known energy")


def check(
    track_ids: list[str],
    known: dict[str, dict[str, Any]],
    rules: dict[str, Any],
    cursor: str | None = None,
    named: dict[str, list[str]] | None = None,
    rested: dict[str, int] | None = None,
) -> dict[str, Any]:
    """The check's answer: a page of its violations, unverified rules and unknown tracks (each
    list going on from ``cursor``), with exact counts; ``next_cursor`` names the next page.
    ``named``: the ``avoid_tracks`` entries that name catalog tracks, with their ids; ``rested``: the
    tracks over the ``rest`` limit and not liked by name, with their plays in the window."""
    run = Check(track_ids, known)
    if rules.get("no_duplicates", True):
        run.no_duplicates()
    if "max_tracks_per_artist" in rules:
        run.max_tracks_per_artist(rules["max_tracks_per_artist"])
    if "target_duration_minutes" in rules:
        run.target_duration(rules["target_duration_minutes"]["min"], rules["target_duration_minutes"]["max"])
    if rules.get("avoid_tracks"):
        run.avoid_tracks(rules["avoid_tracks"], named or {})
    for name in ("avoid_artists", "avoid_genres"):
        if rules.get(name):
            getattr(run, name)(rules[name])
    if "rest" in rules:
        run.rest(rested or {}, rules["rest"]["max_plays"], rules["rest"]["days"])
    if "breathers" in rules:
        run.breathers(rules["breathers"]["max_energy"])
    lists: dict[str, list[Any]] = {
        "violations": run.violations,
        "unverified": run.unverified,
        "unknown_tracks": run.unknown,
    }
    # The cursor names the request it pages (the tracks and the rules), not only where it stopped.
    request = hashlib.sha256(json.dumps([track_ids, rules], sort_keys=True).encode()).hexdigest()[:16]
    at = dict.fromkeys(lists, 0)
    if cursor is not None:
        state = decode_cursor(cursor, "check")
        at = {k: offset_of(state, k, end=len(v)) for k, v in lists.items()}
        if state.get("h") != request:
            raise InvalidArgument("cursor belongs to other track_ids or rules", {"field": "cursor"})
    taken = shares(lists, at, PAGE_BYTES - json_bytes(rules))
    taken["violations"] = min(taken["violations"], MAX_VIOLATIONS)
    after = {k: at[k] + taken[k] for k in lists}
    more = any(after[k] < len(v) for k, v in lists.items())
    return {
        "ok": not run.violations and not run.unverified,
        **{k: v[at[k] : after[k]] for k, v in lists.items()},
        "violation_count": len(run.violations),
        "unknown_count": len(run.unknown),
        "rules": rules,
        "next_cursor": encode_cursor("check", {**after, "h": request}) if more else None,
    }
