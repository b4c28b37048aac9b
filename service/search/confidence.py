"""How sure a hit found by meaning is: the chance, estimated on the labelled sets, that it is what
the query was about rather than a look-alike.

A logistic curve over the hit's score (its words' share plus its similarity, halved: the score the
answer carries), fitted by ``scripts/bench_search_precision.py --calibrate`` on the development
paraphrases (their target hit counts as right, any other hit found by meaning as wrong) and the
development absent queries (every hit wrong). Hits found by words carry no confidence.
"""

from __future__ import annotations

import math

# Fitted on the development sets at the commit that introduced them (see the module docstring).
SLOPE = 28.2
MIDPOINT = 0.217


def least_score(confidence: float) -> float:
    """The score at which a hit found by meaning reaches ``confidence`` (none for 0)."""
    return MIDPOINT + math.log(confidence / (1.0 - confidence)) / SLOPE if confidence > 0 else -math.inf


def meaning_confidence(score: float) -> float:
    """0..1, two decimals: about 0.5 at ``MIDPOINT``, where right and wrong hits were about as common."""
    return round(1.0 / (1.0 + math.exp(-SLOPE * (score - MIDPOINT))), 2)
