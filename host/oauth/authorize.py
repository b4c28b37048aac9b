"""What this server adds around the SDK's authorization endpoint and metadata: a client named by a
metadata document URL is fetched before the SDK looks at it, so a refusal says why (the SDK would
only answer "not found"), and the metadata says which of these extensions the server supports."""

from __future__ import annotations

from mcp.server.auth.routes import build_metadata
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthMetadata
from pydantic import AnyHttpUrl
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from host.oauth.client_documents import ClientDocuments
from service.auth.oauth.client_documents import is_document_url
from service.auth.oauth.errors import OAuthError
from service.auth.oauth.responses import with_params

NO_STORE = {"Cache-Control": "no-store"}


def server_metadata(
    issuer: AnyHttpUrl, registration: ClientRegistrationOptions, documents: ClientDocuments | None
) -> OAuthMetadata:
    """RFC 8414 metadata: the SDK's, saying that every client is a public one (``none``: PKCE binds
    the code, no secret is kept) and, when an origin is listed, that metadata documents name clients."""
    metadata = build_metadata(issuer, None, registration, RevocationOptions(enabled=True))
    metadata.token_endpoint_auth_methods_supported = ["none"]
    metadata.revocation_endpoint_auth_methods_supported = ["none"]
    metadata.authorization_response_iss_parameter_supported = True
    if documents is not None:
        metadata.client_id_metadata_document_supported = True
    return metadata


class DocumentClients:
    """In front of ``/authorize``: a URL ``client_id`` whose document is refused is answered 400
    with the reason, never redirected (RFC 6749 §4.1.2.1: the redirect URI is not trusted yet)."""

    def __init__(self, app: ASGIApp, documents: ClientDocuments | None) -> None:
        self.app = app
        self.documents = documents

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") == "GET":
            client_id = Request(scope).query_params.get("client_id", "")
            if is_document_url(client_id):
                refusal = await self._refusal(client_id)
                if refusal is not None:
                    await JSONResponse(
                        {"error": "invalid_client", "error_description": refusal}, status_code=400, headers=NO_STORE
                    )(scope, receive, send)
                    return
        await self.app(scope, receive, send)

    async def _refusal(self, client_id: str) -> str | None:
        if self.documents is None:
            return "this server accepts no client metadata documents; register the client"
        try:
            await self.documents.resolve(client_id)
        except OAuthError as exc:
            return exc.description
        return None


class IssuerOnRedirects:
    """The SDK's own answers from ``/authorize`` that send the browser back to the client (an error
    such as ``invalid_scope``) name this server as well (RFC 9207); the redirect to the consent page
    is not an answer to the client and is left alone."""

    def __init__(self, app: ASGIApp, issuer: str, consent_url: str) -> None:
        self.app = app
        self.issuer = issuer
        self.consent_url = consent_url

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def naming_issuer(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] in (302, 303):
                message = {**message, "headers": [self._header(name, value) for name, value in message["headers"]]}
            await send(message)

        await self.app(scope, receive, naming_issuer)

    def _header(self, name: bytes, value: bytes) -> tuple[bytes, bytes]:
        location = value.decode("latin-1")
        if name.lower() != b"location" or location.startswith(self.consent_url):
            return name, value
        return name, with_params(location, {"iss": self.issuer}).encode("latin-1")
