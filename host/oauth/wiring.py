"""The authorization server on the host app: its routes (RFC 8414 and RFC 9728 metadata, DCR,
authorize, token, revoke), the verifier that reads both kinds of bearer token, and the 401 that
starts an MCP client's discovery. URLs come from the settings, never from the Host header."""

from __future__ import annotations

from dataclasses import dataclass

from mcp.server.auth.handlers.metadata import MetadataHandler, ProtectedResourceMetadataHandler
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.routes import (
    AUTHORIZATION_PATH,
    REVOCATION_PATH,
    cors_middleware,
    create_auth_routes,
    create_protected_resource_routes,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.routing import BaseRoute, Route

from host.oauth.authorize import DocumentClients, IssuerOnRedirects, server_metadata
from host.oauth.client_documents import ClientDocuments
from host.oauth.provider import DomainProvider
from host.oauth.revoke import revocation_endpoint
from service.auth.oauth.grants import ACCESS
from service.auth.oauth.scopes import SUPPORTED
from service.auth.oauth.server import Audience, AuthorizationServer
from service.auth.oauth.store import OAuthStore
from service.settings import Settings
from tools.calls.identity import StoreTokenVerifier

PRM_PATH = "/.well-known/oauth-protected-resource"
SERVER_METADATA_PATH = "/.well-known/oauth-authorization-server"
CONSENT_VIEW = "/ui/#/consent/"


@dataclass(frozen=True)
class OAuthHost:
    server: AuthorizationServer
    provider: DomainProvider
    issuer: str
    resource: str

    @property
    def resource_metadata_url(self) -> str:
        return self.issuer + PRM_PATH


def oauth_host(settings: Settings, base_url: str) -> OAuthHost:
    # The MCP endpoint of the transport served is the resource; its origin is accepted as a
    # spelling of it (some clients send the server's origin as the resource indicator).
    resource = base_url + ("/mcp" if settings.transport == "streamable-http" else "/sse")
    audience = Audience(resource, (base_url,))
    server = AuthorizationServer(
        OAuthStore(settings.tokens_path.with_name("oauth.json")),
        audience,
        access_ttl_s=settings.oauth_access_token_minutes * 60,
        refresh_ttl_s=settings.oauth_refresh_token_days * 86400,
        issuer=base_url,
    )
    origins = settings.oauth_client_metadata_origins
    documents = ClientDocuments(server, origins) if origins else None
    return OAuthHost(server, DomainProvider(server, base_url + CONSENT_VIEW, documents), base_url, resource)


def _url(url: str) -> AnyHttpUrl:
    # The SDK's own settings keep a path-less URL without a trailing slash: RFC 8414 compares
    # issuers as exact strings, so "https://memory.example.com/" would not be the issuer.
    return AuthSettings(issuer_url=url, resource_server_url=None).issuer_url  # type: ignore[arg-type]


def oauth_routes(host: OAuthHost) -> list[BaseRoute]:
    issuer = _url(host.issuer)
    # Registration names no scope limit: what a grant may do is decided at consent.
    registration = ClientRegistrationOptions(enabled=True, valid_scopes=list(SUPPORTED), default_scopes=list(SUPPORTED))
    sdk_routes = create_auth_routes(
        host.provider,
        issuer,
        client_registration_options=registration,
        revocation_options=RevocationOptions(enabled=True),
    )
    documents = host.provider.documents
    routes: list[BaseRoute] = []
    for route in sdk_routes:
        if route.path == AUTHORIZATION_PATH:
            answering = IssuerOnRedirects(route.app, host.issuer, host.provider.consent_url)
            routes.append(Route(route.path, DocumentClients(answering, documents), methods=["GET", "POST"]))
        elif route.path == SERVER_METADATA_PATH:
            handler = MetadataHandler(server_metadata(issuer, registration, documents)).handle
            routes.append(Route(route.path, cors_middleware(handler, ["GET", "OPTIONS"]), methods=["GET", "OPTIONS"]))
        elif route.path != REVOCATION_PATH:
            routes.append(route)
    routes.append(
        Route(
            REVOCATION_PATH,
            endpoint=cors_middleware(revocation_endpoint(host.server), ["POST", "OPTIONS"]),
            methods=["POST", "OPTIONS"],
        )
    )
    resource_routes = create_protected_resource_routes(_url(host.resource), [issuer], list(SUPPORTED), "Taste Memory")
    routes += resource_routes
    # The 401 names the document at the root as well (RFC 9728 §3.1 puts it under the resource's
    # path): both answer the same.
    metadata = ProtectedResourceMetadata(
        resource=_url(host.resource),
        authorization_servers=[issuer],
        scopes_supported=list(SUPPORTED),
        resource_name="Taste Memory",
    )
    routes.append(
        Route(
            PRM_PATH,
            endpoint=cors_middleware(ProtectedResourceMetadataHandler(metadata).handle, ["GET", "OPTIONS"]),
            methods=["GET", "OPTIONS"],
        )
    )
    return routes


class EitherTokenVerifier:
    """An OAuth access token (``tma_…``) from the grants file, anything else from the token file."""

    def __init__(self, tokens: StoreTokenVerifier, oauth: DomainProvider) -> None:
        self.tokens = tokens
        self.oauth = oauth

    async def verify_token(self, token: str) -> AccessToken | None:
        if token.startswith(ACCESS + "_"):
            return await self.oauth.load_access_token(token)
        return await self.tokens.verify_token(token)
