"""A static token table distilled from paraphrase-MiniLM-L3-v2 (``scripts/distill_meaning_table.py``): a text's
vector is the mean of its WordPiece tokens' rows, so it costs a tokenization and a lookup.

The tokenizer also says which words the model knows as words: one token, not a string of sub-word
pieces. A word it does not know ("zqk7mvbxt", "radiohead") only looks like other words through the
pieces it shares with them, which is no evidence of meaning.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

TABLE_DIR = Path(__file__).resolve().parent / "data"
TABLE_FILE = TABLE_DIR / "paraphrase_minilm_l3_static.npz"
TOKENIZER_FILE = TABLE_DIR / "bert_uncased_tokenizer.json"
TABLE_NAME = "paraphrase-minilm-l3-static sif int8"
CHUNK = 256


def quantize(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 rows and one float16 scale per row (a quarter of float32's size, cosines kept to ~0.999)."""
    scales = np.abs(table).max(axis=1, keepdims=True) / 127.0
    rows = np.round(table / np.maximum(scales, 1e-12)).astype(np.int8)
    return rows, scales.astype(np.float16)


class StaticTable:
    def __init__(self) -> None:
        from tokenizers import Tokenizer  # comes with wordllama; imported when meaning is on

        stored = np.load(TABLE_FILE)
        # Kept as stored (int8, 7.8 MB): rows are scaled to float32 only when a text looks them up.
        self._rows: np.ndarray = stored["rows"]
        self._scales: np.ndarray = stored["scales"].astype(np.float32)
        self.dimensions = int(self._rows.shape[1])
        self._tokenizer = Tokenizer.from_file(str(TOKENIZER_FILE))
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self._unknown = self._tokenizer.token_to_id("[UNK]")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The mean row of each text's tokens (float32); a text of no known token is a zero row."""
        # In chunks: the scaled rows of a chunk stay in cache (20k texts at once: 4 s, by 256: 0.6 s).
        parts = [self._embed(texts[start : start + CHUNK]) for start in range(0, len(texts), CHUNK)]
        return np.concatenate(parts) if parts else np.zeros((0, self.dimensions), dtype=np.float32)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        found = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        ids = [[i for i in encoding.ids if i != self._unknown] for encoding in encodings]
        counts = np.array([len(i) for i in ids])
        rows = np.flatnonzero(counts)
        if not len(rows):
            return found
        flat = np.fromiter((i for each in ids for i in each), dtype=np.int64, count=int(counts.sum()))
        vectors = self._rows[flat].astype(np.float32) * self._scales[flat]
        starts = np.concatenate([[0], np.cumsum(counts[rows])[:-1]])  # every text's first token, in one pass
        found[rows] = np.add.reduceat(vectors, starts, axis=0) / counts[rows, None]
        return found

    def knows(self, word: str) -> bool:
        """Whether ``word`` is one token of the model's vocabulary (after its own folding)."""
        ids = self._tokenizer.encode(word, add_special_tokens=False).ids
        return len(ids) == 1 and ids[0] != self._unknown
