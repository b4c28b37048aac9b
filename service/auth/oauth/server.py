"""The authorization server's flows, one method each: register a client, open a consent request,
approve or deny it, exchange a code (PKCE S256), refresh, verify an access token, revoke, and a
person's connected clients. Every token is audience-bound to this server's MCP resource."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from service.auth.oauth.checks import pkce_matches, redirect_registered
from service.auth.oauth.consent import ConsentDesk
from service.auth.oauth.errors import OAuthError
from service.auth.oauth.grants import GrantBook
from service.auth.oauth.records import ClientRecord, CodeRecord, Grant, IssuedTokens, PendingRequest
from service.auth.oauth.responses import authorization_response
from service.auth.oauth.scopes import SUPPORTED, requested
from service.auth.oauth.store import OAuthStore
from service.timeutil import format_iso, utc_now


@dataclass(frozen=True)
class Audience:
    """This server's MCP resource, and the other spellings a client may send for it (the origin)."""

    resource: str
    aliases: tuple[str, ...] = ()

    def canonical(self, asked: str | None) -> str:
        if asked is None or asked.rstrip("/") in (self.resource.rstrip("/"), *(a.rstrip("/") for a in self.aliases)):
            return self.resource  # RFC 8707: absent means this server, the only resource it serves
        raise OAuthError("invalid_target", f"this server issues tokens for {self.resource} only")


