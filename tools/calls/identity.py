"""Who is calling, from what the transport verified: the MCP SDK's bearer-token hooks on HTTP,
the machine's own user on stdio and in process.

HTTP requests pass the SDK's ``BearerAuthBackend`` (installed on the host app by
``host/app.py``) with ``StoreTokenVerifier``; the verified token sits on the request that
carried the call (for SSE, the POST of that message), so a token revoked mid-session stops
working at its next call. The identity never comes from tool arguments.
"""

from __future__ import annotations

from typing import Any, Protocol

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from service.auth.policy import LOCAL, OPEN, Principal
from service.auth.tokens import TokenStore


class StoreTokenVerifier:
    """The SDK's ``TokenVerifier`` protocol over the token file."""

    def __init__(self, store: TokenStore) -> None:
        self.store = store

    async def verify_token(self, token: str) -> AccessToken | None:
        # A revoked token still names its principal here, so the SDK's SSE session binding (a
        # session answers only the principal that opened it) lets its next message through to
        # be answered UNAUTHORIZED, instead of an HTTP 404 the client never turns into an answer.
        record = self.store.lookup(token)
        if record is None:
            return None
        return AccessToken(
            token=token,
            client_id=record.token_id,
            scopes=[record.role],
            claims={
                "user_ids": list(record.user_ids),
                "active": record.active,
                "rate_limit_per_minute": record.rate_limit_per_minute,
            },
        )


OAUTH_CLAIM = "oauth"  # on an AccessToken verified from an OAuth grant rather than the token file


def oauth_principal(token: AccessToken) -> Principal:
    """An OAuth grant acts for its one user, within its scopes, never as an operator; the client
    names it in the audit trail and holds its own rate limit."""
    return Principal(
        name=f"oauth:{token.client_id}",
        role="user",
        user_ids=frozenset([int((token.claims or {})["user_id"])]),
        scopes=frozenset(token.scopes),
    )


class CallerIdentity(Protocol):
    def resolve(self, context: Any) -> Principal | None:
        """The verified principal, or None when the call must be refused as unauthenticated."""


class TrustedLocal:
    """stdio and in-process clients: whoever can start the process can read the data files."""

    def resolve(self, context: Any) -> Principal | None:
        return LOCAL


class StdioIdentity:
    """stdio: the users named by MEMORY_STDIO_USER_IDS (a user principal, ``stdio``), or, when
    none are named, the machine's own user."""

    def __init__(self, user_ids: list[int]) -> None:
        self.principal = Principal(name="stdio", role="user", user_ids=frozenset(user_ids)) if user_ids else LOCAL

    def resolve(self, context: Any) -> Principal | None:
        return self.principal


class BearerTokens:
    """HTTP transports: open while no token exists, on a loopback bind only (``open_when_empty``),
    otherwise the token the SDK's middleware verified for this request, or nobody.

    A server listening beyond loopback is never open: it starts only once a token exists, and a
    token file that later disappears or empties must not turn authentication off for the network.
    """

    def __init__(self, store: TokenStore, open_when_empty: bool = True) -> None:
        self.store = store
        self.open_when_empty = open_when_empty

    def resolve(self, context: Any) -> Principal | None:
        return self.of_scope(_request_scope(context))

    def of_scope(self, scope: Any) -> Principal | None:
        """The principal of one HTTP request (its ASGI scope, after the bearer middleware)."""
        if self.open_when_empty and not self.store.configured():
            return OPEN
        user = scope.get("user")
        if not isinstance(user, AuthenticatedUser):
            return None
        token = user.access_token
        claims = token.claims or {}
        if claims.get(OAUTH_CLAIM):
            return oauth_principal(token)
        if not claims.get("active"):
            return None
        return Principal(
            name=token.client_id,
            role=token.scopes[0],
            user_ids=frozenset(claims.get("user_ids", [])),
            rate_limit_per_minute=claims.get("rate_limit_per_minute"),
        )


def _request_scope(context: Any) -> dict[str, Any]:
    try:
        request = context.request_context.request
    except (AttributeError, ValueError):  # no request in flight: nothing was verified
        return {}
    return getattr(request, "scope", None) or {}
