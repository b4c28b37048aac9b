"""What the authorization server remembers. Clients and grants are kept in a file beside the token
file; consent requests and codes live a minute or ten in the server's memory only."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ClientRecord:
    client_id: str
    client_name: str | None
    redirect_uris: list[str]
    created_at: str
    # The registration as the client sent it and the server completed it (RFC 7591 §3.2.1).
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PendingRequest:
    """An authorization request waiting for the person's consent on the memory page."""

    request_id: str
    client_id: str
    redirect_uri: str
    redirect_uri_explicit: bool
    scopes: list[str]
    code_challenge: str
    resource: str
    state: str | None
    expires_at: float


@dataclass(frozen=True)
class CodeRecord:
    """An issued authorization code, bound to everything the exchange must repeat."""

    client_id: str
    redirect_uri: str
    redirect_uri_explicit: bool
    code_challenge: str
    resource: str
    user_id: int
    scopes: list[str]
    expires_at: float


@dataclass(frozen=True)
class Grant:
    """One consent's tokens: the current access and refresh token (hashes only) and the refresh
    tokens it replaced, so a replayed one is recognised and ends the grant."""

    grant_id: str
    client_id: str
    user_id: int
    scopes: list[str]
    resource: str
    created_at: str
    access_hash: str
    access_expires_at: float
    refresh_hash: str
    refresh_expires_at: float
    spent_refresh_hashes: list[str] = field(default_factory=list)
    last_used_at: str | None = None
    revoked_at: str | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


@dataclass(frozen=True)
class IssuedTokens:
    access_token: str
    refresh_token: str
    expires_in: int
    scopes: list[str]
