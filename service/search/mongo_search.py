"""Search on real MongoDB: ``$text`` per collection plus the profile, a typo-tolerant pass over the
user's entries when ``$text`` finds nothing, and, with search by meaning on, the entries near the
query in the vectors this process holds for the user.

The held vectors may lag behind writes made by other processes (they follow this process's writes
at once and are rebuilt after ``HELD_MAX_AGE_S``), so a hit found by meaning alone is read again
from the store before it is answered: an item deleted or forgotten anywhere never surfaces, and
its snippet is the item as it is now. Neighbour words ("infant" → "baby") are not added to
``$text`` here: only the embedded engine ranks them.
"""

from __future__ import annotations

from typing import Any

from service.search.confidence import least_score
from service.search.fields import Entry, profile_entries
from service.search.hybrid import MEANING_WEIGHT
from service.search.index import Key, UserIndex, analyse
from service.search.loading import current_entries
from service.search.mongo_text import text_hits, text_query
from service.search.ranking import rank
from service.search.semantic.query import Meaning
from service.storage.database import Database
from service.text.analysis import ParsedQuery

Ranked = list[tuple[float, Entry, set[str]]]


def _index_of(entries: list[Entry]) -> UserIndex:
    index = UserIndex()
    for entry in entries:
        index.put(entry)
    return index


async def text_ranked(
    db: Database, user_id: int, parsed: ParsedQuery, limit: int, profile: dict[str, Any] | None
) -> Ranked:
    """The ``$text`` hits of every collection and the profile's keys, best first ([] when
    ``$text`` finds nothing in the collections)."""
    found: list[tuple[float, Entry]] = []
    for name in ("playlists", "preference_events", "tracks", "memories"):
        args = text_query(user_id, parsed, name, limit)
        documents = await getattr(db, name).find(
            args["filter"], args["projection"], sort=args["sort"], limit=args["limit"]
        )
        found += text_hits(documents, name, parsed)
    if not found:
        return []
    ranked = rank(_index_of(profile_entries(profile) if profile else []), parsed, limit)
    query_terms = set(parsed.terms)
    ranked += [(score, entry, query_terms & analyse(entry).weights.keys()) for score, entry in found]
    ranked.sort(key=lambda hit: (-hit[0], hit[1].kind, hit[1].id))
    return ranked[:limit]


async def with_meaning(
    db: Database, user_id: int, lexical: Ranked, meaning: Meaning, limit: int, profile: dict[str, Any] | None
) -> list[tuple[float, Entry, set[str], bool]]:
    """Lexical hits with their similarity added, and the entries found by meaning alone (read
    again from the store) — the blend of ``service.search.hybrid``."""
    fused: dict[Key, tuple[float, Entry, set[str], bool]] = {}
    for score, entry, terms in lexical:
        key: Key = (entry.kind, entry.id)
        fused[key] = (score + MEANING_WEIGHT * max(0.0, meaning.similarity.get(key, 0.0)), entry, terms, False)
    least = max(meaning.floor, least_score(meaning.min_confidence) * (1.0 + MEANING_WEIGHT))
    alone = [key for key, s in meaning.similarity.items() if s >= least and key not in fused]
    for key, entry in (await current_entries(db, user_id, alone, profile)).items():
        fused[key] = (MEANING_WEIGHT * meaning.similarity[key], entry, set(), True)
    ranked = sorted(fused.values(), key=lambda hit: (-hit[0], hit[1].kind, hit[1].id))[:limit]
    return [(score / (1.0 + MEANING_WEIGHT), entry, terms, by_meaning) for score, entry, terms, by_meaning in ranked]
