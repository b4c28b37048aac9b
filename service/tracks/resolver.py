"""Scoring a spoken request against one user's catalog.

Each candidate track (one holding a word the request may mean) gets a fit from how much of the
request it explains and how much of its title the request covers (``_fit``). Ranking adds small
boosts for tracks the user keeps in playlists or played, then popularity. Confidence is the fit,
lowered when other songs fit as well and nothing the user did tells them apart: a coin flip between
two songs stays under 0.5 unless the words alone are certain.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass

from service.text.words import FILLERS, weight, words
from service.tracks.index import ALBUM, NAME, CatalogIndex, Known, is_artist
from service.tracks.signals import Signals

MAX_CANDIDATES = 400  # scored at most, in order of word overlap (then shorter titles first)
MAX_BOOST = 0.075  # the most _boost adds
ALTERNATIVE_FLOOR = 0.1  # alternatives fit at least this well (the best is answered however poor)
ARTIST_ONLY = 0.75
ALBUM_ONLY = 0.6
RIVAL_MARGIN = 0.05
MAX_CONFIDENCE = 0.97  # 0.99 is kept for what the user confirmed


@dataclass
class Scored:
    track: Known
    fit: float  # how well the words fit, 0..1
    rank: float  # fit plus the user's own history: the order of the answer
    confidence: float
    reason: str


def _coverage(found: list[str], cover: dict[str, float]) -> float:
    """How much of a field the request names: a word matched with a typo still counts whole
    (the typo already costs in ``qcov``); a word typed in part counts for its similarity."""
    total = sum(weight(w) for w in dict.fromkeys(found))
    named = sum(weight(w) * (1.0 if cover.get(w, 0.0) >= 0.75 else cover.get(w, 0.0)) for w in dict.fromkeys(found))
    return named / total if total else 0.0


def _quick(
    index: CatalogIndex, request: list[str], optional: set[str], matches: dict[str, dict[str, float]]
) -> dict[int, float]:
    """Per track holding any request word: the weighted similarity of the words it holds, the
    order candidates are scored in (and, squared, a bound on their fit)."""
    quick: dict[int, float] = defaultdict(float)
    for query_word in request:
        if query_word in optional:
            continue
        per_track: dict[int, float] = {}
        for word, similarity in matches[query_word].items():
            for i, _ in index.postings[word]:
                if similarity > per_track.get(i, 0.0):
                    per_track[i] = similarity
        scale = weight(query_word)
        for i, similarity in per_track.items():
            quick[i] += scale * similarity
    return quick


def _details(
    track: Known, matches: dict[str, dict[str, float]]
) -> tuple[dict[str, tuple[float, int]], dict[int, dict[str, float]]]:
    """Each request word's best (similarity, field) in this track, and each field's words covered."""
    best: dict[str, tuple[float, int]] = {}
    cover: dict[int, dict[str, float]] = {}
    for code, found in track.fields.items():
        joined = track.joined.get(code, {})
        field: dict[str, float] = {}
        for word in [*found, *joined]:
            for query_word, matched in matches.items():
                similarity = matched.get(word)
                if not similarity:
                    continue
                current = best.get(query_word)
                # Ties go to the title (code 0): "queen" in "Killer Queen" by Queen is a title word.
                if current is None or similarity > current[0] or (similarity == current[0] and code < current[1]):
                    best[query_word] = (similarity, code)
                for part in joined.get(word, (word,)):
                    if similarity > field.get(part, 0.0):
                        field[part] = similarity
        cover[code] = field
    return best, cover


def _fit(
    track: Known,
    request: list[str],
    optional: set[str],
    found: dict[str, tuple[float, int]],
    cover: dict[int, dict[str, float]],
) -> tuple[float, str]:
    """(fit, reason) of one candidate track:

    * ``qcov`` — how much of the request the track explains: the matched words' similarity, weighted
      (light words like "of" count a fifth; fillers like "that song" count only when the track has
      them). It enters squared: a request with a word the track lacks is a poor fit, which is what
      keeps "stairway to heaven" from resolving to a track merely called "Heaven".
    * ``tcov`` — how much of the title the request covers; a partial title ("viva la something")
      still fits, a little less (factor 0.55 + 0.45·tcov).
    * Requests that name only an artist (or only an album) fit every track of it equally, capped at
      0.75 (0.6): the user's own history decides which one, and says so in the reason.
    """
    counted = [w for w in request if w not in optional or w in found]
    total = sum(weight(w) for w in counted)
    qcov = sum(weight(w) * found[w][0] for w in counted if w in found) / total if total else 0.0
    fields = {code for _, code in found.values()}
    typos = any(s < 1.0 for s, _ in found.values())
    artist_cov = max((_coverage(track.fields[c], cover.get(c, {})) for c in track.fields if is_artist(c)), default=0.0)
    artist_named = any(is_artist(c) for c in fields) and artist_cov >= 0.5
    if NAME in fields:
        tcov = _coverage(track.title, cover.get(NAME, {}))
        reason = "title matches" if tcov > 0.99 else "part of the title matches"
        reason += " (allowing for typos)" if typos else ""
        reason += "; artist matches" if artist_named else ""
        return qcov**2 * (0.55 + 0.45 * min(1.0, tcov)), reason
    if artist_named:
        return qcov**2 * artist_cov * ARTIST_ONLY, f"only the artist is named ({', '.join(track.artists)})"
    if ALBUM in fields:
        album_cov = _coverage(track.fields[ALBUM], cover.get(ALBUM, {}))
        return qcov**2 * album_cov * ALBUM_ONLY, "only the album is named"
    return qcov**2 * 0.5, "a word of the artist or album matches"


def _boost(track: Known, signals: Signals) -> float:
    kept, played = signals.kept[track.track_id], signals.played[track.track_id]
    return (
        0.03 * (kept > 0)
        + 0.03 * (played > 0)
        + 0.01 * min(kept + played, 5) / 5
        + 0.005 * min(track.popularity, 100) / 100
    )


def _history(track: Known, signals: Signals) -> str:
    kept, played = signals.kept[track.track_id], signals.played[track.track_id]
    said = []
    if kept:
        said.append(f"kept in {kept} of your playlists")
    if played:
        said.append(f"played {played} times")
    return "; " + " and ".join(said) if said else ""


def resolve(index: CatalogIndex, text: str, signals: Signals, limit: int) -> list[Scored]:
    """The best ``limit + 1`` tracks for the request, best first (empty when no word matches)."""
    request = list(dict.fromkeys(words(text)))
    content = [w for w in request if w not in FILLERS] or request  # "one" alone is a request
    optional = set(request) - set(content)
    matches = {w: index.matches(w, exact_only=w in optional) for w in request}
    quick = _quick(index, request, optional, matches)
    candidates = sorted((i for i in quick if quick[i] > 0), key=lambda i: (-quick[i], len(index.tracks[i].title)))[
        :MAX_CANDIDATES
    ]
    # Scoring stops at the first candidate that can neither enter the answer nor be a rival of the
    # best: its fit is at most qcov² with every word it could match matched (candidates come in
    # order of that bound). A request of common words ("love") holds hundreds of tracks: only the
    # first MAX_CANDIDATES are scored, which bounds the work at 10,000 tracks.
    content_weight = sum(weight(w) for w in content)
    optional_weight = sum(weight(w) for w in optional)
    scored: list[Scored] = []
    ranks: list[float] = []  # the best limit + 1 ranks so far (a min-heap)
    best_fit = best_rank = 0.0
    for i in candidates:
        bound = ((quick[i] + optional_weight) / (content_weight + optional_weight)) ** 2
        could_lead = bound + MAX_BOOST >= best_rank
        could_follow = bound >= ALTERNATIVE_FLOOR and (len(ranks) <= limit or bound + MAX_BOOST >= ranks[0])
        if scored and not could_lead and not could_follow and bound < best_fit - MAX_BOOST - RIVAL_MARGIN:
            break
        track = index.tracks[i]
        fit, reason = _fit(track, request, optional, *_details(track, matches))
        rank = fit + _boost(track, signals)
        scored.append(Scored(track, fit, rank, fit, reason))
        best_fit, best_rank = max(best_fit, fit), max(best_rank, rank)
        if fit < ALTERNATIVE_FLOOR:
            continue
        if len(ranks) <= limit:
            heapq.heappush(ranks, rank)
        elif rank > ranks[0]:
            heapq.heapreplace(ranks, rank)
    scored.sort(key=lambda s: (-s.rank, s.track.track_id))
    if not scored:
        return []
    top = scored[0]
    rivals = [s for s in scored[1:] if s.fit >= top.fit - RIVAL_MARGIN and s.track.song != top.track.song]
    factor = 1.0
    if rivals:
        strongest = max(signals.strength(s.track.track_id) for s in rivals)
        factor = 0.9 if signals.strength(top.track.track_id) > strongest else 0.65 if len(rivals) == 1 else 0.6
        top.reason += f"; {len(rivals)} other song{'s' if len(rivals) > 1 else ''} fit as well"
    for s in [top, *rivals]:
        s.confidence = s.fit * factor
    answer = [top, *[s for s in scored[1:] if s.fit >= ALTERNATIVE_FLOOR][:limit]]
    for s in answer:
        s.confidence = round(min(MAX_CONFIDENCE, s.confidence), 3)
        s.reason += _history(s.track, signals)
    return answer
