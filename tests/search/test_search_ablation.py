"""Each lexical feature earns its place: removing it (monkeypatched) makes its category of the
labelled set rank clearly worse. Field weights, phrases, stemming, accent folding, typo tolerance.

Measured with search by meaning off, since meaning can stand in for a lost feature (it finds
"nightwsh" without typo tolerance); the figure with meaning on is printed, not asserted.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.search import fields, hybrid, ranking
from service.settings import Settings
from service.text import analysis
from tests.search.corpus import build_corpus, load
from tests.search.evaluate import evaluate
from tests.search.queries import QUERIES
from tests.support import connected

WITH_FLOOR = 0.95
MARGIN = 0.1  # removing a feature costs its categories at least this much MRR
FIELD_WEIGHTS = [
    "NAME",
    "TAGS",
    "DESCRIPTION",
    "NOTES",
    "RAW_TEXT",
    "OTHER",
    "PROFILE_VALUE",
    "TRACK_NAME",
    "TRACK_ARTISTS",
    "TRACK_ALBUM",
    "MEMORY_ENTITIES",
    "MEMORY_SUMMARY",
    "MAX_WEIGHT",
]
Patch = Callable[[pytest.MonkeyPatch], None]


def equal_field_weights(patch: pytest.MonkeyPatch) -> None:
    for name in FIELD_WEIGHTS:  # read when entries are built, so before the index is
        patch.setattr(fields, name, 1.0)
    patch.setattr(ranking, "MAX_WEIGHT", 1.0)  # imported by name: the normalization
    patch.setattr(hybrid, "MAX_WEIGHT", 1.0)


def no_phrases(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(ranking, "phrase_candidates", lambda index, phrases: None)  # both rankings ask it


def no_stemming(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(analysis, "_stem", lambda word: word)  # stem() looks it up at each call


def no_accent_folding(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(analysis, "fold", str.lower)  # words() looks it up at each call


def no_typos(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(ranking, "typo_budget", lambda word: 0)


# feature → (its removal, the categories of the labelled set that depend on it)
ABLATIONS: dict[str, tuple[Patch, tuple[str, ...]]] = {
    # Field weights show where a word is held in a short low-weight field too: the corpus's decoy
    # notes; "exact", "diacritics" and "typo" all hold artist names.
    "field weights": (equal_field_weights, ("exact", "diacritics", "typo")),
    "phrases": (no_phrases, ("phrase",)),
    "stemming": (no_stemming, ("stemmed",)),
    "accent folding": (no_accent_folding, ("diacritics",)),
    "typo tolerance": (no_typos, ("typo",)),
}


async def _load(data_dir: Path) -> dict[str, str]:
    async with connected(Settings(data_dir=data_dir, semantic_search="off")) as call:
        return await load(call.service, build_corpus(filler_playlists=200, filler_events=200))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The labelled corpus written once for the module (no client kept: each evaluation starts
    its own service on the directory, which builds its index then, under the patches in force)."""
    data_dir = tmp_path_factory.mktemp("ablation") / "data"
    with pytest.MonkeyPatch.context() as patch:  # a developer's MEMORY_* must not leak in
        for name in [n for n in os.environ if n.startswith("MEMORY_")]:
            patch.delenv(name)
        ids = asyncio.run(_load(data_dir))
    return data_dir, ids


async def _mrr(
    data_dir: Path, ids: dict[str, str], categories: tuple[str, ...], semantic: str, removal: Patch | None = None
) -> dict[str, Any]:
    queries = [q for q in QUERIES if q[2] in categories]
    with pytest.MonkeyPatch.context() as patch:
        if removal is not None:
            removal(patch)
        async with connected(Settings(data_dir=data_dir, semantic_search=semantic)) as call:
            return await evaluate(call.service, ids, queries=queries)


@pytest.mark.parametrize("feature", list(ABLATIONS))
async def test_removing_a_feature_costs_its_categories(feature: str, corpus: tuple[Path, dict[str, str]]) -> None:
    data_dir, ids = corpus
    removal, categories = ABLATIONS[feature]
    kept = await _mrr(data_dir, ids, categories, "off")
    removed = await _mrr(data_dir, ids, categories, "off", removal)
    kept_on = await _mrr(data_dir, ids, categories, "on")
    removed_on = await _mrr(data_dir, ids, categories, "on", removal)
    with_, without = kept["all"]["mrr"], removed["all"]["mrr"]
    line = (
        f"{feature} ({', '.join(categories)}): MRR with {with_:.3f}, without {without:.3f}; "
        f"meaning on: with {kept_on['all']['mrr']:.3f}, without {removed_on['all']['mrr']:.3f}"
    )
    print(line)
    assert with_ >= WITH_FLOOR, (line, kept["misses"])
    assert without <= with_ - MARGIN, (line, removed["misses"])
