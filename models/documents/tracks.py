"""The per-user track catalog and the resolutions a user confirmed."""

from __future__ import annotations

from datetime import datetime

from beanie import Document
from pydantic import Field
from pymongo import ASCENDING, IndexModel

from models.documents.common import WrittenBy
from models.documents.text import TRACK_TEXT_WEIGHTS, text_index

EXTERNAL_ID_KEYS = ("isrc", "spotify", "apple_music", "musicbrainz_recording", "lastfm_mbid")


class TrackDocument(Document):
    """What the assistant learned about one track, per user (``memory_upsert_tracks``): the
    catalog that names tracks, resolves half-remembered titles and checks playlist rules."""

    id: str = Field(alias="_id")  # type: ignore[assignment]  # our own key, not an ObjectId: "<user_id>:<track_id>"
    user_id: int
    track_id: str
    name: str
    artists: list[str]
    album: str | None = None
    duration_ms: int | None = None
    popularity: int | None = None
    genres: list[str] = []
    energy: float | None = None  # 0..1 when known: low-energy tracks are the arc's breathers
    # The recording's ids on other services (isrc, spotify, apple_music, musicbrainz_recording,
    # lastfm_mbid): what a pasted link resolves by and what a playlist is carried across with.
    external_ids: dict[str, str] = {}
    first_seen_at: datetime
    updated_at: datetime
    written_by: WrittenBy | None = None

    class Settings:
        name = "tracks"
        indexes = [
            IndexModel([("user_id", ASCENDING), ("track_id", ASCENDING)], name="user_track"),
            text_index(list(TRACK_TEXT_WEIGHTS), TRACK_TEXT_WEIGHTS, "user_text"),
            # A pasted link or code is one equality on one of these (sparse: most tracks have few).
            *(
                IndexModel(
                    [("user_id", ASCENDING), (f"external_ids.{key}", ASCENDING)], name=f"user_{key}", sparse=True
                )
                for key in EXTERNAL_ID_KEYS
            ),
        ]


class TrackChoice(Document):
    """A confirmed resolution (``memory_confirm_track``): this text means this track for this user."""

    id: str = Field(alias="_id")  # type: ignore[assignment]  # our own key, not an ObjectId: "<user_id>:<digest of the folded text>"
    user_id: int
    text: str
    folded: str
    track_id: str
    confirmations: int = 1
    confirmed_at: datetime
    written_by: WrittenBy | None = None

    class Settings:
        name = "track_choices"
        indexes = [IndexModel([("user_id", ASCENDING), ("folded", ASCENDING)], name="user_folded")]
