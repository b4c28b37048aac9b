"""The one typed settings object: ``MEMORY_…`` environment variables, overridden by CLI flags."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MEMORY_", extra="ignore")

    mongodb_uri: str | None = Field(None, description="Real MongoDB; unset selects the embedded store.")
    database_name: str = Field("taste_memory", description="MongoDB database name.")
    data_dir: Path = Field(Path("./data"), description="Embedded store directory.")
    journal: bool = Field(True, description="Embedded store: commit every call to SQLite (off = memory only).")

    transport: Literal["sse", "streamable-http", "stdio"] = Field("sse", description="sse, streamable-http or stdio.")
    host: str = Field("127.0.0.1", description="HTTP bind address.")
    port: int = Field(8765, ge=0, le=65535, description="HTTP port.")
    tool_names: Literal["plain", "dotted"] = Field(
        "plain", description="plain: memory_get_profile (Claude/OpenAI safe); dotted: memory.get_profile."
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field("INFO", description="Log level of the JSON log lines.")

    snapshot_every: int = Field(10, ge=1, description="Snapshot after this many mutations.")
    snapshot_min_event_share: float = Field(
        0.1,
        ge=0,
        description="Large playlists: snapshot only once the events since the last one carry this "
        "share of the playlist's length in track IDs, so snapshots do not dominate storage.",
    )
    bucket_max_track_ids: int = Field(
        100_000, ge=100, description="Seal a history bucket once it holds this many track IDs (keeps a document far below 16 MB)."
    )
    recent_events_cap: int = Field(50, ge=1, description="Events kept on the playlist document.")
    recent_snapshots_cap: int = Field(5, ge=1, description="Snapshot summaries kept on the playlist document.")
    profile_history_cap: int = Field(200, ge=1, description="Applied patches kept on the profile document.")
    max_playlist_tracks: int = Field(10_000, ge=1, description="Spotify's own limit per playlist.")
    result_budget_bytes: int = Field(
        400_000, ge=10_000, description="get_playlist leaves out older events past this answer size (<1 MiB)."
    )
    export_part_bytes: int = Field(
        400_000, ge=10_000, description="Budget of one export part; the envelope carries it twice (<1 MiB)."
    )
