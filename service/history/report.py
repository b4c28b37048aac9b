"""What an import did: every row counted in exactly one of not music, private, duplicate, skip
and play (checked in that order), the catalog tracks it added, and the span of time it covered."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.timeutil import format_iso


@dataclass
class Report:
    entries: int = 0
    plays: int = 0
    skips: int = 0
    private_skipped: int = 0
    not_music: int = 0
    duplicates: int = 0
    tracks_added: int = 0
    first_played: datetime | None = None  # over the rows stored as plays or skips
    last_played: datetime | None = None

    def covers(self, moment: datetime) -> None:
        if self.first_played is None or moment < self.first_played:
            self.first_played = moment
        if self.last_played is None or moment > self.last_played:
            self.last_played = moment

    def add(self, other: Report) -> None:
        for name in ("entries", "plays", "skips", "private_skipped", "not_music", "duplicates", "tracks_added"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for moment in (other.first_played, other.last_played):
            if moment is not None:
                self.covers(moment)

    def as_json(self) -> dict[str, Any]:
        return {
            "entries": self.entries,
            "plays": self.plays,
            "skips": self.skips,
            "private_skipped": self.private_skipped,
            "not_music": self.not_music,
            "duplicates": self.duplicates,
            "tracks_added": self.tracks_added,
            "first_played": format_iso(self.first_played) if self.first_played else None,
            "last_played": format_iso(self.last_played) if self.last_played else None,
        }
