"""One user's catalog analysed for resolution: the words of every title, artist and album, and
which tracks hold each word.

A query word is looked up in the vocabulary three ways: exactly, within a typo budget (the
vocabulary is grouped by word length, so ``rapidfuzz`` compares only lengths that can match, in C),
and as a prefix (a word typed in part). Only tracks holding a matched word are scored.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from service.text.vocabulary import prefix_matches, typo_matches
from service.text.words import core_title, folded_text, words
from service.tracks.facts import TrackFacts

# Field codes, in the order a tie between fields is read: title, then artists (artist k of a track
# is ARTIST + k), then album ("toto" is the band before it is their album "Toto IV").
NAME, ARTIST, ALBUM = 0, 1, 1000
# Between a title and its artist in an avoid entry: "Macarena – Los del Río", "Macarena - Los del Rio".
_TITLE_ARTIST = re.compile(r"\s+[-–—]\s+")


def is_artist(code: int) -> bool:
    return ARTIST <= code < ALBUM


@dataclass
class Known:
    """A catalog track as resolution sees it."""

    track_id: str
    name: str
    artists: list[str]
    popularity: int
    title: list[str]  # words of the title without qualifiers ("- Remastered", "(feat. …)")
    fields: dict[int, list[str]]  # field code → its words (name: every word of the full name)
    # Adjacent words joined, as people write them ("acdc", "brightside"), per field → the words.
    joined: dict[int, dict[str, tuple[str, ...]]] = field(default_factory=dict)

    @property
    def song(self) -> tuple[str, str]:
        """What makes two entries the same song (an album and a live version): title and lead artist."""
        return " ".join(self.title), " ".join(self.fields.get(ARTIST, []))


def known(track: dict[str, Any]) -> Known:
    fields: dict[int, list[str]] = {NAME: words(track["name"])}
    if track.get("album"):
        fields[ALBUM] = words(track["album"])
    for k, artist in enumerate(track.get("artists") or []):
        fields[ARTIST + k] = words(artist)
    joined: dict[int, dict[str, tuple[str, ...]]] = {}
    for code, found in fields.items():
        extra: dict[str, tuple[str, ...]] = {a + b: (a, b) for a, b in itertools.pairwise(found)}
        if len(found) > 2:  # "r e m", "guns n roses": the whole field as one word too
            extra.setdefault("".join(found), tuple(found))
        if extra:
            joined[code] = extra
    return Known(
        track["track_id"],
        track["name"],
        list(track.get("artists") or []),
        int(track.get("popularity") or 0),
        words(core_title(track["name"])) or fields[NAME],
        fields,
        joined,
    )


class CatalogIndex:
    """Built by ``add`` (in slices, so a large catalog can be analysed between other calls) and
    then ``finish``; the constructor does both for a list at once."""

    def __init__(self, tracks: list[dict[str, Any]] | None = None) -> None:
        self.tracks: list[Known] = []
        self._postings: defaultdict[str, list[tuple[int, int]]] = defaultdict(list)  # word → (track, field)
        self.postings: dict[str, list[tuple[int, int]]] = {}
        self.by_id: dict[str, int] = {}
        # Every track in its public shape: a rule check reads it here instead of copying it out of the store.
        self.described: dict[str, dict[str, Any]] = {}
        self.facts = TrackFacts()  # and what the rules read of it, folded once
        # Folded names, to tell a profile's free-text avoid entry that names an artist or genre.
        self.artist_names: set[str] = set()
        self.genre_names: set[str] = set()
        self._by_title: defaultdict[str, list[int]] = defaultdict(list)  # folded name and core title → tracks
        self._by_length: dict[int, list[str]] = defaultdict(list)
        self._sorted: list[str] = []
        if tracks is not None:
            self.add(tracks)
            self.finish()

    def add(self, tracks: list[dict[str, Any]]) -> None:
        for raw in tracks:
            i, track = len(self.tracks), known(raw)
            self.tracks.append(track)
            self.by_id[track.track_id] = i
            self.described[track.track_id] = raw
            self.facts.add(raw)
            for code, found in track.fields.items():
                for word in dict.fromkeys(found + list(track.joined.get(code, ()))):
                    self._postings[word].append((i, code))
            self.artist_names.update(folded_text(a) for a in raw.get("artists") or [])
            self.genre_names.update(folded_text(g) for g in raw.get("genres") or [])
            for title in {folded_text(track.name), folded_text(core_title(track.name))}:
                self._by_title[title].append(i)

    def finish(self) -> None:
        self.postings = dict(self._postings)
        for word in self.postings:
            self._by_length[len(word)].append(word)
        # Prefixes are looked up among the words themselves, not the joined pairs ("love" is not
        # typed in part of "loveangel").
        self._sorted = sorted({w for t in self.tracks for found in t.fields.values() for w in found})

    def named(self, entry: str) -> list[str]:
        """Ids of the tracks an avoid entry names: its title ("Macarena": every track so titled,
        whole or without qualifiers), or "title – artist" (en dash or hyphen: only that artist's
        tracks of the title, not another artist's cover of it). Folded as artist and genre rules."""
        whole = folded_text(entry)
        found = list(self._by_title.get(whole, ())) if whole else []  # "!!!" folds to nothing: names nothing
        for split in _TITLE_ARTIST.finditer(entry):
            title, artist = folded_text(entry[: split.start()]), folded_text(entry[split.end() :])
            if not title or not artist:
                continue
            found += [
                i for i in self._by_title.get(title, ()) if artist in {folded_text(a) for a in self.tracks[i].artists}
            ]
        return [self.tracks[i].track_id for i in dict.fromkeys(found)]

    def __len__(self) -> int:
        return len(self.tracks)

    def matches(self, query_word: str, exact_only: bool = False) -> dict[str, float]:
        """Vocabulary words the query word may mean, with their similarity (0..1]."""
        found: dict[str, float] = {}
        if query_word in self.postings:
            found[query_word] = 1.0
        if exact_only:
            return found
        found.update(typo_matches(query_word, self._by_length))
        found.update(prefix_matches(query_word, self._sorted, most=200))  # bounded: a prefix of 200+ words says little
        return found
