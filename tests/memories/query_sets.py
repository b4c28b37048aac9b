"""Labelled sets for ``memory_query``'s ``text``: one listener's typed memories (36 anchors by key,
among seeded filler sharing their words), paraphrases of the anchors that share no term with
their target's summary or entities, and absent queries sharing no term with any memory.

Written on 26 November 2026 (branch ``search-sets``), before the embedding model and precision
rules change; no query was run through search by meaning before commit. In ``MEMORY_PARAPHRASES``
the third field marks the held-out half, scored once by the lead after the change.
"""

from __future__ import annotations

import random
from typing import Any

USER = 1
FILLER = 100

# (key, type, entities, summary, importance)
MEMORY_ANCHORS: list[tuple[str, str, list[str], str, int]] = [
    (
        "lateralus",
        "recommendation",
        ["Tool", "Lateralus"],
        "Recommended for its odd time signatures and long builds",
        8,
    ),
    (
        "kind_of_blue",
        "recommendation",
        ["Miles Davis", "Kind of Blue"],
        "Suggested the 1959 modal record for late evening reading",
        8,
    ),
    (
        "fleet_foxes",
        "recommendation",
        ["Fleet Foxes"],
        "Suggested the harmony-rich indie folk band after they praised Crosby, Stills & Nash",
        8,
    ),
    (
        "burial",
        "recommendation",
        ["Burial", "Untrue"],
        "Recommended the London dubstep producer's crackly night-bus album",
        8,
    ),
    (
        "buena_vista",
        "recommendation",
        ["Buena Vista Social Club"],
        "Recommended Cuban son for a summer dinner party",
        8,
    ),
    (
        "arvo_part",
        "recommendation",
        ["Arvo Pärt", "Spiegel im Spiegel"],
        "Suggested minimalist piano and violin for winding down",
        8,
    ),
    ("tinariwen", "recommendation", ["Tinariwen"], "Recommended Tuareg desert blues guitars", 8),
    ("boards", "recommendation", ["Boards of Canada"], "Suggested hazy analog electronica with a nostalgic warble", 8),
    (
        "contralto",
        "insight",
        ["female vocals"],
        "Strongly favours women singers, especially a low contralto register",
        9,
    ),
    ("minor_keys", "insight", ["minor keys"], "Gravitates to sad chord progressions even in upbeat dance tracks", 6),
    ("finnish", "insight", ["Finnish lyrics"], "Enjoys songs sung in Finnish although they do not speak it", 6),
    ("nineties", "insight", ["90s alternative"], "Nostalgic for the alternative radio of their teenage years", 6),
    (
        "coding",
        "insight",
        ["instrumental music", "work"],
        "Needs wordless tracks while writing code, vocals distract",
        9,
    ),
    ("real_drums", "insight", ["live drums"], "Dislikes programmed beats; hears a real kit at once", 6),
    ("long_songs", "insight", ["long songs"], "Happy with ten-minute epics, never skips a slow build", 6),
    ("discovery", "insight", ["new releases"], "Wants at least a few unknown acts in every mix to keep discovering", 8),
    ("ghost_show", "event", ["Ghost", "Hartwall Arena"], "Has tickets for the Helsinki show on 14 March", 7),
    ("roskilde", "event", ["Roskilde Festival"], "Going to the Danish festival with friends in early July", 7),
    ("sister_wedding", "event", ["wedding"], "Their sister's wedding in June needs a first-dance song", 7),
    (
        "piano_lessons",
        "event",
        ["piano lessons"],
        "Started piano lessons and wants easy classical pieces to practise along",
        7,
    ),
    ("fjord_drive", "event", ["road trip", "Norway"], "Driving the fjord coast for two weeks in August", 7),
    ("berlin", "event", ["Berlin Marathon"], "Running 42 km in September, training four times a week", 7),
    ("autotune", "feedback", ["Auto-Tune"], "Hated the robotic pitch-corrected vocals in the last pop mix", 9),
    ("coldplay", "feedback", ["Coldplay"], "Said the stadium band is too bland and asked for none of it", 10),
    ("christmas", "feedback", ["Christmas music"], "No festive songs before December, they get sick of them", 10),
    ("sagging_mix", "feedback", ["workout mix"], "The gym playlist sagged in the middle with two ballads", 9),
    ("hoppipolla", "feedback", ["Sigur Rós", "Hoppípolla"], "Loved the glacial crescendo, played it on repeat", 8),
    ("brickwall", "feedback", ["brickwalled masters"], "Compressed modern masters tire their ears quickly", 9),
    ("bossa", "feedback", ["bossa nova"], "Found the Brazilian lounge picks too sleepy for breakfast", 9),
    (
        "swearing",
        "feedback",
        ["explicit lyrics"],
        "Swearing is fine alone but never when the children are listening",
        10,
    ),
    (
        "turntable",
        "discussion",
        ["vinyl", "turntable"],
        "Talked about buying a record player and which pressings are worth it",
        5,
    ),
    ("prog", "discussion", ["progressive rock"], "Long chat about whether prog peaked with Close to the Edge", 5),
    (
        "lossless",
        "discussion",
        ["lossless audio"],
        "Discussed whether hi-res streaming is audible on their headphones",
        5,
    ),
    ("eurovision", "discussion", ["Eurovision"], "Argued about the song contest's best winners; they love the camp", 5),
    (
        "film_scores",
        "discussion",
        ["film scores", "Hans Zimmer"],
        "Compared movie composers; prefers Morricone's westerns to blockbusters",
        5,
    ),
    ("kpop", "discussion", ["K-pop"], "Their teenager got them into Korean idol groups; open to more", 6),
]

