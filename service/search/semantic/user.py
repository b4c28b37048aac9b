"""One user's meaning: a vector per searchable entry and a vector per distinct word of theirs.

Writes only note what changed; the embedding happens in batches when the vectors are next needed
(a search, or the end of an index build, which yields between batches), so a write never waits
for the model, and a bulk import is embedded in one pass rather than one call per item.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from itertools import islice

import numpy as np

from service.search.semantic.model import EmbeddingModel, entry_text
from service.search.semantic.vectors import VectorSet

Key = tuple[str, str]  # (kind, id), as in the lexical index
BATCH = 64  # texts embedded per step of a build: about 5 ms, the lexical build's slice


class UserMeaning:
    def __init__(self, model: EmbeddingModel) -> None:
        self.model = model
        # One set per kind: each is centered on its own mean (a user's events share their phrasing,
        # their playlists theirs), and memory_query can ask for memories alone.
        self.entries: dict[str, VectorSet[Key]] = {}
        self.words: VectorSet[str] = VectorSet(model.dimensions, model.identity)
        self._pending_entries: dict[Key, str] = {}
        self._pending_words: set[str] = set()

    # -- what the lexical index reports ------------------------------------------------------------
    def entry_put(self, key: Key, fields: Iterable[str], new_words: Iterable[str]) -> None:
        self._pending_entries[key] = entry_text(list(fields))
        self._pending_words.update(new_words)

    def entry_removed(self, key: Key, gone_words: Iterable[str]) -> None:
        self._pending_entries.pop(key, None)
        if key[0] in self.entries:
            self.entries[key[0]].remove(key)
        for word in gone_words:
            self._pending_words.discard(word)
            self.words.remove(word)

    def nearest(self, query: np.ndarray, limit: int, kind: str | None = None) -> list[tuple[Key, float]]:
        """The entries (of ``kind``, or any) most similar to the query vector, best first."""
        sets = [self.entries[kind]] if kind in self.entries else [] if kind else list(self.entries.values())
        found = [hit for vectors in sets for hit in vectors.nearest(query, limit)]
        found.sort(key=lambda hit: -hit[1])
        return found[:limit]

    def vector_of(self, key: Key) -> np.ndarray | None:
        """The entry's vector once embedded (None before, or if it has none)."""
        self.flush()
        vectors = self.entries.get(key[0])
        return None if vectors is None else vectors.vector(key)

    @property
    def vector_count(self) -> int:
        return sum(len(v) for v in self.entries.values()) + len(self.words)

    # -- embedding ------------------------------------------------------------------------------
    @property
    def pending(self) -> int:
        return len(self._pending_entries) + len(self._pending_words)

    def _step(self) -> None:
        if self._pending_entries:
            keys = list(islice(self._pending_entries, BATCH))  # not a list of every pending key per step
            texts = [self._pending_entries.pop(k) for k in keys]
            vectors = self.model.embed(texts)
            for kind in {k[0] for k in keys}:
                rows = [i for i, k in enumerate(keys) if k[0] == kind]
                if kind not in self.entries:
                    self.entries[kind] = VectorSet(self.model.dimensions, self.model.identity)
                self.entries[kind].put_many([keys[i] for i in rows], vectors[rows])
        elif self._pending_words:
            words = [self._pending_words.pop() for _ in range(min(BATCH, len(self._pending_words)))]
            self.words.put_many(words, self.model.word_vectors(words))

    def flush(self) -> None:
        """Embed everything noted since the last flush (before a search reads the vectors)."""
        while self.pending:
            self._step()

    async def flush_async(self) -> None:
        """The same, handing the event loop back between batches (an index build)."""
        while self.pending:
            self._step()
            await asyncio.sleep(0)
