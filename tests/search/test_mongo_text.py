"""The real-server path: the ``$text`` query builder and the normalization of ``textScore``,
checked against documents in the format MongoDB returns them."""

from __future__ import annotations

from datetime import UTC, datetime

from models.documents.ledger import PlaylistDocument
from models.documents.profiles import PreferenceEventDocument
from models.documents.text import EVENT_TEXT_WEIGHTS, PLAYLIST_TEXT_WEIGHTS
from service.search.mongo_text import normalize, search_string, text_hits, text_query
from service.search.ranking import to_hit
from service.text.analysis import parse_query

# What find(filter, {"score": {"$meta": "textScore"}, ...}).sort([("score", {"$meta": "textScore"})])
# returns on MongoDB 7 for the query "nightwish symphonic" over two playlists and one event.
PLAYLIST_RESULTS = [
    {
        "_id": "1:pl01anchor000000",
        "user_id": 1,
        "playlist_id": "pl01anchor000000",
        "name": "Nightwish Essentials",
        "description": "Tarja and Floor era anthems, orchestral and operatic",
        "intent_tags": ["symphonic metal", "epic"],
        "seed_context": {"artists": ["Nightwish"]},
        "created_at": datetime(2025, 2, 10, 0, 0, tzinfo=UTC),
        "updated_at": datetime(2025, 2, 10, 0, 0, tzinfo=UTC),
        "score": 13.833333333333334,
    },
    {
        "_id": "1:pl01fill00000003",
        "user_id": 1,
        "playlist_id": "pl01fill00000003",
        "name": "Symphonic Workout",
        "intent_tags": ["power metal"],
        "seed_context": {"artists": ["Epica"], "days": 3},
        "created_at": datetime(2025, 1, 1, 0, 3, tzinfo=UTC),
        "updated_at": datetime(2025, 1, 1, 0, 3, tzinfo=UTC),
        "score": 7.5,
    },
]
EVENT_RESULTS = [
    {
        "_id": "4c1e0a3e-2b7c-4b53-9a53-0f5cbd7c1f0e",
        "user_id": 1,
        "type": "like",
        "source": "user",
        "payload": {"raw_text": "More symphonic metal like Nightwish please"},
        "timestamp": datetime(2025, 2, 1, 12, 0, tzinfo=UTC),
        "recorded_at": datetime(2025, 2, 1, 12, 0, 1, tzinfo=UTC),
        "recorded_ns": 1738411201000000000,
        "score": 2.9166666666666665,
    }
]


def test_text_query_is_scoped_to_the_user_and_sorted_by_text_score() -> None:
    args = text_query(7, parse_query("Mötley  Crüe -live"), "playlists", 25)
    assert args["filter"]["user_id"] == 7
    text = args["filter"]["$text"]
    assert text == {
        "$search": "motley crue live",
        "$language": "english",
        "$caseSensitive": False,
        "$diacriticSensitive": False,
    }
    assert args["projection"]["score"] == {"$meta": "textScore"}
    assert "track_ids" not in args["projection"] and args["projection"]["name"] == 1
    assert args["sort"] == [("score", {"$meta": "textScore"})]
    assert args["limit"] == 25
    events = text_query(7, parse_query("x"), "preference_events", 5)
    assert events["projection"] == {"score": {"$meta": "textScore"}}


def test_phrases_stay_quoted_and_nothing_becomes_a_negation() -> None:
    assert (
        search_string(parse_query('"Late Night Drive" synths -ballads'))
        == '"late night drive" late night drive synths ballads'
    )
    assert search_string(parse_query('say "hi" "x\\" y')).count('"') % 2 == 0


