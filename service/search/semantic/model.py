"""The embedding model: WordLlama's static token embeddings (MIT, inside its wheel) beside a static
table distilled from paraphrase-MiniLM-L3-v2 (Apache-2.0, committed: ``table``), each normalized, side by
side. Nothing is downloaded at run time. Measured on the labelled sets, the pair beats either alone.

One model per process, shared by every user's index; word vectors are cached, since a user's
vocabulary is embedded once per word, not once per entry.
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

from service.search.semantic.table import TABLE_NAME, StaticTable

BUNDLED_DIMENSIONS = 256  # the only weights the wheel holds
DIMENSIONS = 256  # of WordLlama used: fewer would be a prefix of each vector (Matryoshka), measured worse
TABLE_DIMENSIONS = 256
WITH_TABLE = True  # off only to measure WordLlama alone (scripts/bench_search_precision.py)
WORD_CACHE = 100_000  # distinct words whose vectors are kept (1 KB each)
TEXT_CHARS = 2_000  # an entry's text beyond this adds little to its average and costs time


class EmbeddingModel:
    """Averaged token embeddings of a text, not normalized (callers weigh and normalize)."""

    def __init__(self, dimensions: int = DIMENSIONS, with_table: bool = True) -> None:
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
        self._table = StaticTable()  # also the judge of which words are known, with or without its vectors
        self._with_table = with_table
        self.dimensions = dimensions + (self._table.dimensions if with_table else 0)
        self.identity = model_identity(dimensions, with_table)
        self._words: OrderedDict[str, np.ndarray] = OrderedDict()
        self._known: dict[str, bool] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text (float32): each model's vector normalized, side by side; an empty text
        (or one of no token either model knows) is a zero row."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        cut = [t[:TEXT_CHARS] or " " for t in texts]
        parts = [np.asarray(self._model.embed(cut, norm=False), dtype=np.float32)]
        if self._with_table:
            parts.append(self._table.embed(cut))
        return np.concatenate([unit_rows(p) for p in parts], axis=1)

    def knows(self, word: str) -> bool:
        """Whether the model knows ``word`` (or its singular) as a word rather than as sub-word pieces."""
        known = self._known.get(word)
        if known is None:
            known = self._known[word] = any(self._table.knows(form) for form in word_forms(word))
            if len(self._known) > WORD_CACHE:
                self._known.clear()  # a bounded memo: recomputing is a tokenization
        return known

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


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: np.ndarray = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    return unit


def word_forms(word: str) -> list[str]:
    """The word and the singulars it may be the plural of ("lullabies" → "lullaby"): the table has a
    token for many a singular whose plural it splits."""
    forms = [word]
    if word.endswith("ies") and len(word) > 4:
        forms.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        forms.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        forms.append(word[:-1])
    return forms


def model_identity(dimensions: int = DIMENSIONS, with_table: bool = True) -> str:
    """The name and version recorded with every vector this model makes (known without loading it)."""
    wordllama = f"wordllama {metadata.version('wordllama')} l2_supercat dim={dimensions}"
    return f"{wordllama} + {TABLE_NAME} dim={TABLE_DIMENSIONS}" if with_table else wordllama


@functools.lru_cache(maxsize=1)
def shared_model() -> EmbeddingModel:
    """The process's model, loaded on first use."""
    return EmbeddingModel(DIMENSIONS, WITH_TABLE)


def entry_text(fields: Sequence[str]) -> str:
    """What of an entry is embedded: its fields in order, separated like sentences."""
    text = " . ".join(f for f in fields if f)
    return text[:TEXT_CHARS]
