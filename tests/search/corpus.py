"""A deterministic search corpus: hand-written anchor items (the ones the labelled queries look
for) among generated filler that shares their vocabulary, for several users.

``build_corpus(seed, filler_playlists, filler_events)`` returns plain data; ``load`` writes it
through the service facade and returns the id of every anchor key (event ids are the service's).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.search.corpus_anchors import ANCHOR_EVENTS, ANCHOR_PLAYLISTS, ANCHOR_PROFILE

MAIN_USER = 1
OTHER_USERS = (2, 3)
START = datetime(2025, 1, 1, tzinfo=UTC)

GENRES = [
    "symphonic metal",
    "power metal",
    "melodic metal",
    "folk metal",
    "gothic rock",
    "hard rock",
    "synthpop",
    "indie pop",
    "dream pop",
    "bedroom pop",
    "lo-fi hip hop",
    "jazz",
    "bossa nova",
    "neo soul",
    "house",
    "techno",
    "ambient",
    "classical piano",
    "acoustic folk",
    "country",
    "punk",
    "shoegaze",
    "post-rock",
    "trip hop",
    "funk",
    "disco",
    "reggae",
    "hooky pop",
    "alt rock",
    "blues",
]

MOODS = [
    "upbeat",
    "anthemic",
    "chill",
    "mellow",
    "melancholic",
    "energetic",
    "dreamy",
    "dark",
    "cozy",
    "epic",
    "nostalgic",
    "romantic",
    "sunny",
    "midnight",
    "warm",
    "moody",
    "bright",
    "heavy",
    "soft",
    "groovy",
]

ACTIVITIES = [
    "workout",
    "study",
    "dinner",
    "commute",
    "cleaning",
    "coding",
    "reading",
    "hiking",
    "cooking",
    "focus",
    "morning",
    "party",
    "sleep",
    "gym",
]

ARTISTS = [
    "Within Temptation",
    "Epica",
    "Blind Guardian",
    "Helloween",
    "Dua Lipa",
    "Taylor Swift",
    "Arctic Monkeys",
    "Tame Impala",
    "Radiohead",
    "Daft Punk",
    "Norah Jones",
    "Miles Davis",
    "Bonobo",
    "Khruangbin",
    "Fleetwood Mac",
    "Queen",
    "ABBA",
    "Muse",
    "Coldplay",
    "Lorde",
    "Massive Attack",
    "Portishead",
    "Slowdive",
    "Bob Marley",
    "Dolly Parton",
    "Ramones",
    "Chic",
    "Erykah Badu",
    "Avicii",
    "Ludovico Einaudi",
    "Iron Maiden",
    "HAIM",
]

# Decoys: the anchors' artists also turn up in filler descriptions, seed artists and events (in
# lower-weight fields), so the labelled queries have to be won on field weights, not by luck.
DECOY_ARTISTS = ["Nightwish", "Sabaton", "Beyoncé", "Mötley Crüe", "The Zombies", "Kate Bush", "Björk"]

NAME_TEMPLATES = [
    "{Mood} {Genre}",
    "{Genre} for {activity}",
    "{Mood} {activity} mix",
    "{Genre} {Mood} Hour",
    "{Activity} Rotation",
    "More {Genre}",
    "{Mood} {Genre} Vol. {n}",
    "{Namesake} and Friends",
]

DESCRIPTION_TEMPLATES = [
    "A {mood} mix of {genre} and {genre2} for {activity}.",
    "{Genre} picks, mostly {mood}, a few {genre2} detours.",
    "Built from {artist} and {artist2} with a {mood} feel.",
    "For {activity}: {mood} tracks, nothing too {mood2}.",
]

EVENT_TEMPLATES = [
    ("like", "I love {artist}, more of their {mood} songs please"),
    ("dislike", "Too much {genre} lately, tone it down"),
    ("feedback", "The {activity} playlist felt too {mood}"),
    ("like", "More {mood} {genre} in the mornings"),
    ("note", "Listening to {artist} while {activity} this week"),
    ("rule", "Keep {genre} out of {activity} playlists"),
    ("feedback", "{artist} was a good pick for {activity}"),
]


@dataclass
class Corpus:
    playlists: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # user → create arguments
    events: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # user → (key, type, payload, time)
    profiles: dict[int, dict[str, Any]] = field(default_factory=dict)
    anchor_playlists: dict[str, str] = field(default_factory=dict)  # key → playlist id

    def size(self, user_id: int | None = None) -> int:
        users = [user_id] if user_id is not None else list(self.playlists)
        return sum(len(self.playlists.get(u, [])) + len(self.events.get(u, [])) + (u in self.profiles) for u in users)


def _fill(rng: random.Random, template: str) -> str:
    genre, genre2 = rng.sample(GENRES, 2)
    mood, mood2 = rng.sample(MOODS, 2)
    artist, artist2 = rng.sample(ARTISTS + DECOY_ARTISTS, 2)
    activity = rng.choice(ACTIVITIES)
    values = {
        "genre": genre,
        "genre2": genre2,
        "mood": mood,
        "mood2": mood2,
        "artist": artist,
        "artist2": artist2,
        "activity": activity,
        "n": rng.randint(1, 9),
        "namesake": rng.choice(ARTISTS),
    }
    values.update({k.capitalize(): str(v).title() for k, v in values.items() if isinstance(v, str)})
    return template.format(**values)


def _filler_playlist(rng: random.Random, user_id: int, n: int) -> dict[str, Any]:
    tags = rng.sample(GENRES, rng.randint(1, 2)) + rng.sample(MOODS, rng.randint(1, 2))
    return {
        "user_id": user_id,
        "playlist_id": f"pl{user_id:02d}fill{n:08d}",
        "name": _fill(rng, rng.choice(NAME_TEMPLATES)),
        "description": _fill(rng, rng.choice(DESCRIPTION_TEMPLATES)),
        "intent_tags": tags,
        "seed_context": {"artists": rng.sample(ARTISTS + DECOY_ARTISTS, rng.randint(0, 3)), "days": rng.randint(1, 30)},
        "track_ids": [f"track{user_id:02d}{n:08d}{i:03d}" for i in range(rng.randint(1, 5))],
        "created_at": START + timedelta(minutes=n),
    }


def _filler_event(rng: random.Random, n: int) -> dict[str, Any]:
    kind, template = rng.choice(EVENT_TEMPLATES)
    payload: dict[str, Any] = {"raw_text": _fill(rng, template)}
    if rng.random() < 0.3:
        payload["genre"] = rng.choice(GENRES)
    return {"key": None, "type": kind, "payload": payload, "timestamp": START + timedelta(minutes=n)}


def build_corpus(
    seed: int = 7, filler_playlists: int = 450, filler_events: int = 450, other_users_share: float = 0.25
) -> Corpus:
    """Anchors for the main user (and copies of a few under other users, to test isolation),
    filler for every user; ``filler_*`` counts are for the main user."""
    rng = random.Random(seed)
    corpus = Corpus()
    for user_id in (MAIN_USER, *OTHER_USERS):
        share = 1.0 if user_id == MAIN_USER else other_users_share
        playlists = [_filler_playlist(rng, user_id, n) for n in range(int(filler_playlists * share))]
        events = [_filler_event(rng, n) for n in range(int(filler_events * share))]
        corpus.playlists[user_id], corpus.events[user_id] = playlists, events
        corpus.profiles[user_id] = {
            "notes": _fill(rng, "Mostly {genre}, {mood} in the evenings"),
            "core_genres": rng.sample(GENRES, 3),
        }
    for n, (key, fields) in enumerate(ANCHOR_PLAYLISTS):
        pid = f"pl01anchor{n:06d}"
        corpus.anchor_playlists[key] = pid
        corpus.playlists[MAIN_USER].append(
            {
                "user_id": MAIN_USER,
                "playlist_id": pid,
                "track_ids": [f"trackanchor{n:08d}"],
                "created_at": START + timedelta(days=40, minutes=n),
                **fields,
            }
        )
    for n, (key, fields) in enumerate(ANCHOR_EVENTS):
        payload = {k: v for k, v in fields.items() if k != "type"}
        corpus.events[MAIN_USER].append(
            {"key": key, "type": fields["type"], "payload": payload, "timestamp": START + timedelta(days=40, minutes=n)}
        )
    corpus.profiles[MAIN_USER] = ANCHOR_PROFILE
    # The anchors' artists alone in short notes: with every field weighing the same, a note naming
    # "Sabaton" would outweigh the playlist "Sabaton Battle Anthems" (field weights must decide).
    for artist in DECOY_ARTISTS:
        corpus.events[MAIN_USER].append(
            {"key": None, "type": "note", "payload": {"raw_text": artist, "artist": artist}, "timestamp": START}
        )
    # Other users hold look-alikes of some anchors: they must never show up for the main user.
    for user_id in OTHER_USERS:
        for n, (_key, fields) in enumerate(ANCHOR_PLAYLISTS[:8]):
            corpus.playlists[user_id].append(
                {
                    "user_id": user_id,
                    "playlist_id": f"pl{user_id:02d}anchor{n:06d}",
                    "track_ids": [f"trackx{n:010d}"],
                    "created_at": START + timedelta(days=40, minutes=n),
                    **fields,
                }
            )
    return corpus


async def load(service: Any, corpus: Corpus) -> dict[str, str]:
    """Write the corpus through ``MemoryService``; return anchor key → id (playlists, events, profile)."""
    ids: dict[str, str] = dict(corpus.anchor_playlists)
    for user_id, profile in corpus.profiles.items():
        await service.profiles.update(user_id, profile, "corpus", "user", True)
    for playlists in corpus.playlists.values():
        for arguments in playlists:
            body = {k: v for k, v in arguments.items() if k != "created_at"}
            await service.playlists.create(body, arguments["created_at"])
    for user_id, events in corpus.events.items():
        for event in events:
            result = await service.profiles.append_event(
                user_id, event["type"], event["payload"], "user", event["timestamp"]
            )
            if event["key"] and user_id == MAIN_USER:
                ids[event["key"]] = result["event_id"]
    for key in ANCHOR_PROFILE:
        ids[f"profile:{key}"] = f"profile:{key}"
    return ids
