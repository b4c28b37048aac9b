"""A listener with a year of history, written through the tools before any measured session:
the PRD §11 profile and its updates, preference events, 14 logged playlists with their edits, a
track catalog, typed memories (two recommendations now due for a follow-up) and a year of plays.

Deterministic (one seeded generator); times are days before today, so aging and follow-ups see
the same ages on every run. ``World`` is what the agent's other tools (the music service,
Last.fm) would hand it during the sessions."""

from __future__ import annotations

import random
import string
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

USER = 1
Call = Callable[[str, dict[str, Any]], Awaitable[Any]]  # returns the result; raises on an error envelope

# (artist, genre, energy of its tracks): the PRD's listener, metal first, pop as an accent.
ARTISTS: list[tuple[str, str, float]] = [
    ("Nightwish", "symphonic metal", 0.8),
    ("Epica", "symphonic metal", 0.85),
    ("Within Temptation", "symphonic metal", 0.75),
    ("Delain", "symphonic metal", 0.78),
    ("Xandria", "symphonic metal", 0.8),
    ("Tarja", "symphonic metal", 0.7),
    ("Sabaton", "power metal", 0.9),
    ("Powerwolf", "power metal", 0.92),
    ("Blind Guardian", "power metal", 0.85),
    ("Kamelot", "power metal", 0.8),
    ("Helloween", "power metal", 0.88),
    ("DragonForce", "power metal", 0.95),
    ("Gloryhammer", "power metal", 0.93),
    ("Avantasia", "power metal", 0.82),
    ("Beast in Black", "melodic metal", 0.9),
    ("Battle Beast", "melodic metal", 0.88),
    ("Amaranthe", "melodic metal", 0.9),
    ("Dark Tranquillity", "melodic metal", 0.85),
    ("Chvrches", "hooky pop", 0.7),
    ("Robyn", "hooky pop", 0.75),
    ("Carly Rae Jepsen", "hooky pop", 0.78),
    ("Dua Lipa", "hooky pop", 0.8),
    ("Ólafur Arnalds", "contemplative", 0.2),
    ("Agnes Obel", "contemplative", 0.25),
    ("Loreena McKennitt", "contemplative", 0.35),
    ("Wardruna", "contemplative", 0.4),
    ("The Zombies", "baroque pop", 0.5),
    ("Tame Impala", "psychedelic pop", 0.6),
]
WORDS = [
    "ember",
    "storm",
    "crown",
    "tide",
    "winter",
    "oath",
    "ghost",
    "river",
    "iron",
    "glass",
    "siren",
    "night",
    "ocean",
    "pale",
    "fire",
    "wolves",
    "harbour",
    "lantern",
    "silver",
    "echo",
    "kingdom",
    "paper",
    "heart",
    "shadow",
    "dawn",
    "bloom",
    "veil",
    "thunder",
    "northern",
    "bright",
]
MOODS = ["upbeat", "anthemic", "breathers", "road trip", "gym", "late night", "rainy day", "focus", "sunday morning"]
PLAYLIST_NAMES = [
    "Drive & Breathe — symphonic road trip",
    "Monday Power Hour",
    "Winter Anthems",
    "Quiet Between Storms",
    "Gym: no ballads",
    "Nordic Evenings",
    "Pop Accent Mix",
    "Symphonic Deep Cuts",
    "Festival Warm-up",
    "Rainy Day Breathers",
    "Commute Hooks",
    "Epic Film-Score Metal",
    "New Finds Q3",
    "Autumn Drive",
]


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@dataclass
class Track:
    track_id: str
    name: str
    artist: str
    album: str
    genre: str
    energy: float
    duration_ms: int

    def catalog(self) -> dict[str, Any]:
        return {
            "track_id": self.track_id,
            "name": self.name,
            "artists": [self.artist],
            "album": self.album,
            "duration_ms": self.duration_ms,
            "genres": [self.genre],
            "energy": self.energy,
        }

    def play(self, at: datetime) -> dict[str, Any]:
        return {
            "artist": self.artist,
            "track": self.name,
            "album": self.album,
            "track_id": self.track_id,
            "played_at": iso(at),
        }


@dataclass
class World:
    """What the other tools of the agent know: the catalog, today, the plays since the last session."""

    now: datetime
    tracks: list[Track]
    fresh: list[Track]  # found on the music service today, never in a playlist yet
    recent_plays: list[dict[str, Any]] = field(default_factory=list)

    def by_artist(self, artist: str) -> list[Track]:
        return [t for t in self.tracks if t.artist == artist]


