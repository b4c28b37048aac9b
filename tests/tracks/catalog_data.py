"""A realistic catalog for resolution tests: real songs (as a music service names them, with
qualifiers, diacritics, "The" bands, the same title by several artists), and seeded filler
tracks whose titles reuse the words song titles are made of ("love", "night", "heart"…), so the
real songs have plenty of near neighbours. Written before the labelled queries, not for them."""

from __future__ import annotations

import random
from typing import Any

from tests.tracks.catalog_real import REAL

WORDS = [
    "love",
    "night",
    "heart",
    "fire",
    "dance",
    "summer",
    "rain",
    "light",
    "dream",
    "blue",
    "gold",
    "city",
    "river",
    "road",
    "home",
    "wild",
    "girl",
    "boy",
    "moon",
    "sun",
    "star",
    "baby",
    "crazy",
    "lonely",
    "little",
    "broken",
    "sweet",
    "cold",
    "midnight",
    "morning",
    "paradise",
    "shadow",
    "ghost",
    "forever",
    "tonight",
    "yesterday",
    "tomorrow",
    "angel",
    "devil",
    "heaven",
    "highway",
    "ocean",
    "storm",
    "thunder",
    "silver",
    "velvet",
    "electric",
    "neon",
    "golden",
    "burning",
    "falling",
    "running",
    "dancing",
    "waiting",
    "calling",
    "walking",
    "lost",
    "free",
    "young",
    "hearts",
    "eyes",
    "hands",
    "lies",
    "tears",
    "kiss",
    "fever",
    "echo",
    "mirror",
    "window",
    "garden",
    "island",
    "desert",
    "winter",
]

FIRST = [
    "Nora",
    "Leo",
    "Maya",
    "Jonas",
    "Ivy",
    "Theo",
    "Elsa",
    "Otto",
    "Lena",
    "Felix",
    "Clara",
    "Hugo",
    "Mila",
    "Arlo",
    "June",
    "Rafa",
    "Ada",
    "Milo",
    "Iris",
    "Sol",
    "Wren",
    "Kai",
    "Esme",
    "Luca",
]

LAST = [
    "Quill",
    "Harbor",
    "Vance",
    "Lindqvist",
    "Moreau",
    "Castell",
    "Okafor",
    "Brandt",
    "Sato",
    "Novak",
    "Reyes",
    "Ferris",
    "Aalto",
    "Byrne",
    "Duval",
    "Halloran",
    "Ishikawa",
    "Kowalski",
]

BANDS = [
    "Velvet Harbor",
    "Paper Satellites",
    "The Neon Orchard",
    "Glass Pilots",
    "Northern Static",
    "The Quiet Comets",
    "Silver Tongues",
    "Hollow Kites",
    "Echo Park Drive",
    "The Marigolds",
    "Wolf & Lantern",
    "Copper Sky",
    "The Night Gardeners",
    "Lost Atlas",
    "Blue Meridian",
    "Cold Harbour",
    "The Wild Hours",
    "Golden Arrows",
    "Static Bloom",
    "The Morning Lights",
]

GENRES = ["indie", "rock", "pop", "metal", "electronic", "folk", "hip hop", "soul", "synthpop", "ambient"]


def _seconds(text: str) -> int:
    minutes, seconds = text.split(":")
    return int(minutes) * 60 + int(seconds)


def real_tracks() -> list[dict[str, Any]]:
    rows = [line.split(" | ") for line in REAL.strip().splitlines()]
    rng = random.Random(2)
    return [
        {
            "track_id": f"real{i:06d}track",
            "name": title,
            "artists": [artist],
            "album": album,
            "duration_ms": _seconds(length) * 1000,
            "popularity": rng.randint(40, 95),
            "genres": [rng.choice(GENRES)],
            "energy": round(rng.uniform(0.2, 0.95), 2),
        }
        for i, (artist, title, album, length) in enumerate(rows)
    ]


def filler_tracks(count: int, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    artists = BANDS + [f"{rng.choice(FIRST)} {rng.choice(LAST)}" for _ in range(60)]
    tracks = []
    for i in range(count):
        title = " ".join(rng.sample(WORDS, rng.choice([1, 2, 2, 3, 3, 4]))).title()
        if rng.random() < 0.1:
            title += " - Acoustic" if rng.random() < 0.5 else " (Live)"
        album = " ".join(rng.sample(WORDS, rng.choice([1, 2, 3]))).title()
        tracks.append(
            {
                "track_id": f"fill{i:06d}track",
                "name": title,
                "artists": [rng.choice(artists)],
                "album": album,
                "duration_ms": rng.randint(150, 330) * 1000,
                "popularity": rng.randint(0, 70),
                "genres": [rng.choice(GENRES)],
                "energy": round(rng.uniform(0.1, 0.95), 2),
            }
        )
    return tracks


def catalog(filler: int = 1000) -> list[dict[str, Any]]:
    return real_tracks() + filler_tracks(filler)


def by_title(tracks: list[dict[str, Any]], artist: str, title_start: str) -> str:
    """The id of the track of ``artist`` whose name starts with ``title_start``."""
    return next(t["track_id"] for t in tracks if t["artists"][0] == artist and t["name"].startswith(title_start))