class AuthorizationServer:
    def __init__(
        self,
        store: OAuthStore,
        audience: Audience,
        access_ttl_s: float = 3600,
        refresh_ttl_s: float = 30 * 86400,
        clock: Callable[[], float] = time.time,
        issuer: str | None = None,
    ) -> None:
        self.store = store
        self.audience = audience
        self.issuer = issuer  # named in every authorization response (RFC 9207) when set
        self.desk = ConsentDesk(clock)
        self.grants = GrantBook(store, clock, access_ttl_s, refresh_ttl_s)

    # --- clients ---------------------------------------------------------------------------

    def register(
        self, redirect_uris: list[str], client_name: str | None, metadata: dict[str, Any], client_id: str | None = None
    ) -> ClientRecord:
        """A registered client under the id given (the SDK's endpoint draws one) or a new one."""
        if not redirect_uris:
            raise OAuthError("invalid_request", "a client registers at least one redirect URI")
        with self.store.changing() as state:
            client_id = client_id or secrets.token_urlsafe(12)
            while client_id in state.clients:
                client_id = secrets.token_urlsafe(12)
            record = ClientRecord(
                client_id,
                client_name,
                list(redirect_uris),
                format_iso(utc_now()) or "",
                {**metadata, "client_id": client_id},
            )
            state.clients[client_id] = record
        return record

    def client(self, client_id: str) -> ClientRecord | None:
        return self.store.state().clients.get(client_id)

    def remember_client(self, record: ClientRecord) -> ClientRecord:
        """A client that described itself (a metadata document), kept like a registered one so the
        consent and the connected clients can name it; written only when its description changed."""
        known = self.client(record.client_id)
        if known is not None and (known.client_name, known.redirect_uris, known.metadata) == (
            record.client_name,
            record.redirect_uris,
            record.metadata,
        ):
            return known
        with self.store.changing() as state:
            first = state.clients.get(record.client_id)
            kept = replace(record, created_at=first.created_at) if first is not None else record
            state.clients[record.client_id] = kept
        return kept

    # --- consent ---------------------------------------------------------------------------

    def begin(
        self,
        client_id: str,
        redirect_uri: str,
        code_challenge: str,
        scopes: list[str] | None,
        resource: str | None,
        state: str | None,
        redirect_uri_explicit: bool = True,
    ) -> PendingRequest:
        """A consent request; refused before the person sees anything when it could never succeed."""
        client = self.client(client_id)
        if client is None:
            raise OAuthError("invalid_client", "unknown client_id")
        if not redirect_registered(client.redirect_uris, redirect_uri):
            raise OAuthError("invalid_request", "redirect_uri is not registered for this client")
        if not code_challenge:
            raise OAuthError("invalid_request", "PKCE is required: send code_challenge with method S256")
        request = PendingRequest(
            "", client_id, redirect_uri, redirect_uri_explicit, requested(scopes), code_challenge,
            self.audience.canonical(resource), state, 0.0,
        )  # fmt: skip
        return self.desk.open(request)

    def pending(self, request_id: str) -> PendingRequest | None:
        return self.desk.pending(request_id)

    def approve(self, request_id: str, user_id: int) -> tuple[PendingRequest, str]:
        """The request answered for this person: the request and the code to send back."""
        request = self.desk.close(request_id)
        return request, self.desk.issue_code(request, user_id)

    def deny(self, request_id: str) -> PendingRequest:
        return self.desk.close(request_id)

    def response_to(self, request: PendingRequest, **params: str) -> str:
        """Where the browser goes back to the client: its redirect URI with ``params``, the state
        it sent and this server's issuer."""
        return authorization_response(request, self.issuer, **params)

    # --- tokens ----------------------------------------------------------------------------

    def load_code(self, client_id: str, code: str) -> CodeRecord | None:
        return self.desk.peek(client_id, code)

    def exchange(self, client_id: str, code: str, verifier: str | None, redirect_uri: str | None) -> IssuedTokens:
        """The whole code exchange: replay, PKCE S256 and redirect checked here, then the grant."""
        self.check_replay(code)
        record = self.desk.peek(client_id, code)
        if record is not None and not pkce_matches(record.code_challenge, verifier):
            self.desk.take(client_id, code)  # a wrong verifier spends the code: no guessing twice
            raise OAuthError("invalid_grant", "code_verifier does not match the code_challenge")
        redirect_checked = record is not None and (redirect_uri is not None or record.redirect_uri_explicit)
        if record is not None and redirect_checked and redirect_uri != record.redirect_uri:
            self.desk.take(client_id, code)
            raise OAuthError("invalid_grant", "redirect_uri differs from the authorization request's")
        return self.redeem(client_id, code)

    def check_replay(self, code: str) -> None:
        """A spent code presented again may have been stolen: end what its first use produced."""
        if self.desk.was_spent(code):
            grant_id = self.desk.spent_grant(code)
            if grant_id is not None:
                self.grants.revoke([grant_id])
            raise OAuthError("invalid_grant", "the authorization code was already used")

    def redeem(self, client_id: str, code: str) -> IssuedTokens:
        """Spend a code whose verifier and redirect were checked (here, or by the SDK's token
        endpoint before it calls the provider) and open its grant."""
        record = self.desk.take(client_id, code)
        grant_id, tokens = self.grants.issue(record)
        self.desk.bind(code, grant_id)
        return tokens

    def check_refresh(self, client_id: str, refresh_token: str) -> Grant | None:
        """The grant of a live refresh token, or None; a replaced one presented again ends its grant."""
        return self.grants.refreshable(client_id, refresh_token)

    def refresh(self, client_id: str, refresh_token: str, scopes: list[str] | None = None) -> IssuedTokens:
        return self.grants.refresh(client_id, refresh_token, scopes)

    def verify(self, access_token: str) -> Grant | None:
        """The live grant of an access token for this server's resource, or None."""
        grant = self.grants.verify(access_token)
        return grant if grant is not None and grant.resource == self.audience.resource else None

    def revoke_token(self, token: str, client_id: str | None = None) -> None:
        """RFC 7009: either token of a grant ends the grant (only its own client's, when named);
        anything else is quietly accepted."""
        grant = self.grants.grant_of(token)
        if grant is not None and client_id in (None, grant.client_id):
            self.grants.revoke([grant.grant_id])

    # --- a person's connected clients -------------------------------------------------------

    def connected_clients(self, user_id: int) -> list[dict[str, Any]]:
        state = self.store.state()
        rows: dict[str, dict[str, Any]] = {}
        for grant in state.grants.values():
            if grant.user_id != user_id or not grant.active:
                continue
            client = state.clients.get(grant.client_id)
            row = rows.setdefault(
                grant.client_id,
                {"client_id": grant.client_id, "client_name": client.client_name if client else None,
                 "scopes": [], "connected_at": grant.created_at, "last_used_at": None},
            )  # fmt: skip
            row["scopes"] = [s for s in SUPPORTED if s in row["scopes"] or s in grant.scopes]  # read, write, control
            row["connected_at"] = min(row["connected_at"], grant.created_at)
            if grant.last_used_at and (row["last_used_at"] is None or grant.last_used_at > row["last_used_at"]):
                row["last_used_at"] = grant.last_used_at
        return sorted(rows.values(), key=lambda r: r["connected_at"])

    def held_scopes(self, user_id: int, client_id: str) -> list[str]:
        """What this person already let this client do (its live grants): a new request shows
        only the rest as new, which is what incremental consent asks the person about."""
        held = {
            scope
            for g in self.store.state().grants.values()
            if g.user_id == user_id and g.client_id == client_id and g.active
            for scope in g.scopes
        }
        return [s for s in SUPPORTED if s in held]

    def revoke_client(self, user_id: int, client_id: str) -> int:
        """End every grant this person gave this client; a client of someone else is unknown (KeyError)."""
        grant_ids = [
            g.grant_id
            for g in self.store.state().grants.values()
            if g.user_id == user_id and g.client_id == client_id and g.active
        ]
        if not grant_ids:
            raise KeyError(client_id)
        return self.grants.revoke(grant_ids)