# (text query, anchor key, held out): the first of each pair is for development, the second held out.
MEMORY_PARAPHRASES: list[tuple[str, str, bool]] = [
    ("that maynard keenan band's spiral album", "lateralus", False),
    ("prog metal with the fibonacci song", "lateralus", True),
    ("so what trumpeter, bedtime with a novel", "kind_of_blue", False),
    ("seattle beardy choirboys singing in unison", "fleet_foxes", True),
    ("anonymous garage beats for a drizzly ride home after midnight", "burial", False),
    ("havana veterans' old-time tunes for an outdoor supper", "buena_vista", True),
    ("estonian tintinnabuli to relax before bed", "arvo_part", False),
    ("saharan nomad rock", "tinariwen", True),
    ("wobbly vhs-sounding scottish synth duo", "boards", False),
    ("prefers a deep alto from a lady at the mic", "contralto", True),
    ("melancholy harmony in club bangers", "minor_keys", False),
    ("likes suomi vocals without understanding a word", "finnish", True),
    ("misses the college rock of their youth", "nineties", False),
    ("no singing while programming", "coding", True),
    ("hates sequenced percussion, wants a human playing it", "real_drums", False),
    ("patient with sprawling compositions that take forever to get going", "long_songs", True),
    ("likes surprises from bands they've not heard before", "discovery", False),
    ("papa emeritus gig in finland's capital", "ghost_show", True),
    ("big summer camping gig in denmark with mates", "roskilde", False),
    ("sibling getting married, the couple's opening waltz", "sister_wedding", True),
    ("beginner keyboard student after simple etudes", "piano_lessons", False),
    ("scandinavian coastal holiday by car this summer", "fjord_drive", True),
    ("long distance race in germany this autumn", "berlin", False),
    ("can't bear the t-pain voice effect", "autotune", True),
    ("chris martin's group is banned", "coldplay", False),
    ("no yuletide carols in november", "christmas", True),
    ("the training session soundtrack dipped halfway through with slow numbers", "sagging_mix", False),
    ("adored the icelandic band's swelling anthem", "hoppipolla", True),
    ("loudness war reissues fatigue them", "brickwall", False),
    ("gilberto-style samba-jazz made mornings too drowsy", "bossa", True),
    ("curse words ok solo but not around the kids", "swearing", False),
    ("chat about getting a hi-fi deck for lps", "turntable", True),
    ("debate over yes, genesis and king crimson's golden age", "prog", False),
    ("can they hear flac versus mp3 on their cans", "lossless", True),
    ("abba's waterloo or lordi: the greatest of the televised europe-wide competition", "eurovision", False),
    ("ennio versus the inception maestro, who writes better cinema music", "film_scores", True),
    ("bts and blackpink via their adolescent kid", "kpop", False),
]

