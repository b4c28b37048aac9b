"""The hand-written anchor items of the search corpus (``corpus.py``): the playlists, preference
events and profile the labelled queries look for, by key.
"""

from __future__ import annotations

from typing import Any

# Anchors: (key, kind, fields). Playlist fields: name, description, intent_tags, seed_context;
# event fields: type, raw_text, payload extras; profile: the profile object (ids "profile:<key>").
ANCHOR_PLAYLISTS: list[tuple[str, dict[str, Any]]] = [
    (
        "nightwish",
        {
            "name": "Nightwish Essentials",
            "intent_tags": ["symphonic metal", "epic"],
            "description": "Tarja and Floor era anthems, orchestral and operatic",
            "seed_context": {"artists": ["Nightwish"]},
        },
    ),
    (
        "sabaton",
        {
            "name": "Sabaton Battle Anthems",
            "intent_tags": ["power metal", "history"],
            "description": "War stories set to double kick drums",
            "seed_context": {"artists": ["Sabaton"]},
        },
    ),
    (
        "motley",
        {
            "name": "Mötley Crüe Glam Night",
            "intent_tags": ["glam metal", "80s"],
            "description": "Hairspray, leather and Sunset Strip riffs",
            "seed_context": {"artists": ["Mötley Crüe"]},
        },
    ),
    (
        "zombies",
        {
            "name": "The Zombies Odessey",
            "intent_tags": ["baroque pop", "60s"],
            "description": "Time of the season, mellotron and harmonies",
            "seed_context": {"artists": ["The Zombies"]},
        },
    ),
    (
        "beyonce",
        {
            "name": "Beyoncé Power Hour",
            "intent_tags": ["r&b", "workout"],
            "description": "Formation, Crazy in Love and stadium bangers",
            "seed_context": {"artists": ["Beyoncé"]},
        },
    ),
    (
        "breathers",
        {
            "name": "Symphonic Drive with Breathers",
            "intent_tags": ["upbeat", "symphonic metal", "driving"],
            "description": "Anthemic drive, one contemplative breather mid-playlist, then drive again",
            "seed_context": {"artists": ["Amaranthe", "Beast in Black"], "notes": "drive → breather → drive"},
        },
    ),
    (
        "bjork",
        {
            "name": "Björk and Sigur Rós",
            "intent_tags": ["icelandic", "experimental"],
            "description": "Glacial strings and falsetto from Reykjavík",
            "seed_context": {"artists": ["Björk", "Sigur Rós"]},
        },
    ),
    (
        "royksopp",
        {
            "name": "Røyksopp Northern Lights",
            "intent_tags": ["electronica", "nordic"],
            "description": "Bergen synths for long winter evenings",
            "seed_context": {"artists": ["Røyksopp"]},
        },
    ),
    (
        "motorhead",
        {
            "name": "Motörhead Speed Run",
            "intent_tags": ["speed", "rock and roll"],
            "description": "Ace of Spades and nothing slower",
            "seed_context": {"artists": ["Motörhead"]},
        },
    ),
    (
        "celine",
        {
            "name": "Céline Dion Power Ballads",
            "intent_tags": ["ballads", "karaoke"],
            "description": "Big key changes for singing along",
            "seed_context": {"artists": ["Céline Dion"]},
        },
    ),
    (
        "maneskin",
        {
            "name": "Måneskin Glitter Rock",
            "intent_tags": ["italian rock", "eurovision"],
            "description": "Zitti e buoni energy",
            "seed_context": {"artists": ["Måneskin"]},
        },
    ),
    (
        "rainy",
        {
            "name": "Rainy Sunday Coffeehouse",
            "intent_tags": ["jazz", "coffee", "rainy day"],
            "description": "Brushes on snare, a slow Sunday with coffee and rain on the window",
        },
    ),
    (
        "latedrive",
        {
            "name": "Highway After Dark",
            "intent_tags": ["synthwave", "driving"],
            "description": "Neon synths for a late night drive down an empty highway",
        },
    ),
    (
        "wedding",
        {
            "name": "Wedding First Dance Shortlist",
            "intent_tags": ["romantic", "wedding"],
            "description": "Candidates for the first dance, slow and tender",
        },
    ),
    (
        "marathon",
        {
            "name": "Marathon Training Tempo",
            "intent_tags": ["running", "tempo", "cardio"],
            "description": "Steady 170 bpm runners for long training runs",
        },
    ),
    (
        "lullaby",
        {
            "name": "Baby Lullabies",
            "intent_tags": ["lullaby", "kids", "bedtime"],
            "description": "Music box melodies to put the baby to sleep",
        },
    ),
    (
        "christmas",
        {
            "name": "Christmas Eve by the Fireplace",
            "intent_tags": ["christmas", "holiday", "cozy"],
            "description": "Carols, crackling fire and hot chocolate",
        },
    ),
    (
        "halloween",
        {
            "name": "Halloween Haunted House",
            "intent_tags": ["halloween", "spooky"],
            "description": "Creepy organs, theremins and horror movie themes",
        },
    ),
    (
        "ghost",
        {
            "name": "Ghost and Occult Rock",
            "intent_tags": ["occult rock", "theatrical"],
            "description": "Papa Emeritus sermons with catchy choruses",
            "seed_context": {"artists": ["Ghost"]},
        },
    ),
    (
        "katebush",
        {
            "name": "Kate Bush Hounds of Love",
            "intent_tags": ["art pop", "80s"],
            "description": "Running up that hill and the ninth wave",
            "seed_context": {"artists": ["Kate Bush"]},
        },
    ),
    (
        "videogame",
        {
            "name": "Video Game Boss Battles",
            "intent_tags": ["soundtrack", "gaming", "orchestral"],
            "description": "Final boss themes and chiptune remixes",
        },
    ),
    (
        "surf",
        {
            "name": "Surf Rock Beach Party",
            "intent_tags": ["surf rock", "summer", "beach"],
            "description": "Reverb-drenched guitars and sandy toes",
        },
    ),
    (
        "flamenco",
        {
            "name": "Flamenco Guitar Nights",
            "intent_tags": ["flamenco", "spanish guitar"],
            "description": "Rumba, bulerías and palmas from Andalusia",
        },
    ),
    (
        "kpop",
        {
            "name": "K-Pop Dance Practice",
            "intent_tags": ["k-pop", "dance"],
            "description": "Choreography-ready hits with big drops",
        },
    ),
    (
        "sea",
        {
            "name": "Sea Shanties for Sailors",
            "intent_tags": ["shanties", "folk"],
            "description": "Hoist the sails, sing the wellerman chorus",
        },
    ),
    (
        "meditation",
        {
            "name": "Guided Meditation Drones",
            "intent_tags": ["meditation", "drone", "breathing"],
            "description": "Singing bowls and slow breathing cues",
        },
    ),
    (
        "grunge",
        {
            "name": "Seattle Grunge Flannel",
            "intent_tags": ["grunge", "90s"],
            "description": "Distorted guitars from the Pacific Northwest",
        },
    ),
    (
        "opera",
        {
            "name": "Opera Arias for Beginners",
            "intent_tags": ["opera", "classical vocal"],
            "description": "Puccini and Verdi highlights, sopranos and tenors",
        },
    ),
    (
        "kraftwerk",
        {
            "name": "Kraftwerk Autobahn Classics",
            "intent_tags": ["krautrock", "synth"],
            "description": "Robots, trans-europe express and early drum machines",
            "seed_context": {"artists": ["Kraftwerk"]},
        },
    ),
]

