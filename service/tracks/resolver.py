"""Scoring a spoken request against one user's catalog.

For each candidate track (one holding a word the request may mean):

* ``qcov`` — how much of the request the track explains: the matched words' similarity, weighted
  (light words like "of" count a fifth; fillers like "that song" count only when the track has
  them). It enters squared: a request with a word the track lacks is a poor fit, which is what
  keeps "stairway to heaven" from resolving to a track merely called "Heaven".
* ``tcov`` — how much of the title the request covers; a partial title ("viva la something")
  still fits, a little less (factor 0.55 + 0.45·tcov).
* Requests that name only an artist (or only an album) fit every track of it equally, capped at
  0.75 (0.6): the user's own history decides which one, and says so in the reason.

Ranking adds small boosts for tracks the user keeps in playlists or played, then popularity.
Confidence is the fit, lowered when other songs fit as well and nothing the user did tells them
apart: a coin flip between two songs stays under 0.5 unless the words alone are certain.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from service.tracks.index import ALBUM, NAME, CatalogIndex, Known, is_artist
from service.tracks.signals import Signals
from service.tracks.text import FILLERS, weight, words

MAX_CANDIDATES = 500
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


def _collect(index: CatalogIndex, request: list[str], optional: set[str]) -> tuple[
        dict[int, dict[str, tuple[float, int]]], dict[int, dict[int, dict[str, float]]], dict[int, float]]:
    """Per candidate: each request word's best (similarity, field); each field's covered words;
    and a quick score to keep the most promising candidates."""
    best: dict[int, dict[str, tuple[float, int]]] = defaultdict(dict)
    cover: dict[int, dict[int, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    quick: dict[int, float] = defaultdict(float)
    for query_word in request:
        for word, similarity in index.matches(query_word, exact_only=query_word in optional).items():
            for i, code in index.postings[word]:
                current = best[i].get(query_word)
                # Ties go to the title (lower code): "queen" in "Killer Queen" by Queen is a title word.
                if current is None or similarity > current[0] or (similarity == current[0] and code < current[1]):
                    best[i][query_word] = (similarity, code)
                covered = index.tracks[i].joined.get(code, {}).get(word, (word,))
                field = cover[i][code]
                for part in covered:
                    if similarity > field.get(part, 0.0):
                        field[part] = similarity
    for i, found in best.items():
        quick[i] = sum(weight(w) * s for w, (s, _) in found.items() if w not in optional)
    return best, cover, quick


def _fit(track: Known, request: list[str], optional: set[str], found: dict[str, tuple[float, int]],
         cover: dict[int, dict[str, float]]) -> tuple[float, str]:
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
        return qcov ** 2 * (0.55 + 0.45 * min(1.0, tcov)), reason
    if artist_named:
        return qcov ** 2 * artist_cov * ARTIST_ONLY, f"only the artist is named ({', '.join(track.artists)})"
    if ALBUM in fields:
        album_cov = _coverage(track.fields[ALBUM], cover.get(ALBUM, {}))
        return qcov ** 2 * album_cov * ALBUM_ONLY, "only the album is named"
    return qcov ** 2 * 0.5, "a word of the artist or album matches"


def _boost(track: Known, signals: Signals) -> float:
    kept, played = signals.kept[track.track_id], signals.played[track.track_id]
    return (0.03 * (kept > 0) + 0.03 * (played > 0) + 0.01 * min(kept + played, 5) / 5
            + 0.005 * min(track.popularity, 100) / 100)


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
    best, cover, quick = _collect(index, request, optional)
    candidates = sorted((i for i in quick if quick[i] > 0), key=lambda i: -quick[i])[:MAX_CANDIDATES]
    scored = []
    for i in candidates:
        track = index.tracks[i]
        fit, reason = _fit(track, request, optional, best[i], cover[i])
        scored.append(Scored(track, fit, fit + _boost(track, signals), fit, reason))
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
    for s in scored[:limit + 1]:
        s.confidence = round(min(MAX_CONFIDENCE, s.confidence), 3)
        s.reason += _history(s.track, signals)
    return scored[:limit + 1]