def test_text_indexes_use_the_ranking_weights() -> None:
    def text_index(model: type) -> dict:
        for index in model.Settings.indexes:
            if index.document.get("weights"):
                return index.document
        raise AssertionError("no text index")

    playlists = text_index(PlaylistDocument)
    assert playlists["weights"] == PLAYLIST_TEXT_WEIGHTS and playlists["default_language"] == "english"
    assert next(iter(playlists["key"])) == "user_id"
    assert PLAYLIST_TEXT_WEIGHTS["name"] > PLAYLIST_TEXT_WEIGHTS["intent_tags"] > PLAYLIST_TEXT_WEIGHTS["description"]
    assert PLAYLIST_TEXT_WEIGHTS["description"] > PLAYLIST_TEXT_WEIGHTS["seed_context.notes"]
    events = text_index(PreferenceEventDocument)
    assert events["weights"] == EVENT_TEXT_WEIGHTS and "$**" in events["key"]
    assert events["language_override"] != "language"  # a payload field named "language" must not break inserts


def test_text_scores_are_normalized_to_the_embedded_scale() -> None:
    parsed = parse_query("nightwish symphonic")
    assert normalize(0.0, parsed) == 0.0
    assert normalize(10.0, parsed) == 0.5
    assert normalize(99.0, parsed) == 1.0
    hits = text_hits(PLAYLIST_RESULTS, "playlists", parsed) + text_hits(EVENT_RESULTS, "preference_events", parsed)
    scores = [score for score, _ in hits]
    assert all(0 < s <= 1 for s in scores)
    assert scores[0] > scores[1] > scores[2]  # textScore order is kept
    assert [(e.kind, e.id) for _, e in hits] == [
        ("playlist", "pl01anchor000000"),
        ("playlist", "pl01fill00000003"),
        ("preference_event", "4c1e0a3e-2b7c-4b53-9a53-0f5cbd7c1f0e"),
    ]


def test_a_text_hit_becomes_a_result_of_the_prd_shape() -> None:
    parsed = parse_query("nightwish")
    score, entry = text_hits(PLAYLIST_RESULTS[:1], "playlists", parsed)[0]
    hit = to_hit(score, entry, {"nightwish"})
    assert set(hit) == {"kind", "id", "score", "snippet", "metadata"}
    assert hit["snippet"] == "Nightwish Essentials"
    assert hit["metadata"]["name"] == "Nightwish Essentials" and "score" not in hit["metadata"]
    assert hit["metadata"]["matched_words"] == ["Nightwish"]
    lean = to_hit(score, entry, {"nightwish"}, "lean")
    assert lean == {
        "kind": "playlist",
        "id": hit["id"],
        "score": hit["score"],
        "snippet": "Nightwish Essentials",
        "metadata": {"name": "Nightwish Essentials"},
    }


class _RecordedCollection:
    """Answers ``find`` with recorded server documents, and records the queries it got."""

    def __init__(self, answers: list[dict], all_documents: list[dict] | None = None) -> None:
        self.answers, self.all_documents, self.queries = answers, all_documents or [], []

    async def find(self, filter_, projection=None, sort=None, limit=0):
        self.queries.append((filter_, projection, sort, limit))
        if "$text" in filter_:
            return [dict(d) for d in self.answers]
        return [
            {k: v for k, v in d.items() if k != "score"}
            for d in self.all_documents
            if d["user_id"] == filter_["user_id"]
        ]

    async def find_one(self, filter_, projection=None, sort=None):
        self.queries.append((filter_, projection, sort, 0))
        return next((d for d in self.all_documents if d["_id"] == filter_["_id"]), None)


class _RecordedDatabase:
    engine = "mongodb"

    def __init__(
        self,
        playlists: list[dict],
        events: list[dict],
        profiles: list[dict],
        tracks: list[dict] | None = None,
        memories: list[dict] | None = None,
    ) -> None:
        self.playlists = _RecordedCollection(playlists, PLAYLIST_RESULTS)
        self.preference_events = _RecordedCollection(events, EVENT_RESULTS)
        self.profiles = _RecordedCollection([], profiles)
        self.tracks = _RecordedCollection(tracks or [], TRACK_RESULTS)
        self.memories = _RecordedCollection(memories or [], MEMORY_RESULTS)


