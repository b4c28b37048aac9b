"""What the preference events give the block, per user, kept between calls and kept current by the
event write path (``UserContext.add``): the like / dislike / rule lines in force, the pairwise
standings' lines, the superseded opinions (newest first) and every event's place, each section
sorted (``KeptSection``). Built from one read of the user's events (``UserContext.build``); the
same lines, order and supersession as ``gather`` reads afresh (``opinions.superseded``,
``choices.tally``), which the tests compare on random histories.
"""

from __future__ import annotations

import bisect
from collections import Counter
from typing import Any

from service.context.candidates import CHOICE_AVOID_LOSSES, Candidate, choice_item, event_item
from service.context.kept_section import Entry, KeptSection, entry
from service.profiles.choices import Standing, choice_of, subject_key, tally
from service.profiles.opinions import subject_of, superseded
from service.text.sensitive import sensitive_event
from service.timeutil import as_utc

SECTION_OF = {"like": "prefer", "dislike": "avoid", "rule": "rules"}
Place = tuple[Any, int, str]  # (timestamp, recorded_ns, id): the order events are read in
Subject = tuple[str, str]


def place_of(event: dict[str, Any]) -> Place:
    return as_utc(event["timestamp"]), event.get("recorded_ns") or 0, str(event["_id"])


class UserContext:
    def __init__(self) -> None:
        self.sections = {s: KeptSection() for s in ("prefer", "avoid", "rules")}
        self.places: list[Place] = []  # every like, dislike and rule, sorted: their positions
        self.seen: set[str] = set()  # ids of the events taken in (a write's hook may come after a build read it)
        self.chains: dict[Any, list[tuple[Place, Entry]]] = {}  # opinions per subject, oldest first
        self.gone: list[tuple[tuple[float, str], Entry, str]] = []  # superseded, newest first, with what replaced it
        self.gone_by_section: Counter[str] = Counter()
        self.choices: dict[Subject, list[tuple[Place, dict[str, Any]]]] = {}  # per subject, oldest first
        self.standings: dict[Subject, Standing] = {}
        self.standing_order: list[tuple[float, Subject]] = []  # (-newest, subject) of every standing, sorted
        self.shown: dict[Subject, tuple[str, Entry]] = {}  # the standings listed: their section and entry
        # Some opinion is kept out of sight: whether it is a line depends on each call's focus, so
        # such a user's block reads its events afresh (``gather``), as on MongoDB.
        self.sensitive = False

    # -- positions: where a kept candidate stands among its source, as ``gather`` numbers them ------
    def position(self, e: Entry) -> int:
        source, place = e.key[4]
        return bisect.bisect_left(self.places if source == 0 else self.standing_order, place)

    def true_key(self, e: Entry) -> tuple[Any, ...]:
        """``rank.rank_key`` of the entry's candidate, its position computed."""
        k = e.key
        return (k[0], k[1], k[2], k[3], self.position(e), k[5], k[6])

    # -- a build from the store --------------------------------------------------------------------
    @classmethod
    def build(cls, opinions: list[dict[str, Any]], choice_events: list[dict[str, Any]]) -> UserContext:
        """From the user's like / dislike / rule events and their choice (feedback) events."""
        kept = cls()
        events = sorted(opinions, key=place_of)
        replaced = superseded([e for e in events if e["type"] != "rule" and isinstance(e.get("payload"), dict)])
        live: dict[str, list[Entry]] = {s: [] for s in kept.sections}
        for event in events:
            place = place_of(event)
            kept.places.append(place)
            kept.seen.add(place[2])
            kept.sensitive = kept.sensitive or sensitive_event(event)
            if not isinstance(event.get("payload"), dict):
                continue
            e = entry(event_item(SECTION_OF[event["type"]], event, 0), 0, place)
            subject = subject_of(event["payload"]) if event["type"] != "rule" else None
            if subject is not None:
                kept.chains.setdefault(subject, []).append((place, e))
            if place[2] in replaced:
                kept._supersede(e, replaced[place[2]])
            else:
                live[e.candidate.section].append(e)
        for section, entries in live.items():
            kept.sections[section].load(entries)
        kept.gone.sort(key=lambda g: g[0])
        for event in choice_events:
            kept._take_choice(event)
        kept.standings = tally(choice_events)
        kept.standing_order = sorted((-s.newest, k) for k, s in kept.standings.items())
        for standing in kept.standings:
            kept._show(standing)
        return kept

    # -- the write path -----------------------------------------------------------------------------
    def add(self, event: dict[str, Any]) -> None:
        """A preference event as now stored (any type: those the block does not read change nothing)."""
        if str(event["_id"]) in self.seen:
            return
        if event.get("type") in SECTION_OF:
            self._add_opinion(event)
        elif choice_of(event) is not None:
            self.seen.add(str(event["_id"]))
            for subject in self._take_choice(event):
                self._restand(subject)

    def _add_opinion(self, event: dict[str, Any]) -> None:
        place = place_of(event)
        self.seen.add(place[2])
        self.sensitive = self.sensitive or sensitive_event(event)
        bisect.insort(self.places, place)
        if not isinstance(event.get("payload"), dict):
            return
        section = SECTION_OF[event["type"]]
        e = entry(event_item(section, event, 0), 0, place)
        subject = subject_of(event["payload"]) if event["type"] != "rule" else None
        if subject is None:
            self.sections[section].add(e)
            return
        chain = self.chains.setdefault(subject, [])
        at = bisect.bisect_left(chain, place, key=lambda link: link[0])
        chain.insert(at, (place, e))
        if at + 1 < len(chain):  # back-dated: a newer opinion of the subject replaces it
            self._supersede(e, chain[at + 1][0][2], sort=True)
        else:
            self.sections[section].add(e)
        if at > 0:  # the one before it is now replaced by it
            older = chain[at - 1][1]
            if at + 1 < len(chain):
                self._unsupersede(older)
            else:
                self.sections[older.candidate.section].remove(older)
            self._supersede(older, place[2], sort=True)

    def _supersede(self, e: Entry, by: str, sort: bool = False) -> None:
        row = ((-e.candidate.moment, e.candidate.ref), e, by)
        if sort:
            bisect.insort(self.gone, row, key=lambda g: g[0])
        else:
            self.gone.append(row)
        self.gone_by_section[e.candidate.section] += 1

    def _unsupersede(self, e: Entry) -> None:
        key = (-e.candidate.moment, e.candidate.ref)
        at = bisect.bisect_left(self.gone, key, key=lambda g: g[0])
        del self.gone[at]
        self.gone_by_section[e.candidate.section] -= 1

    def _take_choice(self, event: dict[str, Any]) -> set[Subject]:
        choice = choice_of(event)
        if choice is None:
            return set()
        self.seen.add(str(event["_id"]))
        place = place_of(event)
        subjects = {subject_key(choice["kind"], choice[side]) for side in ("chose", "over")}
        for subject in subjects:
            bisect.insort(self.choices.setdefault(subject, []), (place, event), key=lambda c: c[0])
        return subjects

    def _restand(self, subject: Subject) -> None:
        """The subject's standing again, from its own choices only (a standing is theirs alone)."""
        old = self.standings.get(subject)
        if old is not None:
            del self.standing_order[bisect.bisect_left(self.standing_order, (-old.newest, subject))]
        standing = tally(event for _, event in self.choices[subject])[subject]
        self.standings[subject] = standing
        bisect.insort(self.standing_order, (-standing.newest, subject))
        self._show(subject)

    def _show(self, subject: Subject) -> None:
        shown = self.shown.pop(subject, None)
        if shown is not None:
            self.sections[shown[0]].remove(shown[1])
        standing = self.standings[subject]
        section = "prefer" if standing.wins else "avoid" if standing.losses >= CHOICE_AVOID_LOSSES else None
        if section is None:
            return
        e = entry(choice_item(section, standing, 0), 1, (-standing.newest, subject))
        self.sections[section].add(e)
        self.shown[subject] = (section, e)

    def superseded_rows(self, start: int, stop: int) -> list[tuple[Candidate, str]]:
        return [(e.candidate, by) for _, e, by in self.gone[start:stop]]
