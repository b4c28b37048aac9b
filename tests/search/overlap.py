"""What a query shares with the search corpus by words alone, as the index analyses both: the
labelled sets' honesty checks (paraphrases share no term with their target, absent queries
none with anything) use these, never search by meaning.

Entries are built by the functions the engine uses (``service.search.fields``), terms by
``service.text.analysis.terms``, typos by the ranking's own expansion (``ranking.expand``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

from rapidfuzz.distance import Levenshtein

from service.search.fields import Entry, event_entry, playlist_entry, profile_entries
from service.search.index import UserIndex, analyse
from service.search.ranking import expand
from service.text.analysis import STOP_WORDS, parse_query, terms, typo_budget, words
from tests.search.corpus import Corpus
from tests.search.corpus_anchors import ANCHOR_EVENTS, ANCHOR_PLAYLISTS, ANCHOR_PROFILE

MOMENT = datetime(2025, 1, 1, tzinfo=UTC)


def anchor_entries() -> dict[str, Entry]:
    """Every anchor as the index sees it, built by the same functions the engine uses."""
    found: dict[str, Entry] = {}
    for n, (key, fields) in enumerate(ANCHOR_PLAYLISTS):
        found[key] = playlist_entry({"playlist_id": f"anchor{n}", **fields})
    for key, fields in ANCHOR_EVENTS:
        payload = {k: v for k, v in fields.items() if k != "type"}
        found[key] = event_entry(
            {"_id": key, "type": fields["type"], "payload": payload, "source": "user", "timestamp": MOMENT}
        )
    for entry in profile_entries({"profile": ANCHOR_PROFILE, "version": 1}):
        found[entry.id] = entry
    return found


def corpus_entries(corpus: Corpus) -> Iterator[Entry]:
    """Every entry ``corpus.load`` writes, of every user: anchors, look-alikes and filler."""
    for playlists in corpus.playlists.values():
        yield from (playlist_entry(arguments) for arguments in playlists)
    for user_id, events in corpus.events.items():
        for n, event in enumerate(events):
            stored = {"_id": f"{user_id}:{n}", "source": "user", **event}
            yield event_entry(stored)
    for profile in corpus.profiles.values():
        yield from profile_entries({"profile": profile, "version": 1})


def shared_terms(query: str, entry: Entry) -> set[str]:
    return set(terms(query)) & analyse(entry).weights.keys()


def near_misses(query: str, entry: Entry) -> set[tuple[str, str]]:
    """(query word, stored word) pairs within the typo budget the ranking grants the query word:
    a word the index would match by a typo if nothing matched it exactly."""
    stored = analyse(entry).surface
    found = set()
    for word in {w for w in words(query) if w not in STOP_WORDS}:
        budget = typo_budget(word)
        found |= {(word, s) for s in stored if budget and Levenshtein.distance(word, s, score_cutoff=budget) <= budget}
    return found


def index_of(entries: Iterable[Entry]) -> UserIndex:
    """One index holding ``entries``, several users' together (each user has a ``profile:notes``:
    every entry gets an id of its own so none replaces another)."""
    index = UserIndex()
    for n, entry in enumerate(entries):
        index.put(dataclasses.replace(entry, id=f"{n}:{entry.id}"))
    return index


def reached(index: UserIndex, query: str) -> set[str]:
    """The index terms the query's words reach, exactly or by a typo, as the ranking expands them."""
    return {term for options in expand(index, parse_query(query)) for term, _ in options}
