"""Checking an ordered list of track ids against a rule set (``rule_set``), with the catalog's data.

A rule is *violated* when the known data breaks it; it is *unverified* when it holds for what is
known but tracks it needs data of are missing from the catalog (or lack the field it reads), so
nothing is silently passed. Breathers, precisely: in a list of n ≥ 3 tracks the middle third
(positions ⌊n/3⌋ … ⌈2n/3⌉-1) must hold a track with energy ≤ max_energy, and the first and last
tracks must not be breathers (the arc opens and closes with drive).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from itertools import chain, repeat
from typing import Any

from service.errors import InvalidArgument
from service.paging import decode_cursor, encode_cursor, offset_of
from service.tracks.facts import TrackFacts
from service.tracks.facts import folded as _folded
from service.tracks.findings import LISTS, FirstNamed, Found, Violation, page, request_digest
from service.tracks.findings import listed as _ids
from service.tracks.findings import violation as _violation
from service.tracks.standing import Standing


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _shown(track_id: str, track: dict[str, Any] | None) -> str:
    """ "Title – Artist" from the catalog; the id when the catalog does not know the track."""
    if not track or not track.get("name"):
        return track_id
    artists = track.get("artists") or []
    return f"{track['name']} – {artists[0]}" if artists else str(track["name"])


class Check(Standing):
    """The rules, each a method adding what it finds; ``run_rules`` calls those a rule set names."""

    def __init__(self, track_ids: list[str], known: dict[str, dict[str, Any]], facts: TrackFacts | None = None) -> None:
        super().__init__(track_ids, known, facts)
        self.violations = Found()
        self.unverified: list[dict[str, Any]] = []

    def violate(self, rule: str, track_ids: list[str], message: str, suggestion: str) -> None:
        self.violations.append(_violation(rule, track_ids, message, suggestion))

    def lists(self) -> dict[str, Sequence[Any]]:
        """What an answer pages: each of ``findings.LISTS``."""
        return {"violations": self.violations, "unverified": self.unverified, "unknown_tracks": self.unknown}

    def cannot_verify(self, rule: str, track_ids: list[str], what: str) -> None:
        if track_ids:
            self.unverified.append(
                {"rule": rule, "track_ids": _ids(track_ids), "message": f"{len(set(track_ids))} track(s) {what}"}
            )

    # -- the rules ----------------------------------------------------------------------------
    def no_duplicates(self) -> None:
        if self.once:
            return
        for track_id, count in Counter(self.track_ids).items():
            if count > 1:
                self.violate(
                    "no_duplicates",
                    [track_id],
                    f"{track_id} appears {count} times",
                    f"keep one occurrence and remove the other {count - 1}",
                )

    def _keys(self, field: str) -> Callable[[str, tuple[str, ...]], tuple[str, ...]]:
        return self.facts.keys[field].get

    def _spelled(self, field: str, track_id: str, key: str) -> str:
        """The value of ``field`` as the track spells it, of those that fold to ``key``."""
        spelled: str = next(v for v in self.known[track_id][field] if _folded(v) == key)
        return spelled

    def max_tracks_per_artist(self, limit: int) -> None:
        # Each artist over the limit is written out when read, in the order the playlist first names them.
        over: Sequence[str]
        if self.left_out is None:  # counted over the playlist, in that order
            counts = Counter(chain.from_iterable(map(self._keys("artists"), self.track_ids, repeat(()))))
            over = [k for k, n in counts.items() if n > limit]
        else:  # what the catalog holds less what the playlist leaves out; ordered only as far as read
            holders = self.facts.holders["artists"]
            missed = Counter(chain.from_iterable(map(self.facts.keys["artists"].__getitem__, self.left_out)))
            crowded = set(self.facts.crowded(limit))
            crowded.difference_update(k for k, n in missed.items() if len(holders[k]) - n <= limit)
            over = FirstNamed(self.track_ids, self._keys("artists"), crowded)
        self.violations.add_unwritten(partial(self._too_many, limit), over)
        self.cannot_verify("max_tracks_per_artist", self.unknown, "not in the catalog: their artists are unknown")

    def _too_many(self, limit: int, key: str) -> dict[str, Any]:
        found = self.in_order(self.facts.holders["artists"][key])
        shown = self._spelled("artists", found[0], key)
        return _violation(
            "max_tracks_per_artist",
            found,
            f"{len(found)} tracks by {shown} (at most {limit})",
            f"remove or swap {len(found) - limit} of the tracks by {shown}",
        )

    def target_duration(self, low: float | None, high: float | None) -> None:
        durations = self.facts.duration_ms
        total = self.facts.total_ms
        if self.left_out is not None and type(total) is int:  # whole numbers: any order sums the same
            total -= sum(map(durations.__getitem__, self.left_out))
        else:
            total = sum(map(durations.get, self.track_ids, repeat(0)))
        minutes = total / 60000
        without = self.facts.without_duration
        unread = (
            [t for t in dict.fromkeys(self.track_ids) if t not in self.known or t in without]
            if self.unknown or any(t in self.position for t in without)
            else []
        )
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
        hits = self.in_order(list(avoided_ids))
        if hits:
            self.violate("avoid_tracks", hits, f"{len(set(hits))} track(s) the user avoids", "remove these tracks")
        for entry, ids in named.items():
            found = self.in_order(list(set(ids)))
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
        """Tracks whose catalog ``field`` (artists, genres) names an avoided one, folded; in the order
        the playlist first names each, each written out when read."""
        names = {_folded(a): a for a in avoided}
        holders, at, keys = self.facts.holders[field], self.first_position, self._keys(field)
        first: dict[str, tuple[int, int]] = {}  # where the playlist first names it: position, then value
        for key in names.keys() & holders.keys():
            if held := list(filter(at.__contains__, holders[key])):
                p = min(map(at.__getitem__, held))
                first[key] = (p, keys(self.track_ids[p], ()).index(key))
        written = partial(self._avoided, rule, field, said, suggestion, names)
        self.violations.add_unwritten(written, sorted(first, key=first.__getitem__))
        self.cannot_verify(rule, self.unknown, f"not in the catalog: their {field} are unknown")

    def _avoided(
        self, rule: str, field: str, said: str, suggestion: str, names: dict[str, str], key: str
    ) -> dict[str, Any]:
        found = self.in_order(self.facts.holders[field][key])
        name = names[key]
        return _violation(rule, found, f"{len(set(found))} track(s) {said.format(name)}", suggestion.format(name))

    def rest(self, rested: dict[str, int], max_plays: int, days: int) -> None:
        """One violation per rested track (``rested``: its plays in the window), in playlist order,
        each written out when read (a heavy month rests hundreds)."""
        window = f"in the last {_n(days, 'day')}"
        suggestion = f"rest it: swap for a track played fewer than {_n(max_plays, 'time')} {window}"

        def write(track_id: str) -> Violation:
            shown = _shown(track_id, self.known.get(track_id))
            message = f"{shown} played {_n(rested[track_id], 'time')} {window} (rest limit {max_plays})"
            return _violation("rest", [track_id], message, suggestion)

        self.violations.add_unwritten(write, list(dict.fromkeys(self.in_order(list(rested)))))

    def breathers(self, max_energy: float) -> None:
        n = len(self.track_ids)
        if n < 3:
            return
        start, end = n // 3, -(-2 * n // 3)
        energy = self.facts.energy
        lows = self.facts.low(max_energy)

        def low(t: str) -> bool:
            return t in lows

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
        if lows.isdisjoint(middle):
            unread = [t for t in middle if energy.get(t) is None]
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
        edges = [t for t in (self.track_ids[0], self.track_ids[-1]) if energy.get(t) is None]
        self.cannot_verify("breathers", edges, "opening or closing without a known energy")


def run_rules(
    track_ids: list[str],
    known: dict[str, dict[str, Any]],
    rules: dict[str, Any],
    named: dict[str, list[str]] | None = None,
    rested: dict[str, int] | None = None,
    facts: TrackFacts | None = None,
) -> Check:
    """Every rule of ``rules`` checked. ``named``: the ``avoid_tracks`` entries that name catalog
    tracks, with their ids; ``rested``: the tracks over the ``rest`` limit and not liked by name,
    with their plays in the window; ``facts``: the catalog's, when kept with it (else read from
    ``known``)."""
    run = Check(track_ids, known, facts)
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
    return run


def check(
    track_ids: list[str],
    known: dict[str, dict[str, Any]],
    rules: dict[str, Any],
    cursor: str | None = None,
    named: dict[str, list[str]] | None = None,
    rested: dict[str, int] | None = None,
    facts: TrackFacts | None = None,
) -> dict[str, Any]:
    """The check's answer: a page of its violations, unverified rules and unknown tracks (each
    list going on from ``cursor``), with exact counts; ``next_cursor`` names the next page."""
    run = run_rules(track_ids, known, rules, named, rested, facts)
    lists = run.lists()
    at = dict.fromkeys(LISTS, 0)
    if cursor is not None:
        state = decode_cursor(cursor, "check")
        at = {k: offset_of(state, k, end=len(v)) for k, v in lists.items()}
        if state.get("h") != request_digest(track_ids, rules):
            raise InvalidArgument("cursor belongs to other track_ids or rules", {"field": "cursor"})
    answer, after = page(lists, rules, at)
    more = any(after[k] < len(v) for k, v in lists.items())
    cursor = encode_cursor("check", {**after, "h": request_digest(track_ids, rules)}) if more else None
    return {**answer, "next_cursor": cursor}
