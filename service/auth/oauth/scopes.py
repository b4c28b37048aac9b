"""What a grant lets a client do. Three scopes, no more: an operator role is never issued by
consent (operators use the CLI's tokens)."""

from __future__ import annotations

from service.auth.oauth.errors import OAuthError

READ = "memory:read"
WRITE = "memory:write"
CONTROL = "memory:control"  # switches, forget, delete, import: asked for explicitly, never by default
SUPPORTED = (READ, WRITE, CONTROL)
# A client that names no scope gets what an assistant needs day to day; control must be asked for.
DEFAULT = (READ, WRITE)


def requested(scopes: list[str] | None) -> list[str]:
    """The scopes of a request in a stable order; an unknown scope refuses the whole request."""
    if not scopes:
        return list(DEFAULT)
    unknown = sorted(set(scopes) - set(SUPPORTED))
    if unknown:
        raise OAuthError("invalid_scope", f"unknown scope {unknown[0]!r}; this server grants {' '.join(SUPPORTED)}")
    return [s for s in SUPPORTED if s in scopes]


def narrowed(granted: list[str], asked: list[str] | None) -> list[str]:
    """A refresh may ask for fewer scopes than granted, never more (RFC 6749 §6)."""
    if not asked:
        return list(granted)
    beyond = sorted(set(asked) - set(granted))
    if beyond:
        raise OAuthError("invalid_scope", f"scope {beyond[0]!r} was not granted; authorize again to add it")
    return [s for s in granted if s in asked]
