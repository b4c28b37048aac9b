"""The memory page's HTTP protections: the MCP endpoints' Host/Origin guard and body limit, the
browser security headers, the session cookie and the same-origin rule for state changes.

One ASGI middleware wraps everything under ``/ui``, so no route can forget a header or a check.
Refusals are JSON bodies with an envelope error code (the page shows them as messages).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE = "tm_ui"
COOKIE_PATH = "/ui"
CSRF_HEADER = "x-csrf-token"

# No inline script or style anywhere; the page loads only its own files and is never framed.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def error_response(
    status: int,
    code: str,
    message: str,
    headers: dict[str, str] | None = None,
    details: dict[str, object] | None = None,
) -> JSONResponse:
    error: dict[str, object] = {"code": code, "message": message}
    if details is not None:
        error["details"] = details
    return JSONResponse({"error": error}, status_code=status, headers=headers)


def session_cookie(session_id: str, max_age: int, secure: bool) -> str:
    """The ``Set-Cookie`` value: script cannot read it, no other site's request carries it, and it
    goes only to ``/ui``. ``Secure`` beyond loopback; on loopback the page is plain http."""
    flags = [f"{COOKIE}={session_id}", "HttpOnly", "SameSite=Strict", f"Path={COOKIE_PATH}", f"Max-Age={max_age}"]
    if secure:
        flags.append("Secure")
    return "; ".join(flags)


def cleared_cookie(secure: bool) -> str:
    return session_cookie("", 0, secure)


def same_origin(headers: Headers) -> bool:
    """No Origin (not a browser's cross-site request) or an Origin naming this very host: a page
    of another site, even one allowed by MEMORY_ALLOWED_ORIGINS, cannot sign a browser in (login
    CSRF) or act for it. The scheme is not compared: behind a TLS proxy the app sees http."""
    origin = headers.get("origin")
    if origin is None:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and bool(parts.netloc) and parts.netloc == headers.get("host")


@dataclass(frozen=True)
class BodyLimit:
    bytes: int
    setting: str  # the variable that sets it, named in the 413


class UiGuard:
    """Host/Origin validation (421/403, the values of ``transport_security``), the request body
    limit (413), the same-origin rule for every state-changing request (403), and the security
    headers on every answer (``Cache-Control: no-store`` on the API too).

    ``uploads``: the one reviewed exception to the body limit, a POST to exactly one of these
    paths, whose route streams the body to a temporary file instead of holding it (the history
    upload); it gets its own, larger limit, enforced here the same way."""

    def __init__(
        self,
        app: ASGIApp,
        security: TransportSecuritySettings,
        max_request_bytes: int,
        uploads: Mapping[str, BodyLimit] | None = None,
    ) -> None:
        self.app = app
        self.checks = TransportSecurityMiddleware(security)  # the SDK's own matching of allowed values
        self.limit = BodyLimit(max_request_bytes, "MEMORY_MAX_REQUEST_BYTES")
        self.uploads = dict(uploads or {})

    def _limit_of(self, scope: Scope) -> BodyLimit:
        return self.uploads.get(scope["path"], self.limit) if scope["method"] == "POST" else self.limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope["path"].startswith(f"{COOKIE_PATH}/api/")  # Starlette keeps the full path in a Mount

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers[name] = value
                if api:
                    headers["Cache-Control"] = "no-store"
            await send(message)

        refusal = self._refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, with_headers)
            return
        await self.app(scope, self._bounded(receive, self._limit_of(scope).bytes), with_headers)

    def _refusal(self, scope: Scope) -> JSONResponse | None:
        headers = Headers(scope=scope)
        if not self.checks._validate_host(headers.get("host")):
            return error_response(421, "FORBIDDEN", "this Host is not served (MEMORY_ALLOWED_HOSTS)")
        if not self.checks._validate_origin(headers.get("origin")):
            return error_response(403, "FORBIDDEN", "this Origin is not allowed (MEMORY_ALLOWED_ORIGINS)")
        if scope["method"] not in ("GET", "HEAD", "OPTIONS") and not same_origin(headers):
            return error_response(403, "FORBIDDEN", "a request from another site's page is refused")
        declared = headers.get("content-length")
        limit = self._limit_of(scope)
        if declared is not None and declared.isdigit() and int(declared) > limit.bytes:
            return error_response(
                413, "INVALID_ARGUMENT", f"request body too large ({limit.setting})", details={"reason": "too_large"}
            )
        return None

    @staticmethod
    def _bounded(receive: Receive, limit: int) -> Receive:
        """A body sent without (or beyond) its Content-Length still stops at the limit."""
        seen = 0

        async def bounded() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge()
            return message

        return bounded


class BodyTooLarge(Exception):
    """Raised while reading a body past the limit; the API answers 413."""


def parse_json(body: bytes) -> Any:
    """The JSON of a request body; ``ValueError`` when it is not JSON."""
    return json.loads(body) if body else None
