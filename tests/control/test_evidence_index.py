"""memory_inspect's evidence lookup against the plain rule it indexes (``terms_match``, the matching
memory_explain uses): for any events and any field value, the same events in the same order."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from service.control.explain import event_terms, terms_match
from service.control.inspect import EvidenceIndex
from service.text.entities import folded_entity

WORDS = ["the", "Björk", "bjork", "Band", "live", "great", "max", "AC/DC", "ac dc", "sigur", "rós", "x"]
text = st.lists(st.sampled_from(WORDS), min_size=0, max_size=9).map(" ".join)
payloads = st.fixed_dictionaries(
    {},
    optional={
        "artist": text,
        "album": text,
        "genre": text,
        "subject": text,
        "track_id": text,
        "raw_text": text,
        "max_tracks_per_artist": st.integers(0, 5),
    },
)
events = st.lists(
    st.builds(lambda n, p: {"_id": f"e{n}", "type": "like", "payload": p}, st.integers(0, 10**6), payloads), max_size=12
)


@settings(max_examples=300, deadline=None)
@given(events, st.one_of(text, st.integers(0, 5)), st.sampled_from(["max_tracks_per_artist", "artist", "0"]))
def test_the_index_finds_what_matching_every_event_finds(found: list[dict[str, Any]], value: Any, key: str) -> None:
    if isinstance(value, str):
        folded, exact, name = {folded_entity(value)} - {""}, {value.strip()} - {""}, None
    else:
        folded, exact, name = set(), set(), key
    expected = [e for e in found if terms_match(event_terms(e), folded, exact, name)]
    index = asyncio.run(EvidenceIndex.built(found, folded | {folded_entity(w) for w in WORDS}))
    assert index.matching(folded, exact, name) == expected
