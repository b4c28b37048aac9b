"""The embedding model: WordLlama's static token embeddings (MIT), shipped inside its wheel, so
search by meaning needs no download and no network, ever.

One model per process (loading takes about 0.3 s and 60 MB), shared by every user's index; word
vectors are cached, since a user's vocabulary is embedded once per word, not once per entry.
"""

from __future__ import annotations

import functools
import os
from collections import OrderedDict
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

BUNDLED_DIMENSIONS = 256  # the only weights the wheel holds
DIMENSIONS = 256  # used: fewer would be a prefix of each vector (Matryoshka), measured worse
WORD_CACHE = 100_000  # distinct words whose vectors are kept (1 KB each)
TEXT_CHARS = 2_000  # an entry's text beyond this adds little to its average and costs time


class EmbeddingModel:
    """Averaged token embeddings of a text, not normalized (callers weigh and normalize)."""

    def __init__(self, dimensions: int = DIMENSIONS) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # belt and braces: no network at run time
        # The tokenizer's thread pool makes batches no faster here (20k texts: 1.34 s against 1.31 s)
        # but leaves 45 MB more resident at 50k entries, and competes with the event loop.
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        # A search multiplies a few thousand rows by one vector: BLAS threads only contend with the
        # other sessions' work (measured at 10k entries on 2 cores: p95 42 → 12 ms with one thread).
        threadpool_limits(limits=1, user_api="blas")
        import wordllama  # heavy import, paid only when search by meaning is on

        # WordLlama's loader looks for the bundled tokenizer under wordllama/tokenizer/ while the wheel
        # ships wordllama/tokenizers/, and would then try Hugging Face; pointing cache_dir at the
        # package folder makes its second lookup (<cache_dir>/tokenizers/) find the bundled file, and
        # disable_download turns any miss into an error instead of a download.
        self._model = wordllama.WordLlama.load(
            dim=BUNDLED_DIMENSIONS,
            trunc_dim=dimensions if dimensions < BUNDLED_DIMENSIONS else None,
            cache_dir=Path(wordllama.__file__).parent,
            disable_download=True,
        )
        self.dimensions = dimensions
        self.identity = model_identity(dimensions)
        self._words: OrderedDict[str, np.ndarray] = OrderedDict()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text (float32, not normalized); an empty text is a zero row."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.asarray(self._model.embed([t[:TEXT_CHARS] or " " for t in texts], norm=False), dtype=np.float32)

    def word_vectors(self, words: Sequence[str]) -> np.ndarray:
        """The vector of each (folded) word, from the cache where it can."""
        missing = list(dict.fromkeys(w for w in words if w not in self._words))
        if missing:
            for word, vector in zip(missing, self.embed(missing), strict=True):
                self._words[word] = vector
            while len(self._words) > WORD_CACHE:
                self._words.popitem(last=False)
        rows = []
        for word in words:
            vector = self._words.get(word)
            if vector is None:  # evicted by this very call (a batch larger than the cache)
                vector = self.embed([word])[0]
            rows.append(vector)
        return np.stack(rows) if rows else np.zeros((0, self.dimensions), dtype=np.float32)


def model_identity(dimensions: int = DIMENSIONS) -> str:
    """The name and version recorded with every vector this model makes (known without loading it)."""
    return f"wordllama {metadata.version('wordllama')} l2_supercat dim={dimensions}"


@functools.lru_cache(maxsize=1)
def shared_model() -> EmbeddingModel:
    """The process's model, loaded on first use."""
    return EmbeddingModel(DIMENSIONS)


def entry_text(fields: Sequence[str]) -> str:
    """What of an entry is embedded: its fields in order, separated like sentences."""
    text = " . ".join(f for f in fields if f)
    return text[:TEXT_CHARS]