TRACK_RESULTS = [
    {
        "_id": "1:track00000000000000001",
        "user_id": 1,
        "track_id": "track00000000000000001",
        "name": "Ghost Love Score",
        "artists": ["Nightwish"],
        "album": "Once",
        "score": 4.4,
    }
]
# As find() returns a memory with the MEMORY_FIELDS projection and the textScore ($meta) added.
MEMORY_RESULTS = [
    {
        "_id": "1:mem_0123456789abcdef01234567",
        "user_id": 1,
        "memory_id": "mem_0123456789abcdef01234567",
        "type": "recommendation",
        "entities": ["The Zombies", "Odessey and Oracle"],
        "summary": "Recommended for its baroque pop arrangements",
        "importance": 8,
        "timestamp": datetime(2025, 10, 13, tzinfo=UTC),
        "score": 3.9,
    }
]
PROFILE = {
    "_id": 1,
    "user_id": 1,
    "profile": {"notes": "symphonic metal with female vocals"},
    "version": 3,
    "updated_at": datetime(2025, 2, 1, tzinfo=UTC),
}


async def test_the_mongodb_engine_merges_text_hits_and_the_profile_by_score() -> None:
    from service.search.engine import SearchEngine

    db = _RecordedDatabase(PLAYLIST_RESULTS, EVENT_RESULTS, [PROFILE])
    engine = SearchEngine(db)  # type: ignore[arg-type]
    assert not engine.in_memory
    entries, _ = await engine.warm_up([1])
    assert entries == 0  # nothing is kept in memory for a real server: writes are not indexed here
    engine.event_appended(1, {"_id": "x", "type": "like", "source": "user", "payload": {}, "timestamp": None})
    hits = await engine.search(1, "nightwish symphonic", 10)
    assert [h["id"] for h in hits][:2] == ["pl01anchor000000", "pl01fill00000003"]
    assert {h["kind"] for h in hits} == {"playlist", "preference_event", "profile"}
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
    text_filter = db.playlists.queries[0][0]
    assert text_filter["user_id"] == 1 and text_filter["$text"]["$search"] == "nightwish symphonic"


async def test_the_mongodb_engine_falls_back_to_typo_tolerance_when_text_finds_nothing() -> None:
    from service.search.engine import SearchEngine

    db = _RecordedDatabase([], [], [PROFILE])
    hits = await SearchEngine(db).search(1, "nightwsh", 10)  # type: ignore[arg-type]
    assert hits and hits[0]["id"] == "pl01anchor000000"
    assert all(q[0]["user_id"] == 1 for q in db.playlists.queries)  # the fallback reads this user only
    assert await SearchEngine(db).search(2, "nightwsh", 10) == []  # type: ignore[arg-type]


async def test_the_mongodb_engine_finds_catalog_tracks_by_text() -> None:
    from service.search.engine import SearchEngine

    db = _RecordedDatabase([], [], [], TRACK_RESULTS)
    hits = await SearchEngine(db).search(1, "nightwish", 10)  # type: ignore[arg-type]
    assert hits == [
        {
            "kind": "track",
            "id": "track00000000000000001",
            "score": hits[0]["score"],
            "snippet": "Nightwish",
            "metadata": {"name": "Ghost Love Score", "artists": ["Nightwish"]},
        }
    ]
    text_filter = db.tracks.queries[0][0]
    assert text_filter["user_id"] == 1 and text_filter["$text"]["$search"] == "nightwish"


async def test_the_mongodb_engine_finds_typed_memories_by_text() -> None:
    from service.search.engine import SearchEngine

    db = _RecordedDatabase([], [], [], [], MEMORY_RESULTS)
    hits = await SearchEngine(db).search(1, "zombies baroque", 10)  # type: ignore[arg-type]
    assert [(h["kind"], h["id"]) for h in hits] == [("memory", "mem_0123456789abcdef01234567")]
    assert hits[0]["metadata"] == {"type": "recommendation", "entities": ["The Zombies", "Odessey and Oracle"]}
    assert 0 < hits[0]["score"] <= 1
    text_filter, projection = db.memories.queries[0][:2]
    assert text_filter["user_id"] == 1 and text_filter["$text"]["$search"] == "zombies baroque"
    assert projection["summary"] == 1 and projection["score"] == {"$meta": "textScore"}
