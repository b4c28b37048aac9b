"""The SDK's ``OAuthAuthorizationServerProvider`` over ``AuthorizationServer``: translation only.
The SDK's handlers parse the requests, authenticate clients and check PKCE and the redirect before
calling in; the domain decides everything else and its refusals become the SDK's error types."""

from __future__ import annotations

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    RegistrationError,
    TokenError,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl

from host.oauth.client_documents import ClientDocuments
from service.auth.oauth.client_documents import is_document_url
from service.auth.oauth.errors import OAuthError
from service.auth.oauth.records import IssuedTokens
from service.auth.oauth.server import AuthorizationServer
from tools.calls.identity import OAUTH_CLAIM


def _token(tokens: IssuedTokens) -> OAuthToken:
    return OAuthToken(
        access_token=tokens.access_token,
        expires_in=tokens.expires_in,
        scope=" ".join(tokens.scopes),
        refresh_token=tokens.refresh_token,
    )


def _token_error(exc: OAuthError) -> TokenError:
    code = exc.code if exc.code != "access_denied" else "invalid_grant"
    return TokenError(error=code, error_description=exc.description)


class DomainProvider:
    def __init__(self, server: AuthorizationServer, consent_url: str, documents: ClientDocuments | None = None) -> None:
        self.server = server
        self.consent_url = consent_url  # the memory page's consent view; the request id is appended
        self.documents = documents  # None: no origin is listed, a URL names no client

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if is_document_url(client_id):
            # Always the document (or its cached copy), never the kept record: a delisted origin
            # or a withdrawn document ends the client at once.
            if self.documents is None:
                return None
            try:
                return await self.documents.resolve(client_id)
            except OAuthError:
                return None
        record = self.server.client(client_id)
        return OAuthClientInformationFull.model_validate(record.metadata) if record is not None else None

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        # Every client is kept as a public one: a secret would have to be stored readable to be
        # compared, and PKCE already binds each code to the client that asked for it. A client
        # that asked for a secret still gets one from the SDK and sends it; it is not checked.
        kept = client_info.model_copy(
            update={"client_secret": None, "client_secret_expires_at": None, "token_endpoint_auth_method": "none"}
        )
        uris = [str(u) for u in client_info.redirect_uris or []]
        try:
            record = self.server.register(
                uris, client_info.client_name, kept.model_dump(mode="json"), client_info.client_id
            )
        except OAuthError as exc:
            raise RegistrationError("invalid_redirect_uri", exc.description) from None
        if record.client_id != client_info.client_id:
            raise RegistrationError("invalid_client_metadata", "client id collision; register again")

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        try:
            request = self.server.begin(
                client.client_id,
                str(params.redirect_uri),
                params.code_challenge,
                params.scopes,
                params.resource,
                params.state,
                params.redirect_uri_provided_explicitly,
            )
        except OAuthError as exc:
            code = exc.code if exc.code in ("invalid_request", "invalid_scope", "invalid_target") else "invalid_request"
            raise AuthorizeError(code, exc.description) from None
        return f"{self.consent_url}{request.request_id}"

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        try:
            self.server.check_replay(authorization_code)
        except OAuthError:
            return None  # the SDK answers invalid_grant
        record = self.server.load_code(client.client_id, authorization_code)
        if record is None:
            return None
        return AuthorizationCode(
            code=authorization_code,
            scopes=record.scopes,
            expires_at=record.expires_at,
            client_id=record.client_id,
            code_challenge=record.code_challenge,
            redirect_uri=AnyUrl(record.redirect_uri),
            redirect_uri_provided_explicitly=record.redirect_uri_explicit,
            resource=record.resource,
            subject=str(record.user_id),
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        try:
            return _token(self.server.redeem(client.client_id, authorization_code.code))
        except OAuthError as exc:
            raise _token_error(exc) from None

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        grant = self.server.check_refresh(client.client_id, refresh_token)
        if grant is None:
            return None
        return RefreshToken(
            token=refresh_token,
            client_id=grant.client_id,
            scopes=grant.scopes,
            expires_at=int(grant.refresh_expires_at),
            resource=grant.resource,
            subject=str(grant.user_id),
        )

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        try:
            return _token(self.server.refresh(client.client_id, refresh_token.token, scopes))
        except OAuthError as exc:
            raise _token_error(exc) from None

    async def load_access_token(self, token: str) -> AccessToken | None:
        grant = self.server.verify(token)
        if grant is None:
            return None
        return AccessToken(
            token=token,
            client_id=grant.client_id,
            scopes=list(grant.scopes),
            expires_at=int(grant.access_expires_at),
            resource=grant.resource,
            subject=str(grant.user_id),
            claims={OAUTH_CLAIM: True, "user_id": grant.user_id, "grant_id": grant.grant_id},
        )

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.server.revoke_token(token.token)

    async def exchange_identity_assertion(self, client: OAuthClientInformationFull, params: object) -> OAuthToken:
        raise TokenError("unsupported_grant_type", "only authorization_code and refresh_token are supported")
