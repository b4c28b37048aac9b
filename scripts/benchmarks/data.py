"""Deterministic data: preference texts, track and playlist ids, valid mutation sequences.

Seeded generators only, so two runs (and the reference server) see the same data."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

GENRES = [
    "symphonic metal",
    "power metal",
    "synthwave",
    "lo-fi hip hop",
    "jazz fusion",
    "hooky pop",
    "folk",
    "drum and bass",
    "ambient",
    "post-rock",
    "k-pop",
    "bossa nova",
    "trip hop",
    "indie rock",
    "techno",
    "northern soul",
    "celtic punk",
    "city pop",
    "doom metal",
    "afrobeat",
]
MOODS = [
    "upbeat",
    "anthemic",
    "melancholic",
    "breather",
    "late night",
    "workout",
    "rainy day",
    "road trip",
    "focus",
    "chill",
    "euphoric",
    "dark",
    "sunday morning",
    "party",
    "cinematic",
]
PHRASES = [
    "keep it coming",
    "too slow for me",
    "more of this please",
    "not while working",
    "great for the gym",
    "loved the bridge",
    "skip the live versions",
    "only the early albums",
    "perfect on the train",
    "a bit repetitive",
    "needs more female vocals",
    "instrumental is better here",
]
EVENT_TYPES = ["like", "dislike", "rule", "feedback", "note"]
ARTISTS = 1000
QUERIES = [
    "symphonic metal",
    "upbeat road trip",
    "band0042q",
    "breather",
    "late night synthwave",
    "too slow",
    "gym",
    "jazz fusion rainy day",
    "band0777q",
    "cinematic post-rock",
]


def artist(k: int) -> str:
    return f"band{k % ARTISTS:04d}q"


def preference_text(rng: random.Random, i: int) -> tuple[str, dict[str, Any]]:
    genre, mood, phrase = rng.choice(GENRES), rng.choice(MOODS), rng.choice(PHRASES)
    who = artist(i * 7919 + rng.randrange(ARTISTS))
    text = f"{mood} {genre}, like {who}: {phrase}"
    return text, {"raw_text": text, "artist": who, "genre": genre}


def track(n: int) -> str:
    return f"spotifytrack{n:012d}"


def playlist_id(user: int, n: int) -> str:
    return f"pl{user:07d}x{n:06d}"


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class MutationGenerator:
    """Valid mutations of a playlist (its contents tracked here), around its initial length."""

    def __init__(self, rng: random.Random, tracks: list[str], first_new: int, reorder_share: float = 0.01) -> None:
        self.rng = rng
        self.tracks = list(tracks)
        self.target = len(tracks)
        self.next_track = first_new
        self.reorder_share = reorder_share

    def __next__(self) -> tuple[str, dict[str, Any]]:
        rng, tracks = self.rng, self.tracks
        roll = rng.random()
        if roll < 0.10:
            return "UPDATE_META", {
                "name": f"{rng.choice(MOODS)} {rng.choice(GENRES)} v{rng.randrange(99)}",
                "intent_tags": rng.sample(MOODS, 2),
            }
        if roll < 0.10 + self.reorder_share and len(tracks) > 1:
            order = list(tracks)
            rng.shuffle(order)
            self.tracks = order
            return "REORDER", {"track_ids": order}
        grow = len(tracks) < 2 or (len(tracks) <= self.target and rng.random() < 0.55) or rng.random() < 0.3
        if grow:
            new = [track(self.next_track + j) for j in range(rng.randint(1, 5))]
            self.next_track += len(new)
            payload: dict[str, Any] = {"track_ids": new}
            if rng.random() < 0.6:
                at = rng.randint(0, len(tracks))
                payload["insert_at"] = at
                self.tracks = tracks[:at] + new + tracks[at:]
            else:
                self.tracks = tracks + new
            return "ADD_TRACKS", payload
        gone = set(rng.sample(tracks, min(len(tracks) - 1, rng.randint(1, 5))))
        self.tracks = [t for t in tracks if t not in gone]
        return "REMOVE_TRACKS", {"track_ids": sorted(gone)}
