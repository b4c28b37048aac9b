"""Hybrid ranking: the lexical score of an entry plus its similarity in meaning to the query.

A calibrated blend rather than reciprocal-rank fusion: on the labelled sets RRF let entries that
merely sound alike push exact matches down (existing set MRR 1.00 → 0.95), while adding the cosine
to the normalized lexical score leaves an exact, stemmed, typo or phrase match on top and still
lifts an entry no query word reaches.
"""

from __future__ import annotations

import heapq
from operator import itemgetter

from service.search.confidence import least_score
from service.search.fields import MAX_WEIGHT, Entry
from service.search.index import Key, UserIndex
from service.search.ranking import lexical_scores, prepare
from service.search.semantic.query import Meaning
from service.text.analysis import ParsedQuery

MEANING_WEIGHT = 1.0  # the similarity's share against a normalized lexical score (0..1)


def rank_hybrid(
    index: UserIndex, parsed: ParsedQuery, limit: int, meaning: Meaning
) -> list[tuple[float, Entry, set[str], bool]]:
    """The best ``limit`` entries as (score 0..1, entry, index terms matched, found by meaning only).

    A query word that matches nothing as typed (nor as a typo) reaches the user's words nearest in
    meaning instead ("infant" → "baby"), as lexical terms weighted by similarity, so field weights
    and IDF rank those hits as they rank any other. An entry no query word (nor a typo of one)
    reached is a hit "by meaning": it is admitted only when its similarity clears the query's floor
    or a neighbour word reached it, and the hit says so."""
    prepared = prepare(index, parsed)
    if prepared is None:
        return []
    allowed, expansions = prepared
    direct = {t for options in expansions for t, _ in options}
    widened = []
    for options, near in zip(expansions, meaning.neighbours, strict=True):
        # A word found as typed (or as a typo) is not widened: its neighbours ("melodic" for
        # "melodies") would only compete with the entries that hold it.
        widened.append(options or near)
    scores, idf_sum = lexical_scores(index, widened, allowed)
    scale = idf_sum * MAX_WEIGHT
    # Only entries with a similarity gain from it: of the others, the best ``limit`` by words suffice.
    fused: dict[Key, float] = {
        key: min(1.0, value / scale) for key, value in heapq.nlargest(limit, scores.items(), key=itemgetter(1))
    }
    fused.update({key: min(1.0, scores[key] / scale) for key in meaning.similarity if key in scores})
    for key, similarity in meaning.similarity.items():
        if (allowed is not None and key not in allowed) or (key not in fused and similarity < meaning.floor):
            continue
        fused[key] = fused.get(key, 0.0) + MEANING_WEIGHT * max(0.0, similarity)
    # A hit no query word reached must also be likely enough to be right (stand-ins count here).
    least = least_score(meaning.min_confidence) * (1.0 + MEANING_WEIGHT)
    fused = {k: v for k, v in fused.items() if v >= least or direct & index.entries[k].weights.keys()}
    top = heapq.nlargest(limit, fused.items(), key=itemgetter(1))
    top.sort(key=lambda item: (-item[1], item[0]))
    used = direct | {t for options in widened for t, _ in options}
    ranked = []
    for key, value in top:
        indexed = index.entries[key]
        ranked.append(
            (
                value / (1.0 + MEANING_WEIGHT),
                indexed.entry,
                used & indexed.weights.keys(),
                not direct & indexed.weights.keys(),
            )
        )
    return ranked
