"""Access and rotating refresh tokens. A token is ``tma_<grant>_<secret>`` (access) or
``tmr_<grant>_<secret>`` (refresh): the grant id finds the record, only hashes are stored. A
refresh replaces both tokens; presenting a replaced refresh token again means it leaked, and the
whole grant ends (OAuth 2.1 §4.3.1)."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime

from service.auth.oauth.errors import OAuthError
from service.auth.oauth.records import CodeRecord, Grant, IssuedTokens
from service.auth.oauth.scopes import narrowed
from service.auth.oauth.store import OAuthStore
from service.auth.tokens import hash_token
from service.timeutil import format_iso

ACCESS, REFRESH = "tma", "tmr"
SPENT_KEPT = 50  # replaced refresh tokens remembered per grant, for reuse detection
LAST_USE_EVERY_S = 60.0  # last use is written at most this often: a call must not rewrite the file


def parse(token: str, kind: str) -> str | None:
    parts = token.split("_", 2)
    if len(parts) != 3 or parts[0] != kind or not parts[1] or not parts[2]:
        return None
    return parts[1]


def _mint(kind: str, grant_id: str) -> str:
    return f"{kind}_{grant_id}_{secrets.token_urlsafe(32)}"


class GrantBook:
    def __init__(
        self, store: OAuthStore, clock: Callable[[], float], access_ttl_s: float, refresh_ttl_s: float
    ) -> None:
        self.store = store
        self.clock = clock
        self.access_ttl_s = access_ttl_s
        self.refresh_ttl_s = refresh_ttl_s

    def _iso(self, moment: float) -> str:
        return format_iso(datetime.fromtimestamp(moment, UTC)) or ""

    def _renewed(self, grant: Grant, scopes: list[str]) -> tuple[Grant, IssuedTokens]:
        now = self.clock()
        access, refresh = _mint(ACCESS, grant.grant_id), _mint(REFRESH, grant.grant_id)
        renewed = replace(
            grant,
            scopes=scopes,
            access_hash=hash_token(access),
            access_expires_at=now + self.access_ttl_s,
            refresh_hash=hash_token(refresh),
            refresh_expires_at=now + self.refresh_ttl_s,
        )
        return renewed, IssuedTokens(access, refresh, int(self.access_ttl_s), list(scopes))

    def issue(self, code: CodeRecord) -> tuple[str, IssuedTokens]:
        """A new grant for an exchanged code: its id and the first pair of tokens."""
        with self.store.changing() as state:
            grant_id = secrets.token_hex(8)
            while grant_id in state.grants:
                grant_id = secrets.token_hex(8)
            blank = Grant(
                grant_id, code.client_id, code.user_id, list(code.scopes), code.resource,
                self._iso(self.clock()), "", 0.0, "", 0.0,
            )  # fmt: skip
            grant, tokens = self._renewed(blank, list(code.scopes))
            state.grants[grant_id] = grant
        return grant_id, tokens

    def refresh(self, client_id: str, refresh_token: str, scopes: list[str] | None) -> IssuedTokens:
        digest = hash_token(refresh_token)
        refusal: OAuthError | None = None
        tokens: IssuedTokens | None = None
        # Refusals are raised after the block: a replay's revocation must be written, not rolled back.
        with self.store.changing() as state:
            grant = state.grants.get(parse(refresh_token, REFRESH) or "")
            if grant is None or grant.client_id != client_id or not grant.active:
                refusal = OAuthError("invalid_grant", "the refresh token is unknown or revoked")
            elif digest in grant.spent_refresh_hashes:
                state.grants[grant.grant_id] = replace(grant, revoked_at=self._iso(self.clock()))
                refusal = OAuthError("invalid_grant", "this refresh token was already used: the grant is revoked")
            elif not hmac.compare_digest(grant.refresh_hash, digest) or grant.refresh_expires_at <= self.clock():
                refusal = OAuthError("invalid_grant", "the refresh token is unknown or expired")
            else:
                try:
                    allowed = narrowed(grant.scopes, scopes)
                except OAuthError as exc:
                    refusal = exc
                else:
                    spent = [*grant.spent_refresh_hashes, grant.refresh_hash][-SPENT_KEPT:]
                    renewed, tokens = self._renewed(replace(grant, spent_refresh_hashes=spent), allowed)
                    state.grants[grant.grant_id] = renewed
        if refusal is not None or tokens is None:
            raise refusal or OAuthError("invalid_grant", "the refresh token is unknown")
        return tokens

    def refreshable(self, client_id: str, refresh_token: str) -> Grant | None:
        """The grant of a live refresh token of this client; a replaced one ends its grant."""
        grant = self.store.state().grants.get(parse(refresh_token, REFRESH) or "")
        if grant is None or grant.client_id != client_id or not grant.active:
            return None
        digest = hash_token(refresh_token)
        if digest in grant.spent_refresh_hashes:
            self.revoke([grant.grant_id])
            return None
        if grant.refresh_expires_at <= self.clock():
            return None
        return grant if hmac.compare_digest(grant.refresh_hash, digest) else None

    def verify(self, access_token: str) -> Grant | None:
        """The grant of a live access token, its last use noted; None for anything else."""
        grant = self.store.state().grants.get(parse(access_token, ACCESS) or "")
        if grant is None or not grant.active or grant.access_expires_at <= self.clock():
            return None
        if not hmac.compare_digest(grant.access_hash, hash_token(access_token)):
            return None
        self._note_use(grant)
        return grant

    def _note_use(self, grant: Grant) -> None:
        now = self.clock()
        last = grant.last_used_at
        if (
            last is not None
            and now - datetime.fromisoformat(last.replace("Z", "+00:00")).timestamp() < LAST_USE_EVERY_S
        ):
            return
        with self.store.changing() as state:
            current = state.grants.get(grant.grant_id)
            if current is not None:
                state.grants[grant.grant_id] = replace(current, last_used_at=self._iso(now))

    def revoke(self, grant_ids: list[str]) -> int:
        """End these grants (both tokens of each); already revoked or unknown ones are left alone."""
        ended = 0
        with self.store.changing() as state:
            for grant_id in grant_ids:
                grant = state.grants.get(grant_id)
                if grant is not None and grant.active:
                    state.grants[grant_id] = replace(grant, revoked_at=self._iso(self.clock()))
                    ended += 1
        return ended

    def grant_of(self, token: str) -> Grant | None:
        """The grant an access or refresh token names, if the token is its current one."""
        digest = hash_token(token)
        for kind in (ACCESS, REFRESH):
            grant = self.store.state().grants.get(parse(token, kind) or "")
            if grant is not None and digest in (grant.access_hash, grant.refresh_hash):
                return grant
        return None
