"""Ranking over one user's index: weighted term scores × IDF, typo expansion for unknown words,
quoted phrases required, scores normalized to 0..1; snippets show the matched words.

A hit is lean by default: kind, id, score, a short snippet and the one or two metadata fields that
tell hits apart (a playlist's name; an event's type and time; a profile key). Every byte of a hit
is paid three times per call (encoding, transport, the client's validation against the output
schema), and at small stores those fixed costs are most of a search. ``detail="full"`` answers
every stored field and the matched words, as before."""

from __future__ import annotations

import heapq
import math
from operator import itemgetter

from service.search.confidence import meaning_confidence
from service.search.fields import MAX_WEIGHT, Entry
from service.search.hits import SearchHit
from service.search.index import Indexed, Key, UserIndex
from service.text.analysis import ParsedQuery, surface_words, terms_of, typo_budget, words

TYPO_FACTOR = {0: 1.0, 1: 0.7, 2: 0.5}  # a word found through a typo counts less than an exact one
SNIPPET_CHARS = 160
LEAN_SNIPPET_CHARS = 100
SNIPPET_SCAN_CHARS = 8192
# The metadata of a lean hit, by kind: what an agent needs to tell hits apart and pick one.
LEAN_METADATA = {
    "playlist": ("name",),
    "preference_event": ("type", "timestamp"),
    "profile": ("key",),
    "track": ("name", "artists"),
    "memory": ("type", "entities"),
}
# What is kept out of sight, found because the query named it, says so (a field: which one).
LEAN_MARKS = ("sensitive", "pointer")
DETAILS = ("lean", "full")


def _contains(sequence: list[str], phrase: list[str]) -> bool:
    n = len(phrase)
    return any(sequence[i : i + n] == phrase for i in range(len(sequence) - n + 1))


def has_phrase(indexed: Indexed, phrase: list[str]) -> bool:
    return any(_contains(found, phrase) for found in indexed.field_terms)


def expand(index: UserIndex, parsed: ParsedQuery) -> list[list[tuple[str, float]]]:
    """For each query term: the index terms it matches, with a factor (1 exact, less for typos)."""
    expansions = []
    for word, term in zip(parsed.words, parsed.terms):
        if term in index.postings:
            expansions.append([(term, 1.0)])
            continue
        budget = typo_budget(word)
        similar = index.similar_terms(word, budget) if budget else []
        expansions.append([(t, TYPO_FACTOR[d]) for t, d in similar])
    return expansions


def phrase_candidates(index: UserIndex, phrases: list[list[str]]) -> set[Key] | None:
    """Entries holding every quoted phrase (None when the query has none): the shortest posting
    list of the phrase terms, narrowed by the others, then checked for the words in order."""
    if not phrases:
        return None
    needed = {t for phrase in phrases for t in phrase}
    if any(t not in index.postings for t in needed):
        return set()
    lists = sorted((index.postings[t] for t in needed), key=len)
    keys = [k for k in lists[0] if all(k in other for other in lists[1:])]
    return {k for k in keys if all(has_phrase(index.entries[k], p) for p in phrases)}


def lexical_scores(
    index: UserIndex, expansions: list[list[tuple[str, float]]], allowed: set[Key] | None
) -> tuple[dict[Key, float], float]:
    """Each entry's raw score (weighted term scores × IDF) and the sum of the query's IDFs."""
    total = len(index.entries)
    scores: dict[Key, float] = {}
    idf_sum = 0.0
    for options in expansions:
        df = max((len(index.postings[t]) for t, _ in options), default=0)
        idf = math.log(1.0 + (total - df + 0.5) / (df + 0.5)) if options else math.log(1.0 + total + 0.5)
        idf_sum += idf
        best: dict[Key, float] = {}
        for term, factor in options:  # a typo matching several stored words: its best one counts
            posting = index.postings[term]
            if allowed is not None:  # a phrase query: score only the entries holding the phrase
                posting = {k: posting[k] for k in allowed if k in posting}
            if len(options) == 1:  # the common case, kept tight: one pass over one posting list
                get, scale_term = scores.get, factor * idf
                for key, weight in posting.items():
                    scores[key] = get(key, 0.0) + weight * scale_term
                break
            for key, weight in posting.items():
                value = weight * factor * idf
                if value > best.get(key, 0.0):
                    best[key] = value
        for key, value in best.items():
            scores[key] = scores.get(key, 0.0) + value
    return scores, idf_sum