# Text queries about what no memory holds: artists, genres, occasions, moods, nonsense, typos.
MEMORY_ABSENT: list[str] = [
    "metallica",
    "led zeppelin",
    "taylor swift",
    "eminem",
    "dolly parton",
    "frank sinatra",
    "shakira",
    "johnny cash",
    "kendrick lamar",
    "bruce springsteen",
    "polka",
    "zydeco",
    "bluegrass banjo",
    "gregorian plainsong",
    "reggaeton",
    "mariachi trumpets",
    "klezmer clarinet",
    "balinese gamelan",
    "yodeling",
    "barbershop quartet",
    "bar mitzvah",
    "tax filing",
    "knitting",
    "gardening",
    "thanksgiving turkey",
    "skateboarding",
    "chess tournament",
    "furious",
    "jealous",
    "homesick",
    "zqk7mvbxt",
    "blorfendish",
    "snargle wompus",
    "metalica",
    "shakria",
]

FILLER_ARTISTS = ["Radiohead", "Massive Attack", "Portishead", "Daft Punk", "Norah Jones", "Miles Davis", "Nightwish"]
FILLER_ARTISTS += ["Björk", "Kraftwerk", "Fleetwood Mac", "Bonobo", "Tame Impala", "Sigur Rós", "Tool", "Burial"]
FILLER_GENRES = ["indie folk", "dream pop", "modal jazz", "ambient", "trip hop", "symphonic metal", "synthpop"]
FILLER_GENRES += ["bossa nova", "post-rock", "progressive rock", "neo soul", "techno", "piano ballads"]
FILLER_MOODS = ["calm", "dark", "upbeat", "sad", "dreamy", "heavy", "warm", "sleepy", "bright", "loud"]
FILLER_ACTIVITIES = ["cooking", "the commute", "reading", "running", "work", "studying", "a dinner", "the gym"]
FILLER_TEMPLATES = [
    ("recommendation", "Recommended {artist} for {activity}, a {mood} {genre} pick"),
    ("insight", "Seems to like {mood} {genre} more than before"),
    ("insight", "Listens to {artist} mostly during {activity}"),
    ("event", "Mentioned a {genre} night with {artist} next month"),
    ("feedback", "Said the {genre} mix was too {mood} for {activity}"),
    ("feedback", "Liked the {artist} songs in the {activity} playlist"),
    ("discussion", "Talked about {artist} and the {genre} scene"),
]


def anchor_memories() -> dict[str, dict[str, Any]]:
    """Each anchor as ``memory_add`` arguments, by key."""
    return {
        key: {"user_id": USER, "type": kind, "entities": entities, "summary": summary, "importance": importance}
        for key, kind, entities, summary, importance in MEMORY_ANCHORS
    }


def filler_memories(seed: int = 11, count: int = FILLER) -> list[dict[str, Any]]:
    """Generated memories of the same user, in the anchors' words (artists, genres, "mix", "songs")."""
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        kind, template = rng.choice(FILLER_TEMPLATES)
        artist, genre = rng.choice(FILLER_ARTISTS), rng.choice(FILLER_GENRES)
        summary = template.format(
            artist=artist, genre=genre, mood=rng.choice(FILLER_MOODS), activity=rng.choice(FILLER_ACTIVITIES)
        )
        entities = rng.choice([[artist], [genre], [artist, genre]])
        found.append(
            {"user_id": USER, "type": kind, "entities": entities, "summary": summary, "importance": rng.randint(3, 8)}
        )
    return found


async def load_memories(call: Any) -> dict[str, str]:
    """Add every memory through the ``memory_add`` tool; return anchor key → memory id. Each is
    stored as said (``skip_dedup``): a filler restating another must not merge them."""
    for arguments in filler_memories():
        await call.ok("memory_add", {**arguments, "skip_dedup": True})
    return {
        key: (await call.ok("memory_add", {**arguments, "skip_dedup": True}))["memory_id"]
        for key, arguments in anchor_memories().items()
    }
