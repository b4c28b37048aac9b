"""The track catalog: what the assistant learned of tracks, per user, and what it is used for
(naming tracks in ledger answers, resolving half-remembered titles, checking playlist rules)."""

from __future__ import annotations

from service.search import SearchEngine
from service.settings import Settings
from service.storage import Database


class TrackService:
    def __init__(self, db: Database, settings: Settings, search: SearchEngine) -> None:
        self._db = db
        self.settings = settings
        self._search = search
