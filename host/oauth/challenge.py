"""The 401 that starts an MCP client's OAuth discovery (RFC 9728 §5.1), on the MCP endpoints
only. A request without a credential, or with an OAuth access token that is expired, revoked or
for another resource, is answered 401 with ``WWW-Authenticate: Bearer resource_metadata=…``;
the operator's bearer tokens keep today's path (an in-band UNAUTHORIZED once revoked)."""

from __future__ import annotations

import json
from collections.abc import Callable

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from starlette.types import ASGIApp, Receive, Scope, Send

from service.auth.oauth.grants import ACCESS

MCP_PATHS = ("/mcp", "/sse", "/messages")


def _bearer(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            text: str = bytes(value).decode("latin-1")
            return text[7:].strip() if text.lower().startswith("bearer ") else text
    return None


class OAuthChallenge:
    def __init__(self, app: ASGIApp, resource_metadata_url: str, required: Callable[[], bool]) -> None:
        self.app = app
        self.resource_metadata_url = resource_metadata_url
        self.required = required  # False in the open loopback mode: every local caller is answered

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(MCP_PATHS) or not self.required():
            await self.app(scope, receive, send)
            return
        token = _bearer(scope)
        if token is None:
            await self._refuse(send, "invalid_request", "a bearer token is required")
            return
        if token.startswith(ACCESS + "_") and not isinstance(scope.get("user"), AuthenticatedUser):
            await self._refuse(send, "invalid_token", "the access token is expired, revoked or for another resource")
            return
        await self.app(scope, receive, send)

    async def _refuse(self, send: Send, error: str, description: str) -> None:
        body = json.dumps({"error": error, "error_description": description}).encode()
        # No credential: the challenge names only where to start (RFC 6750 §3.1 sends no error code).
        challenge = "Bearer " if error == "invalid_request" else f'Bearer error="{error}", '
        challenge += f'resource_metadata="{self.resource_metadata_url}"'
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", challenge.encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
