"""The one typed settings object: ``MEMORY_…`` environment variables, overridden by CLI flags."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, get_args
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


Toolset = Literal[
    "core", "everyday", "ledger", "tracks", "memories", "control", "ops"
]  # tools/specs/catalog.py TOOLSETS
TOOLSET_NAMES: tuple[Toolset, ...] = get_args(Toolset)
DEFAULT_TOOLSETS: tuple[Toolset, ...] = ("core", "everyday")  # the PRD's tools and what most sessions need


def _split(value: object) -> object:
    """A comma-separated environment value (or flag) as its list."""
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return value


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
    toolsets: Annotated[list[Toolset], NoDecode] = Field(
        list(DEFAULT_TOOLSETS),
        description="Toolsets a session starts with, comma-separated: core (the PRD tools), everyday (context, "
        "follow-ups, memories, track lookup), ledger, tracks, memories, control, ops, or 'all'. Default core,everyday; a "
        "session lists more with memory_enable_toolsets. Every listed tool costs the model context.",
    )
    stdio_user_ids: Annotated[list[Annotated[int, Field(ge=1)]], NoDecode] = Field(
        [],
        description="stdio: the users this server acts for, comma-separated (e.g. '1' or '1,2'): calls for "
        "any other user are FORBIDDEN, operator tools too. Unset: the machine's own user, any user (whoever "
        "can start the process can read the data files anyway).",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        "INFO", description="Log level of the JSON log lines."
    )

    token_file: Path | None = Field(
        None,
        description="Bearer tokens (hashed), managed by 'memory-service token'; default DATA_DIR/tokens.json. "
        "Once it holds a token, every call needs one.",
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        [],
        description="Extra Host header values accepted on the MCP endpoints, comma-separated (e.g. "
        "'memory.example.com,memory.example.com:*'); loopback names are always accepted (DNS-rebinding guard).",
    )
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        [],
        description="Extra Origin header values accepted, comma-separated (e.g. 'https://app.example.com'); "
        "loopback origins are always accepted; requests without Origin are not browser requests and pass.",
    )
    max_request_bytes: int = Field(
        2 * 1024 * 1024,
        ge=1024,
        description="Largest accepted request body (HTTP 413 beyond); a 10,000-track "
        "playlist of 80-character ids is about 0.9 MB.",
    )
    max_history_upload_bytes: int = Field(
        512 * 1024 * 1024,
        ge=1024,
        description="Memory page: largest listening-history upload (HTTP 413 beyond), streamed to a "
        "temporary file; ten years of Spotify's extended history is about 150 MB of JSON.",
    )
    rate_limit_per_minute: int = Field(1200, ge=0, description="Calls per minute per token (0 = no limit).")
    rate_limit_burst: int = Field(
        120, ge=1, description="Calls a token may make at once before the per-minute rate applies."
    )

    snapshot_every: int = Field(10, ge=1, description="Snapshot after this many mutations.")
    snapshot_min_event_share: float = Field(
        0.1,
        ge=0,
        description="Large playlists: snapshot only once the events since the last one carry this "
        "share of the playlist's length in track IDs, so snapshots do not dominate storage.",
    )
    snapshot_replay_budget: int = Field(
        500_000,
        ge=1000,
        description="Large playlists: snapshot once the events since the last one times "
        "its length reach this many track-ID steps, bounding what a reconstruction replays (5,000 tracks: "
        "every 100 events).",
    )
    bucket_max_track_ids: int = Field(
        100_000,
        ge=100,
        description="Seal a history bucket once it holds this many track IDs (keeps a document far below 16 MB).",
    )
    recent_events_cap: int = Field(50, ge=1, description="Events kept on the playlist document.")
    recent_snapshots_cap: int = Field(5, ge=1, description="Snapshot summaries kept on the playlist document.")
    profile_history_cap: int = Field(200, ge=1, description="Applied patches kept on the profile document.")
    max_playlist_tracks: int = Field(10_000, ge=1, description="Spotify's own limit per playlist.")
    max_profile_bytes: int = Field(
        65_536,
        ge=1024,
        description="Largest taste profile (and patch, with its reason) as JSON; every get_profile returns it whole.",
    )
    max_payload_bytes: int = Field(
        16_384, ge=1024, description="Largest preference-event payload and playlist seed_context as JSON."
    )
    max_intent_tags_bytes: int = Field(
        1024,
        ge=64,
        description="Largest intent_tags list of a playlist as JSON; every listing and search hit repeats it.",
    )
    result_budget_bytes: int = Field(
        400_000, ge=10_000, description="get_playlist leaves out older events past this answer size (<1 MiB)."
    )
    max_memory_metadata_bytes: int = Field(
        4096,
        ge=256,
        description="Largest metadata of one typed memory as JSON (memory_add); every memory_query row carries it.",
    )
    aging_interval_s: float = Field(
        86_400,
        ge=0,
        description="Seconds between two agings of the typed memories in the server (0 = never; "
        "'memory-service age' runs one by hand).",
    )
    semantic_search: Literal["on", "off"] = Field(
        "on",
        description="Search by meaning as well as by words (memory_search, memory_query): static embeddings "
        "bundled with the wordllama package, offline, about 60 MB of memory; off = lexical search only.",
    )
    search_warmup: bool = Field(
        True,
        description="Embedded store: build every user's search index in the background after start-up "
        "(off = only on each user's first search).",
    )
    audit_retention_days: int = Field(
        0,
        ge=0,
        description="Delete audit entries older than this many days (0 = keep forever); a deleted "
        "user's tombstone is always kept. MongoDB: a TTL index; embedded: an hourly purge.",
    )
    ui: Literal["on", "off"] = Field(
        "on", description="The memory page at /ui/ on the HTTP transports (sign-in with a token); off = /ui is 404."
    )
    ui_session_minutes: int = Field(
        720,
        ge=1,
        le=7 * 24 * 60,
        description="Memory page: a session ends this many minutes after sign-in "
        "(and after 30 minutes without a request).",
    )

    oauth: Literal["auto", "on", "off"] = Field(
        "auto",
        description="OAuth 2.1 for remote MCP clients (an authorization server beside the bearer tokens; a "
        "call without a token is answered 401 with WWW-Authenticate, which starts a client's discovery). "
        "auto: on whenever tokens are required (a bind beyond loopback with a public URL, or a token file "
        "holding a token at start), off in the open loopback mode; on needs a public URL beyond loopback; "
        "off: a call without a token is answered in band (UNAUTHORIZED), as before.",
    )
    public_url: str | None = Field(
        None,
        description="The address clients reach this server at (e.g. 'https://memory.example.com'): the OAuth "
        "issuer and resource URLs come from it, never from the Host header. Unset on loopback: "
        "http://127.0.0.1:PORT.",
    )
    oauth_access_token_minutes: int = Field(
        60, ge=1, le=24 * 60, description="OAuth: an access token's lifetime in minutes (a refresh renews it)."
    )
    oauth_refresh_token_days: int = Field(
        30, ge=1, le=365, description="OAuth: a refresh token's lifetime in days (each refresh replaces it)."
    )
    oauth_client_metadata_origins: Annotated[list[str], NoDecode] = Field(
        [],
        description="OAuth: origins whose Client ID Metadata Documents are fetched, comma-separated (e.g. "
        "'https://claude.ai,https://vscode.dev'): a client whose client_id is an https URL there needs no "
        "registration. Empty: only registered clients (http is accepted on loopback only, for tests).",
    )

    @field_validator("public_url", mode="before")
    @classmethod
    def _public_url(cls, value: object) -> object:
        if not isinstance(value, str) or not value.strip():
            return None
        url = value.strip().rstrip("/")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
            raise ValueError("public URL must look like https://memory.example.com (no query, no fragment)")
        if parts.scheme == "http" and parts.hostname not in (*LOOPBACK_HOSTS, "[::1]"):
            # RFC 8414 and OAuth 2.1: an issuer beyond loopback must be https (a proxy terminates TLS).
            raise ValueError("public URL must be https beyond loopback")
        return url

    @field_validator("allowed_hosts", "allowed_origins", "stdio_user_ids", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        return _split(value)

    @field_validator("oauth_client_metadata_origins", mode="before")
    @classmethod
    def _client_metadata_origins(cls, value: object) -> object:
        value = _split(value)
        if not isinstance(value, list):
            return value
        origins = []
        for origin in value:
            parts = urlsplit(str(origin).strip().lower())
            if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/"):
                raise ValueError(f"{origin!r} is not an origin like https://client.example.com")
            if parts.scheme == "http" and parts.hostname not in (*LOOPBACK_HOSTS, "[::1]"):
                raise ValueError(f"{origin!r}: a client metadata origin must be https beyond loopback")
            origins.append(f"{parts.scheme}://{parts.netloc}")
        return origins

    @field_validator("toolsets", mode="before")
    @classmethod
    def _toolset_names(cls, value: object) -> object:
        value = _split(value)
        if isinstance(value, list) and "all" in value:
            return list(TOOLSET_NAMES)
        if isinstance(value, list) and not value:
            raise ValueError("name at least one toolset (or 'all')")
        return value

    @property
    def tokens_path(self) -> Path:
        return self.token_file or self.data_dir / "tokens.json"

    @property
    def loopback(self) -> bool:
        return self.host in LOOPBACK_HOSTS

    @property
    def base_url(self) -> str | None:
        """Where clients reach this server: the public URL, or on loopback the bound port."""
        if self.public_url:
            return self.public_url
        return f"http://127.0.0.1:{self.port}" if self.loopback else None

    def oauth_enabled(self, tokens_configured: bool) -> bool:
        """Whether the authorization server runs: ``on``/``off`` as said; ``auto`` whenever tokens are
        required, i.e. not the open loopback mode (decided once, at start)."""
        if self.transport == "stdio" or self.oauth == "off" or self.base_url is None:
            # Beyond loopback without a public URL there is no issuer to name: auto stays off
            # (``on`` is refused when the settings are read).
            return False
        return self.oauth == "on" or not self.loopback or tokens_configured

    @model_validator(mode="after")
    def _oauth_needs_an_issuer(self) -> Settings:
        if self.oauth == "on" and self.transport != "stdio" and self.base_url is None:
            raise ValueError("MEMORY_OAUTH=on beyond loopback needs MEMORY_PUBLIC_URL (the issuer clients reach)")
        return self

    export_part_bytes: int = Field(
        400_000, ge=10_000, description="Budget of one export part; the envelope carries it twice (<1 MiB)."
    )