ANCHOR_EVENTS: list[tuple[str, dict[str, Any]]] = [
    (
        "nickelback",
        {
            "type": "dislike",
            "raw_text": "Please never add Nickelback again, I can't stand them",
            "artist": "Nickelback",
        },
    ),
    ("saxophone", {"type": "like", "raw_text": "That saxophone solo on the bridge gave me chills"}),
    ("bagpipes", {"type": "dislike", "raw_text": "No bagpipes at all, even in folk metal"}),
    ("accordion", {"type": "like", "raw_text": "The accordion waltz was lovely, more accordions"}),
    ("podcast", {"type": "note", "raw_text": "Skip podcasts and spoken word interludes entirely"}),
    ("explicit", {"type": "rule", "raw_text": "No explicit lyrics when the kids are in the car"}),
    ("vinyl", {"type": "note", "raw_text": "Bought the vinyl reissue of Rumours at the flea market"}),
    ("remaster", {"type": "feedback", "raw_text": "Prefer the original recordings over remastered versions"}),
    ("live", {"type": "dislike", "raw_text": "Avoid live recordings with crowd noise"}),
    ("tempo", {"type": "feedback", "raw_text": "The transitions between songs were too abrupt, smoother crossfades"}),
]

ANCHOR_PROFILE: dict[str, Any] = {
    "notes": "Loves long instrumental intros and female-fronted bands",
    "core_genres": ["symphonic metal", "power metal", "melodic metal"],
    "avoid": ["over-weighting a single artist", "dubstep wobble bass"],
    "languages": ["Finnish", "Swedish", "Japanese lyrics welcome"],
    "playlist_rules": {"max_tracks_per_artist": 3, "target_duration_minutes": {"min": 90, "max": 180}},
}