def _track_id(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(22))


def make_world(seed: int = 7) -> World:
    rng = random.Random(seed)
    now = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
    tracks: list[Track] = []
    for artist, genre, energy in ARTISTS:
        albums = [f"{rng.choice(WORDS).title()} of {rng.choice(WORDS).title()}" for _ in range(2)]
        if artist == "The Zombies":
            albums = ["Odessey and Oracle", "Begin Here"]
        if artist == "Tame Impala":
            albums = ["Currents", "Lonerism"]
        for k in range(12):
            name = f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()}"
            tracks.append(
                Track(
                    _track_id(rng),
                    name,
                    artist,
                    albums[k % 2],
                    genre,
                    round(min(1.0, max(0.05, energy + rng.uniform(-0.15, 0.15))), 2),
                    rng.randrange(150_000, 420_000),
                )
            )
    rng.shuffle(tracks)
    known = {"The Zombies", "Tame Impala"}  # recommended lately: in the catalog, never in a playlist
    fresh = [t for t in tracks if t.artist not in known][:36]
    kept = [t for t in tracks if t not in fresh]
    return World(now=now, tracks=kept, fresh=fresh)


def _pick(rng: random.Random, pool: list[Track], n: int, per_artist: int = 3) -> list[Track]:
    """n tracks, at most ``per_artist`` per artist (the profile's rule), none of the two recommended."""
    pool = [t for t in pool if t.artist not in ("The Zombies", "Tame Impala")]
    chosen: list[Track] = []
    counts: dict[str, int] = {}
    for t in rng.sample(pool, len(pool)):
        if counts.get(t.artist, 0) < per_artist:
            chosen.append(t)
            counts[t.artist] = counts.get(t.artist, 0) + 1
        if len(chosen) == n:
            break
    return chosen


