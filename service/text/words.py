"""How track names and spoken requests are compared: folding, tokens, filler words, token similarity.

Folding reuses the search analysis (case and diacritics: "Beyoncé" → "beyonce", "Røyksopp" →
"royksopp"); apostrophes are dropped inside words ("Don't" → "dont", as people type it).
Similarity of two words is the optimal-string-alignment edit distance (a swapped pair of letters
is one typo) from ``rapidfuzz``, within a budget that grows with the word's length.
"""

from __future__ import annotations

import hashlib
import re

from rapidfuzz.distance import OSA

from service.text.analysis import fold

_APOSTROPHES = re.compile(r"['’`´]")
_TOKEN = re.compile(r"[a-z0-9]+")
# Qualifiers after the title proper: "Song - Remastered 2011", "Song (feat. X)", "Song [Live]".
_QUALIFIER = re.compile(r"\s+-\s+.*$|\s*[(\[].*$")

# Dropped on both sides: "the" is how people misremember ("killers mr brightside").
ARTICLES = frozenset({"the"})
# Words that carry little: they count about a third as much as others.
LIGHT = frozenset(
    {
        "a",
        "an",
        "of",
        "to",
        "in",
        "on",
        "at",
        "and",
        "my",
        "me",
        "i",
        "you",
        "it",
        "is",
        "for",
        "with",
        "n",
        "la",
        "le",
        "el",
        "de",
        "da",
    }
)
# What people say around a title ("that song called …", "play the one by …"): never required,
# counted like any word only when the track really has it ("Song 2", "Another One Bites the Dust").
FILLERS = frozenset(
    {
        "that",
        "this",
        "song",
        "songs",
        "track",
        "tune",
        "called",
        "named",
        "by",
        "from",
        "something",
        "whatever",
        "thing",
        "one",
        "play",
        "put",
        "on",
        "some",
        "what",
        "its",
        "was",
        "um",
        "uh",
        "album",
        "band",
        "artist",
        "please",
        "again",
        "bit",
        "part",
        "goes",
    }
)


def words(text: str) -> list[str]:
    """Folded words of ``text``, articles dropped."""
    return [w for w in _TOKEN.findall(_APOSTROPHES.sub("", fold(text))) if w not in ARTICLES]


def core_title(name: str) -> str:
    """The title without its qualifiers, when anything is left of it."""
    core = _QUALIFIER.sub("", name).strip()
    return core or name


def folded_text(text: str) -> str:
    """The key of a confirmation: the request's words, folded, fillers kept (the same request)."""
    return " ".join(_TOKEN.findall(_APOSTROPHES.sub("", fold(text))))


def choice_key(user_id: int, folded: str) -> str:
    return f"{user_id}:{hashlib.sha256(folded.encode()).hexdigest()}"


def weight(word: str) -> float:
    return 0.35 if word in LIGHT else 1.0


def budget(length: int) -> int:
    """Typos tolerated in a word of this length: none up to 3 letters, one up to 6, then two."""
    return 0 if length <= 3 else 1 if length <= 6 else 2


def similarity(query_word: str, word: str) -> float:
    """1 for the same word; less for a typo within budget or a word typed only in part; else 0."""
    if query_word == word:
        return 1.0
    if len(query_word) >= 4 and word.startswith(query_word):  # typed in part: "bohem" → "bohemian"
        return 0.6 + 0.3 * len(query_word) / len(word)
    allowed = budget(min(len(query_word), len(word)))
    if not allowed or abs(len(query_word) - len(word)) > allowed:
        return 0.0
    distance = OSA.distance(query_word, word, score_cutoff=allowed)
    if distance > allowed:
        return 0.0
    return 1.0 - distance / max(len(query_word), len(word))