def prepare(index: UserIndex, parsed: ParsedQuery) -> tuple[set[Key] | None, list[list[tuple[str, float]]]] | None:
    """The entries a quoted phrase allows (None: any) and each query word's expansions; None when
    nothing can match."""
    if parsed.empty or not index.entries:
        return None
    allowed = phrase_candidates(index, parsed.phrases)
    if allowed is not None and not allowed:
        return None
    return allowed, expand(index, parsed)


def rank(index: UserIndex, parsed: ParsedQuery, limit: int) -> list[tuple[float, Entry, set[str]]]:
    """The best ``limit`` entries as (normalized score, entry, index terms matched)."""
    prepared = prepare(index, parsed)
    if prepared is None:
        return []
    allowed, expansions = prepared
    scores, idf_sum = lexical_scores(index, expansions, allowed)
    top = heapq.nlargest(limit, scores.items(), key=itemgetter(1))
    top.sort(key=lambda item: (-item[1], item[0]))
    scale = idf_sum * MAX_WEIGHT
    terms_used = {t for options in expansions for t, _ in options}
    return [
        (min(1.0, value / scale), index.entries[key].entry, terms_used & index.entries[key].weights.keys())
        for key, value in top
    ]


def snippet(entry: Entry, matched: set[str], limit: int = SNIPPET_CHARS) -> tuple[str, list[str]]:
    """The field where the matched words weigh most, cut around the first of them."""
    best_text, best_weight, best_spans = entry.fields[0].text, -1.0, []
    for f in entry.fields:
        # Re-analysing a long field for every hit costs ~1 s per MB: the snippet comes from its
        # start (ranking used the whole field through the index).
        spans = [(s, e) for s, e, ts in surface_words(f.text[:SNIPPET_SCAN_CHARS]) if matched.intersection(ts)]
        weight = f.weight * len(spans)
        if weight > best_weight:
            best_text, best_weight, best_spans = f.text, weight, spans
    found = list(dict.fromkeys(best_text[s:e] for s, e in best_spans))
    return _cut(best_text, best_spans[0][0] if best_spans else 0, limit), found


def _cut(text: str, start: int | None, limit: int) -> str:
    """At most ``limit`` characters of ``text`` from a word boundary a little before ``start``."""
    if len(text) > limit:
        start = max(0, (start or 0) - limit // 4)
        while start > 0 and not text[start - 1].isspace():
            start -= 1
        text = ("…" if start else "") + text[start : start + limit - 2].rstrip() + "…"
    return " ".join(text.split())


def _first_match(text: str, matched: set[str]) -> int | None:
    """Where the first word of ``text`` whose terms were matched starts (its opening part only)."""
    for start, _, found in surface_words(text[:SNIPPET_SCAN_CHARS]):
        if matched.intersection(found):
            return start
    return None


def lean_snippet(
    entry: Entry, matched: set[str], field_terms: list[list[str]] | None = None, limit: int = LEAN_SNIPPET_CHARS
) -> str:
    """The field where the matched terms weigh most, cut around the first of them; the terms of
    each field come from the index (``field_terms``), so a short field is not analysed again."""
    if field_terms is None:
        field_terms = [terms_of(words(f.text[:SNIPPET_SCAN_CHARS])) for f in entry.fields]
    best, best_weight = 0, -1.0
    for i, (f, found) in enumerate(zip(entry.fields, field_terms)):
        weight = f.weight * sum(1 for t in found if t in matched)
        if weight > best_weight:
            best, best_weight = i, weight
    text = entry.fields[best].text
    return _cut(text, _first_match(text, matched) if len(text) > limit else None, limit)


def to_hit(
    score: float,
    entry: Entry,
    matched: set[str],
    detail: str = "full",
    field_terms: list[list[str]] | None = None,
    by_meaning: bool = False,
) -> SearchHit:
    """One result of the PRD shape; ``detail`` is "lean" (the default of the tool) or "full".
    A hit none of the query's own words (or their typos) found says ``matched_by: "meaning"`` and
    how sure that is (``confidence``)."""
    found_by = {"matched_by": "meaning", "confidence": meaning_confidence(score)} if by_meaning else {}
    if detail == "lean":
        keep = LEAN_METADATA.get(entry.kind, ()) + LEAN_MARKS
        return {
            "kind": entry.kind,
            "id": entry.id,
            "score": round(score, 4),
            "snippet": lean_snippet(entry, matched, field_terms),
            "metadata": {**{k: entry.metadata[k] for k in keep if k in entry.metadata}, **found_by},
        }
    text, words_found = snippet(entry, matched)
    return {
        "kind": entry.kind,
        "id": entry.id,
        "score": round(score, 4),
        "snippet": text,
        "metadata": {**entry.metadata, "matched_words": words_found, **found_by},
    }