PRD_PROFILE = {
    "core_genres": ["symphonic metal", "power metal", "melodic metal"],
    "secondary_vibes": ["hooky pop"],
    "energy_preferences": {
        "default": "upbeat/anthemic",
        "contemplative_breaks": True,
        "break_placement": "mid-playlist",
    },
    "playlist_rules": {
        "max_tracks_per_artist": 3,
        "arc": "drive → breather → drive",
        "target_duration_minutes": {"min": 90, "max": 180},
    },
    "avoid": ["over-weighting a single artist in one playlist"],
}
# (days ago, event type, what the user said, subject, profile patch or None)
STATEMENTS: list[tuple[int, str, str, str, dict[str, Any] | None]] = [
    (360, "rule", "Remember: don't overweight one artist in a playlist.", "playlist rules", None),
    (355, "like", "I like upbeat symphonic and power metal, with contemplative breaks.", "symphonic metal", None),
    (350, "rule", "Keep pop as an accent, not the main course.", "hooky pop", {"secondary_vibes": ["hooky pop"]}),
    (
        330,
        "like",
        "Nightwish is the reference for me, especially the orchestral stuff.",
        "Nightwish",
        {"likes": {"artists": ["Nightwish"]}},
    ),
    (300, "like", "Sabaton is perfect for the gym.", "Sabaton", {"likes": {"artists": ["Nightwish", "Sabaton"]}}),
    (
        280,
        "dislike",
        "No live versions please, the sound is always muddy.",
        "live versions",
        {"avoid": ["over-weighting a single artist in one playlist", "live versions"]},
    ),
    (250, "feedback", "Too many ballads in the last one.", "ballads", None),
    (
        230,
        "like",
        "Agnes Obel works great as a breather.",
        "Agnes Obel",
        {"likes": {"artists": ["Nightwish", "Sabaton", "Agnes Obel"]}},
    ),
    (
        200,
        "dislike",
        "I can't stand DragonForce's speed solos anymore.",
        "DragonForce",
        {"dislikes": {"artists": ["DragonForce"]}},
    ),
    (
        170,
        "rule",
        "Playlists for the car should be at least two hours.",
        "road trip",
        {"playlist_rules": {"target_duration_minutes": {"min": 120, "max": 180}}},
    ),
    (
        140,
        "like",
        "More female vocals, Tarja and Simone especially.",
        "female vocals",
        {"likes": {"vocals": ["female"]}},
    ),
    (110, "feedback", "The breather in the middle was perfect.", "breathers", None),
    (
        90,
        "like",
        "Beast in Black is my new favourite.",
        "Beast in Black",
        {"likes": {"artists": ["Nightwish", "Sabaton", "Agnes Obel", "Beast in Black"]}},
    ),
    (60, "dislike", "Not a fan of growls, keep it clean vocals.", "growls", {"dislikes": {"vocals": ["growls"]}}),
    (45, "feedback", "Loved the Wardruna opener on Nordic Evenings.", "Wardruna", None),
    (30, "note", "Going to see Nightwish in March.", "Nightwish", None),
    (20, "like", "Baroque pop arrangements are growing on me.", "baroque pop", None),
]
MEMORIES: list[tuple[int, str, list[str], str, int, dict[str, Any]]] = [
    (340, "insight", ["symphonic metal", "orchestration"], "Values orchestral arrangements over raw speed", 9, {}),
    (320, "discussion", ["Nightwish", "Imaginaerum"], "Long talk on concept albums; Imaginaerum is a favourite", 7, {}),
    (
        290,
        "recommendation",
        ["Kamelot", "The Awakening"],
        "Recommended for melodic power metal with strings",
        8,
        {"check_after_days": 7, "reason": "Melodic power metal with orchestration"},
    ),
    (260, "feedback", ["DragonForce"], "Too much shredding; prefers melody over speed", 9, {"sentiment": "negative"}),
    (
        240,
        "recommendation",
        ["Wardruna", "Kvitravn"],
        "Recommended as contemplative breaks",
        8,
        {"check_after_days": 14, "reason": "Nordic breathers"},
    ),
    (
        200,
        "event",
        ["Nightwish", "concert"],
        "Saw Nightwish live in Helsinki, still talks about it",
        7,
        {"event_type": "concert"},
    ),
    (150, "insight", ["female vocals"], "Strong preference for female-fronted symphonic bands", 9, {}),
    (
        120,
        "recommendation",
        ["Beast in Black", "Dark Connection"],
        "Recommended for 80s-flavoured power metal",
        8,
        {"check_after_days": 7, "reason": "Synth-laden power metal"},
    ),
    (95, "feedback", ["Beast in Black"], "Huge hit: on repeat for weeks", 8, {"sentiment": "positive"}),
    (
        40,
        "event",
        ["Nightwish", "concert"],
        "Seeing Nightwish in March, wants a warm-up playlist",
        7,
        {"date": "2027-03-14", "event_type": "concert"},
    ),
    (25, "insight", ["baroque pop", "arrangements"], "Curious about baroque pop arrangements beyond metal", 8, {}),
    (
        12,
        "recommendation",
        ["Tame Impala", "Currents"],
        "Recommended for lush production after baroque pop talk",
        8,
        {"check_after_days": 7, "reason": "Layered production"},
    ),
    (
        10,
        "recommendation",
        ["The Zombies", "Odessey and Oracle"],
        "Recommended baroque pop album after user expressed love for complex arrangements",
        8,
        {"check_after_days": 7, "reason": "Baroque pop production quality"},
    ),
]


