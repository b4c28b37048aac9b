"""Sessions of the memory page: who signed in, held in process memory.

A browser gets a random session id in an HttpOnly cookie; the bearer token it signed in with is
checked once and never kept (not in the cookie, not here): a session remembers only the token's
id, and each request looks that id up again in the token file, so a revoked token ends its
sessions at their next request. A server restart signs everyone out, which is acceptable for a
page a person opens now and then. The table is bounded: only a valid token (or open mode on
loopback) creates a session, and beyond the cap the least recently used one goes.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from service.audit.origin import UI_PRINCIPAL_PREFIX
from service.auth.policy import OPEN, Principal
from service.auth.tokens import TokenStore

IDLE_SECONDS = 30 * 60
MAX_SESSIONS = 10_000
OPEN_TOKEN_ID = "open"  # the session of open mode names no token


@dataclass
class UiSession:
    session_id: str
    csrf: str
    token_id: str  # OPEN_TOKEN_ID in open mode
    created: float
    last_seen: float = field(default=0.0)


def ui_principal(token_id: str, base: Principal) -> Principal:
    """The principal of a page call: the token's rights under the name ``ui:<token id>``, so the
    audit trail tells page actions from an agent's calls (authorization reads role and user ids,
    never the name)."""
    return replace(base, name=f"{UI_PRINCIPAL_PREFIX}{token_id}")


class SessionStore:
    def __init__(
        self,
        tokens: TokenStore,
        open_mode: Callable[[], bool],
        absolute_seconds: float,
        idle_seconds: float = IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        limit: int = MAX_SESSIONS,
    ) -> None:
        self.tokens = tokens
        self.open_mode = open_mode  # evaluated per request: creating a token closes open mode
        self.absolute_seconds = absolute_seconds
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.limit = limit
        self._sessions: OrderedDict[str, UiSession] = OrderedDict()  # least recently used first

    def sign_in(self, token: str | None) -> UiSession | None:
        """A new session for a valid active token, or for anyone in open mode; None otherwise."""
        if self.open_mode():
            token_id = OPEN_TOKEN_ID
        else:
            record = self.tokens.verify(token) if isinstance(token, str) and token else None
            if record is None:
                return None
            token_id = record.token_id
        now = self.clock()
        # 256 random bits each: the id is the bearer of the session, the csrf token proves the page.
        session = UiSession(secrets.token_urlsafe(32), secrets.token_urlsafe(32), token_id, now, now)
        self._sessions[session.session_id] = session
        while len(self._sessions) > self.limit:
            self._sessions.popitem(last=False)
        return session

    def principal_of(self, session: UiSession) -> Principal | None:
        """The session's principal as of now: None once its token is revoked or gone, or open mode over."""
        if session.token_id == OPEN_TOKEN_ID:
            return ui_principal(OPEN_TOKEN_ID, OPEN) if self.open_mode() else None
        if self.open_mode():
            return None  # a token session in open mode: its token file emptied; sign in again
        record = self.tokens.records().get(session.token_id)
        if record is None or not record.active:
            return None
        base = Principal(
            name=record.token_id,
            role=record.role,
            user_ids=frozenset(record.user_ids),
            rate_limit_per_minute=record.rate_limit_per_minute,
        )
        return ui_principal(record.token_id, base)

    def lookup(self, session_id: str | None) -> tuple[UiSession, Principal] | None:
        """The live session named by the cookie and its principal; an expired or revoked one is dropped."""
        session = self._sessions.get(session_id or "")
        if session is None:
            return None
        now = self.clock()
        expired = now - session.created > self.absolute_seconds or now - session.last_seen > self.idle_seconds
        principal = None if expired else self.principal_of(session)
        if principal is None:
            self.drop(session.session_id)
            return None
        session.last_seen = now
        self._sessions.move_to_end(session.session_id)
        return session, principal

    def drop(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)

    def __len__(self) -> int:
        return len(self._sessions)
