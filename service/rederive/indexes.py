"""The in-process indexes against the store: the search index and the typed memories' analysed copy.

Both exist only in a process that serves the embedded engine, built from the records on a user's
first use and then kept current by every write; nothing of them is stored. So a ``rederive`` run
from the command line (its own process) holds none: it reports ``not_held``, and what it could
compare is what the next server builds from the very records it checked. A process that holds a
user's index compares it with a fresh one built from the store; a difference drops the held one.
On real MongoDB the ``$text`` indexes are the server's own (``server_maintained``) and the memories
are read anew on every call: there is nothing of ours to compare.
"""

from __future__ import annotations

import numpy as np

from service.memories.index import MemoryIndex
from service.memories.service import MemoryStore
from service.rederive.compare import Difference, difference, normal
from service.search.engine import SearchEngine
from service.search.index import Key, UserIndex
from service.storage.database import Database

ROUND = 9  # weights are sums of floats: the same terms added in another order may differ in the last bits


async def check_search_index(search: SearchEngine, user_id: int, write: bool) -> tuple[list[Difference], str]:
    """(differences, status): ``compared``, ``not_held`` or ``server_maintained``. Compared: the
    entries, their term weights and, with search by meaning on, each entry's vector; with ``write``
    a difference drops the held index, which the next use builds again from the records."""
    if not search.in_memory:
        return [], "server_maintained"
    held = search.held_index(user_id)
    if held is None:
        return [], "not_held"
    fresh = await search.index_from_store(user_id)
    found = []
    for key in sorted(set(held.entries) | set(fresh.entries)):
        kept, built = held.entries.get(key), fresh.entries.get(key)
        name = f"{key[0]}:{key[1]}"
        if built is None:
            found.append(difference("search_index", name, [], "indexed, but not in the store"))
        elif kept is None:
            found.append(difference("search_index", name, [], "in the store, but not indexed"))
        else:
            fields = [
                f
                for f, same in (
                    ("terms", _weights(kept.weights) == _weights(built.weights)),
                    ("text", kept.field_terms == built.field_terms),
                    ("meaning", _same_vector(held, fresh, key)),
                )
                if not same
            ]
            if fields:
                found.append(difference("search_index", name, fields, "indexed differently from the store"))
    if found and write:
        search.user_deleted(user_id)  # dropped: the next search builds it from the records
    return found, "compared"


def _same_vector(held: UserIndex, fresh: UserIndex, key: Key) -> bool:
    """The held vector of an entry is the one its stored text embeds to (both None when off)."""
    if held.meaning is None or fresh.meaning is None:
        return held.meaning is None and fresh.meaning is None
    kept, built = held.meaning.vector_of(key), fresh.meaning.vector_of(key)
    if kept is None or built is None:
        return kept is None and built is None
    return bool(np.allclose(kept, built, atol=1e-5))


def _weights(weights: dict[str, float]) -> dict[str, float]:
    return {term: round(weight, ROUND) for term, weight in weights.items()}


async def check_memory_index(
    db: Database, memories: MemoryStore, user_id: int, write: bool
) -> tuple[list[Difference], str]:
    if not memories.kept_between_calls:
        return [], "read_per_call"
    held = memories.kept_index(user_id)
    if held is None:
        return [], "not_held"
    fresh = MemoryIndex()
    for doc in await db.memories.find({"user_id": user_id}, {"written_by": 0}):
        fresh.put(doc)
    found = []
    for memory_id in sorted(set(held.by_id) | set(fresh.by_id)):
        kept, built = held.by_id.get(memory_id), fresh.by_id.get(memory_id)
        if built is None:
            found.append(difference("memory_index", memory_id, [], "kept, but not in the store"))
        elif kept is None:
            found.append(difference("memory_index", memory_id, [], "in the store, but not kept"))
        else:
            fields = sorted(
                k for k in set(kept.doc) | set(built.doc) if normal(kept.doc.get(k)) != normal(built.doc.get(k))
            )
            if kept.terms != built.terms:
                fields.append("terms")
            if fields:
                found.append(difference("memory_index", memory_id, fields, "kept differently from the store"))
    if found and write:
        memories.forget_user(user_id)
    return found, "compared"