async def seed_history(call: Call, world: World) -> dict[str, int]:
    """Write the year through ``call`` (a client listing every tool); returns what was written."""
    rng = random.Random(11)
    now = world.now
    ago = lambda days, hours=0.0: now - timedelta(days=days, hours=hours)  # noqa: E731
    counts = {"tracks": len(world.tracks), "events": 0, "profile_updates": 1, "playlists": 0, "mutations": 0}
    await call(
        "memory_update_profile",
        {"user_id": USER, "patch": PRD_PROFILE, "source": "user", "reason": "Seed profile (PRD §11)"},
    )
    await call("memory_upsert_tracks", {"user_id": USER, "tracks": [t.catalog() for t in world.tracks]})
    for days, kind, text, subject, patch in STATEMENTS:
        await call(
            "memory_append_preference_event",
            {
                "user_id": USER,
                "type": kind,
                "source": "user",
                "timestamp": iso(ago(days)),
                "payload": {"raw_text": text, "subject": subject},
            },
        )
        counts["events"] += 1
        if patch:
            await call(
                "memory_update_profile",
                {"user_id": USER, "patch": patch, "source": "user", "reason": f"User said: {text}"},
            )
            counts["profile_updates"] += 1
    for n, name in enumerate(PLAYLIST_NAMES):
        created = ago(350 - n * 24)
        contents = [t.track_id for t in _pick(rng, world.tracks, rng.randrange(28, 40))]
        playlist_id = f"37i9dQZF1DX{n:02d}{_track_id(rng)[:9]}"
        tags = rng.sample(MOODS, 3) if n else ["upbeat", "breathers", "symphonic metal", "road trip"]
        await call(
            "memory_log_playlist_create",
            {
                "user_id": USER,
                "playlist_id": playlist_id,
                "name": name,
                "track_ids": contents,
                "intent_tags": tags,
                "description": f"{name}: {', '.join(tags)}",
                "created_at": iso(created),
                "seed_context": {
                    "days": 60,
                    "top_artists": rng.sample([a for a, _, _ in ARTISTS[:18]], 3),
                    "constraints": {"max_tracks_per_artist": 3, "duration_minutes": [90, 180]},
                },
                "idempotency_key": f"seed-create-{n:04d}",
            },
        )
        counts["playlists"] += 1
        for k in range(rng.randrange(4, 12)):
            when = created + timedelta(days=1 + k, hours=rng.randrange(1, 20))
            kind, payload = _edit(rng, world, contents)
            await call(
                "memory_log_playlist_mutation",
                {
                    "user_id": USER,
                    "playlist_id": playlist_id,
                    "type": kind,
                    "payload": payload,
                    "timestamp": iso(when),
                    "client_event_id": str(uuid.UUID(int=rng.getrandbits(128))),
                },
            )
            counts["mutations"] += 1
    memory_ids: list[str] = []
    for days, kind, entities, summary, importance, metadata in MEMORIES:
        added = await call(
            "memory_add",
            {
                "user_id": USER,
                "type": kind,
                "entities": entities,
                "summary": summary,
                "importance": importance,
                "metadata": metadata,
                "timestamp": iso(ago(days)),
            },
        )
        memory_ids.append(added["memory_id"])
    counts["memories"] = len(memory_ids)
    counts["plays"] = await _plays(call, rng, world)
    for (_, kind, *_rest), memory_id in zip(MEMORIES[:-2], memory_ids[:-2], strict=True):
        if kind == "recommendation":  # followed up in earlier sessions; the last two are due now
            await call("memory_validate_recommendation", {"user_id": USER, "memory_id": memory_id})
    return counts


def _edit(rng: random.Random, world: World, contents: list[str]) -> tuple[str, dict[str, Any]]:
    roll = rng.random()
    if roll < 0.15:
        return "UPDATE_META", {"description": f"{rng.choice(MOODS)} edit", "intent_tags": rng.sample(MOODS, 2)}
    if roll < 0.25:
        rng.shuffle(contents)
        return "REORDER", {"track_ids": list(contents)}
    if roll < 0.65 or len(contents) < 20:
        new = [t.track_id for t in rng.sample(world.tracks, rng.randrange(1, 4)) if t.track_id not in contents]
        contents.extend(new)
        return "ADD_TRACKS", {"track_ids": new or [rng.choice(world.tracks).track_id]}
    gone = rng.sample(contents, rng.randrange(1, 3))
    contents[:] = [t for t in contents if t not in gone]
    return "REMOVE_TRACKS", {"track_ids": gone}


async def _plays(call: Call, rng: random.Random, world: World) -> int:
    """A year of scrobbles, about 11 a day, up to three days ago; the last three days are the
    agent's to log in a session (with five plays of the Zombies album, none of Tame Impala)."""
    listened = [t for t in world.tracks if t.artist not in ("The Zombies", "Tame Impala")]  # new to them
    plays: list[dict[str, Any]] = []
    for day in range(365, 0, -1):
        for _ in range(rng.randrange(6, 17)):
            track = rng.choice(listened)
            at = world.now - timedelta(days=day, hours=rng.uniform(0, 14))
            (plays if day > 3 else world.recent_plays).append(track.play(at))
    zombies = [t for t in world.by_artist("The Zombies") if t.album == "Odessey and Oracle"]
    world.recent_plays += [zombies[k % len(zombies)].play(world.now - timedelta(days=2, hours=k)) for k in range(5)]
    for start in range(0, len(plays), 1000):
        await call("memory_log_plays", {"user_id": USER, "plays": plays[start : start + 1000]})
    return len(plays)
