"""Reports over one user's whole history: rotation (new tracks vs staples) and recurring feedback."""

from __future__ import annotations

from service.settings import Settings
from service.storage import Database


class InsightService:
    def __init__(self, db: Database, settings: Settings) -> None:
        self._db = db
        self.settings = settings
