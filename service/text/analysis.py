"""Text analysis shared by indexing and querying: fold, tokenize, drop stop words, stem.

Folding is case- and diacritics-insensitive ("Mötley Crüe" → "motley crue"); stems come from the
Snowball English stemmer (``snowballstemmer``), the algorithm MongoDB's text indexes use, so the
embedded engine and ``$text`` agree on what a word is.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field

import snowballstemmer

_TOKEN = re.compile(r"[a-z0-9]+")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")  # a word of the original text, for snippets
_PHRASE = re.compile(r'"([^"]*)"')

# MongoDB's English stop words, abridged to the common ones a spoken query carries.
STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "don",
    ]
)

_stemmer = snowballstemmer.stemmer("english")


# Letters that carry no combining mark to strip but are read as a plain letter ("Røyksopp").
_LETTERS = str.maketrans({"ø": "o", "æ": "ae", "œ": "oe", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i"})


def fold(text: str) -> str:
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.casefold().translate(_LETTERS))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


# The Snowball stemmer is quadratic on some inputs ("y" * 100,000 takes about a second, a million
# minutes, blocking every session); no English word is this long, so longer tokens stay as they
# are (and out of the cache).
MAX_STEMMED_LENGTH = 64


def stem(word: str) -> str:
    return word if len(word) > MAX_STEMMED_LENGTH else _stem(word)


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    stemmed: str = _stemmer.stemWord(word)  # snowballstemmer ships no types
    return stemmed


def words(text: str) -> list[str]:
    """Folded tokens, stop words included (positions matter for phrases)."""
    return _TOKEN.findall(fold(text))


def terms(text: str) -> list[str]:
    """Index terms: folded, stop words dropped, stemmed."""
    return terms_of(words(text))


def terms_of(folded_words: list[str]) -> list[str]:
    return [stem(w) for w in folded_words if w not in STOP_WORDS]


def surface_words(text: str) -> list[tuple[int, int, list[str]]]:
    """Each word of the original text as (start, end, its terms), to find matched words in a snippet."""
    return [(m.start(), m.end(), terms(m.group())) for m in _WORD.finditer(text)]


def typo_budget(word: str) -> int:
    """Edits tolerated for a query word: none under 5 letters, one from 5, two from 8."""
    return 0 if len(word) < 5 else 1 if len(word) < 8 else 2


@dataclass
class ParsedQuery:
    words: list[str] = field(default_factory=list)  # folded query words, stop words dropped, unique
    terms: list[str] = field(default_factory=list)  # their stems, aligned with ``words``
    phrases: list[list[str]] = field(default_factory=list)  # stemmed terms of each quoted phrase
    raw_phrases: list[str] = field(default_factory=list)  # folded text of each quoted phrase

    @property
    def empty(self) -> bool:
        return not self.terms


def parse_query(query: str) -> ParsedQuery:
    parsed = ParsedQuery()
    for inner in _PHRASE.findall(query):
        phrase_terms = terms(inner)
        if len(phrase_terms) > 1:
            parsed.phrases.append(phrase_terms)
            parsed.raw_phrases.append(" ".join(words(inner)))
    candidates = [w for w in words(query.replace('"', " ")) if w not in STOP_WORDS]
    if not candidates:  # a query of stop words only still means something ("the who")
        candidates = words(query)
    for word in candidates:
        term = stem(word)
        if term not in parsed.terms:
            parsed.words.append(word)
            parsed.terms.append(term)
    return parsed
