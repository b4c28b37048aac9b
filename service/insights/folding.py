"""What a piece of feedback is about, as a small comparable signature: (cue, content words).

"No more than 3 songs per artist", "max three tracks from one band" and a patch of
``playlist_rules.max_tracks_per_artist`` all fold to ``("max", {"artist"})``. Deterministic and
explainable: the group key printed for the caller is this signature (``signature`` gives the steps).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.text.analysis import STOP_WORDS, stem, words

MAX_CUE, AVOID_CUE = "max", "avoid"

_MAX = re.compile(
    r"\b(?:(?:no|not|never|don t|do not)(?: [a-z0-9]+){0,2}? (?:more|longer|bigger) than|shorter than|under|at most|too many|too much|"
    r"maximum|max|limit|limits|limited|limiting|cap|caps|capped|over ?weight(?:ed|ing|s)?|"
    r"dominat(?:e|es|ed|ing)|less|fewer|accent|sprinkle)\b"
)
_AVOID = re.compile(
    r"\b(?:no|not|never|none|nothing|don t|dont|do not|doesn t|can t stand|cannot stand|hate|hates|hated|"
    r"avoid|avoids|avoided|avoiding|skip|skips|skipped|stop|without|ban|banned|exclude|excluded|enough|"
    r"sick of|tired of)\b"
)

SYNONYMS = {
    **dict.fromkeys(
        ("band", "bands", "singer", "singers", "musician", "musicians", "artists", "act", "acts"), "artist"
    ),
    **dict.fromkeys(
        (
            "minutes",
            "minute",
            "mins",
            "min",
            "hours",
            "hour",
            "hrs",
            "long",
            "longer",
            "length",
            "lengths",
            "duration",
            "runtime",
        ),
        "duration",
    ),
    **dict.fromkeys(
        ("breathers", "break", "breaks", "contemplative", "interlude", "interludes", "pause", "pauses"), "breather"
    ),
    **dict.fromkeys(("mellow", "chill", "calm", "quiet", "slow", "soft", "ballad", "ballads"), "calm"),
    **dict.fromkeys(("energetic", "upbeat", "anthemic", "energy"), "energy"),
}
FILLERS = frozenset(
    [
        "song",
        "songs",
        "track",
        "tracks",
        "tune",
        "tunes",
        "music",
        "playlist",
        "playlists",
        "mix",
        "mixes",
        "list",
        "lists",
        "please",
        "pls",
        "plz",
        "remember",
        "really",
        "want",
        "wants",
        "wanted",
        "like",
        "likes",
        "keep",
        "make",
        "sure",
        "always",
        "ever",
        "again",
        "just",
        "also",
        "one",
        "single",
        "same",
        "any",
        "each",
        "every",
        "per",
        "rule",
        "rules",
        "thing",
        "things",
        "stuff",
        "put",
        "include",
        "add",
        "use",
        "get",
        "give",
        "let",
        "ok",
        "okay",
        "thanks",
        "thank",
        "maybe",
        "bit",
        "lot",
        "lots",
        "way",
        "kind",
        "sort",
        "anything",
        "something",
        "mind",
        "feel",
        "think",
        "prefer",
        "preferences",
        "preference",
        "target",
        "default",
        "set",
        "setting",
        "user",
        "feedback",
        "said",
        "told",
        "say",
        "tell",
        "bring",
        "play",
        "played",
        "playing",
        "listen",
        "hear",
        "ones",
        "much",
        "many",
        "genre",
        "genres",
        "style",
        "styles",
        "vibe",
        "vibes",
        "would",
        "could",
        "should",
        "i",
        "d",
        "ll",
        "m",
        "re",
        "ve",
        "between",
        "hey",
        "hi",
    ]
)
NUMBER_WORDS = frozenset(
    [
        "zero",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "fifteen",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "hundred",
    ]
)
FILLERS = FILLERS | NUMBER_WORDS
# What a request with no other content word is about ("no more than 30 songs": a length cap).
MUSIC_NOUNS = dict.fromkeys(("song", "songs", "track", "tracks", "tune", "tunes"), "track") | dict.fromkeys(
    ("playlist", "playlists", "mix", "mixes", "list", "lists"), "playlist"
)
# The last key of a range object (``target_duration_minutes.min``) names the bound, not the rule.
RANGE_KEYS = frozenset(("min", "max", "low", "high", "lower", "upper", "from", "to", "start", "end"))


@dataclass(frozen=True)
class Signature:
    cue: str  # "max" | "avoid" | "" (a mention: a wish, a fact, a preference)
    content: frozenset[str]  # stemmed content words

    def key(self, surface: dict[str, str]) -> str:
        """``max: artist`` — the cue and the content words as first written (stems are unreadable)."""
        return f"{self.cue or 'about'}: {' '.join(sorted(surface.get(t, t) for t in self.content))}"


def signature(text: str, refuses: bool = False) -> tuple[Signature, dict[str, str]]:
    """The signature of a text and, for each stem, the word it came from. ``refuses``: the text
    is a dislike, whose cue is at least ``avoid``.

    1. fold case and diacritics and split into words (``service.text.analysis``, shared with search);
    2. rewrite cue phrases: limiting ones ("no more than", "at most", "too many", "less", "max",
       "limit", "cap", "overweight", "accent"...) to the cue ``max``, refusing ones ("no", "not",
       "don't", "never", "avoid", "hate", "skip", "without"...) to ``avoid`` (``max`` wins when both
       occur: "don't overweight one artist" limits, it does not refuse);
    3. map domain synonyms onto one word (band/singer → artist, minutes/hours/long → duration,
       contemplative/breaks → breather...), drop stop words, numbers and words every music request
       carries (song, track, playlist, please, remember...), stem (Snowball English).
    """
    flat = " ".join(words(text))
    flat, limits = _MAX.subn(" ", flat)
    flat, refusals = _AVOID.subn(" ", flat)
    cue = MAX_CUE if limits else AVOID_CUE if refusals or refuses else ""
    surface: dict[str, str] = {}
    for word in flat.split():
        word = SYNONYMS.get(word, word)
        if word in STOP_WORDS or word in FILLERS or word.isdigit():
            continue
        surface.setdefault(stem(word), word)
    if not surface:  # only cues and fillers ("no more than 30 songs"): the fillers are the content
        for word in flat.split():
            if word in MUSIC_NOUNS:
                surface.setdefault(MUSIC_NOUNS[word], MUSIC_NOUNS[word])
    if not surface:  # nothing but cues ("no!"): its own words, so it groups only with its like
        for word in words(text):
            surface.setdefault(word, word)
    return Signature(cue, frozenset(surface)), surface


def path_text(path: list[str]) -> str:
    """A profile key path as words: ``playlist_rules.max_tracks_per_artist`` → its words."""
    parts = path[:-1] if len(path) > 1 and path[-1] in RANGE_KEYS else path
    return " ".join(part.replace("_", " ").replace("-", " ") for part in parts)
