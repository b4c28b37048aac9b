"""A user's vectors held in process: one growing matrix, a row per key, rows reused after removal.

Similarities are cosine after centering on the mean of the user's own rows: what every entry of a
user shares (the generic words of their playlists, "songs", "mix") then counts for little, and
generic entries stop being everyone's nearest neighbour (a few rows are barely centered: their
mean says little). The mean is kept as a running sum, so a write costs one row; the length of
each centered row is computed once per change of the set, not per query.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Sequence
from typing import Generic, TypeVar

import numpy as np

K = TypeVar("K", bound=Hashable)
INITIAL_ROWS = 64
# The mean is trusted in proportion to how many rows it is the mean of: a user with three entries
# all about "kalimba" would otherwise have the word centered away, and what is left is noise.
CENTERING_PRIOR_ROWS = 50


class VectorSet(Generic[K]):
    def __init__(self, dimensions: int, identity: str) -> None:
        self.identity = identity  # the model that made these vectors: a different one re-embeds
        self._matrix = np.zeros((INITIAL_ROWS, dimensions), dtype=np.float32)
        self._live = np.zeros(INITIAL_ROWS, dtype=bool)
        self._keys: list[K | None] = [None] * INITIAL_ROWS
        self._rows: dict[K, int] = {}
        self._free: list[int] = list(range(INITIAL_ROWS))  # a heap: the lowest free row is reused first
        self._used = 0  # rows at or past this index were never used: queries skip them
        self._sum = np.zeros(dimensions, dtype=np.float64)
        self._centering: tuple[np.ndarray, np.ndarray] | None = None  # (mean, centered row lengths)

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    @property
    def nbytes(self) -> int:
        return int(self._matrix.nbytes)

    def put_many(self, keys: Sequence[K], vectors: np.ndarray) -> None:
        """Store each key's vector, normalized; a key whose vector is zero (a text of no known
        token) is not stored, so it never matches and the mean stays a mean of unit rows."""
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
        for key, vector, norm in zip(keys, unit, norms[:, 0], strict=True):
            self.remove(key)
            if norm <= 0:
                continue
            if not self._free:
                self._grow()
            row = heapq.heappop(self._free)
            self._used = max(self._used, row + 1)
            self._matrix[row] = vector
            self._live[row] = True
            self._keys[row] = key
            self._rows[key] = row
            self._sum += vector
        self._centering = None

    def remove(self, key: K) -> None:
        row = self._rows.pop(key, None)
        if row is None:
            return
        self._sum -= self._matrix[row]
        self._matrix[row] = 0.0
        self._live[row] = False
        self._keys[row] = None
        heapq.heappush(self._free, row)  # low rows are reused first: the used part stays compact
        self._centering = None

    def _grow(self) -> None:
        size = len(self._live)
        self._matrix = np.concatenate([self._matrix, np.zeros_like(self._matrix)])
        self._live = np.concatenate([self._live, np.zeros(size, dtype=bool)])
        self._keys.extend([None] * size)
        self._free.extend(range(size, 2 * size))  # all larger than any row in the heap: still a heap

    def _centered(self) -> tuple[np.ndarray, np.ndarray]:
        if self._centering is None:
            mean = (self._sum / (len(self._rows) + CENTERING_PRIOR_ROWS)).astype(np.float32)
            rows = self._matrix[: self._used]
            # |row - mean| for unit rows, without materializing the centered matrix
            lengths = np.sqrt(np.maximum(1e-9, 1.0 - 2.0 * (rows @ mean) + float(mean @ mean)))
            self._centering = (mean, lengths)
        return self._centering

    def similarities(self, query: np.ndarray, centered: bool = True) -> np.ndarray:
        """Cosine of ``query`` (not necessarily unit) to every used row; -inf where no key."""
        query = query.astype(np.float32) / max(float(np.linalg.norm(query)), 1e-9)
        rows = self._matrix[: self._used]
        if centered and len(self._rows) > 1:
            mean, lengths = self._centered()
            shifted = query - mean
            shifted /= max(float(np.linalg.norm(shifted)), 1e-9)
            sims = (rows @ shifted - float(mean @ shifted)) / lengths
        else:
            sims = rows @ query
        return np.where(self._live[: self._used], sims, -np.inf)

    def nearest(self, query: np.ndarray, limit: int, centered: bool = True) -> list[tuple[K, float]]:
        """The ``limit`` keys most similar to ``query``, best first, with cosine similarity (after
        centering when asked and there is more than one row)."""
        if not self._rows or not np.any(query):
            return []
        return self.top(self.similarities(query, centered), limit)

    def top(self, sims: np.ndarray, limit: int) -> list[tuple[K, float]]:
        """The ``limit`` best of ``similarities``' answer, best first."""
        limit = min(limit, len(self._rows))
        if limit <= 0:
            return []
        best = np.argpartition(-sims, limit - 1)[:limit]
        best = best[np.argsort(-sims[best], kind="stable")]
        return [(self._keys[i], float(sims[i])) for i in best if np.isfinite(sims[i])]

    def nearest_many(self, queries: np.ndarray, limit: int) -> list[list[tuple[K, float]]]:
        """Uncentered ``nearest`` for several queries in one product (a query's words)."""
        if not self._rows or not len(queries):
            return [[] for _ in range(len(queries))]
        norms = np.linalg.norm(queries, axis=1, keepdims=True)
        unit = np.divide(queries, norms, out=np.zeros_like(queries), where=norms > 0).astype(np.float32)
        sims = unit @ self._matrix[: self._used].T
        sims[:, ~self._live[: self._used]] = -np.inf
        return [self.top(row, limit) for row in sims]

    def keys(self) -> list[K]:
        return list(self._rows)

    def vector(self, key: K) -> np.ndarray | None:
        """The stored (unit) vector of ``key``."""
        row = self._rows.get(key)
        return None if row is None else self._matrix[row]
