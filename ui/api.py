"""The memory page's JSON API: the session (sign in, recover, sign out) and one way to call tools.

A tool call from the page runs the MCP tools' own call path (``tools.server.tool_calls``) with
the session's principal, so validation, authorization, the user's switches, the audit stamp,
metrics, the log line and subscriptions are the ones an agent's call gets, and the answer is the
envelope an MCP client reads in ``structuredContent``. The page's context object carries no MCP
request, so destructive tools cannot ask by elicitation and need ``confirm: true`` (the page asks
first in its own dialog).
"""

from __future__ import annotations

import hmac
import logging
from dataclasses import dataclass
from typing import Any

from mcp_types import CallToolResult
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from service.auth.policy import Principal
from service.auth.ratelimit import RateLimiter
from service.errors import RateLimited
from tools.calls.envelope import envelope_of
from tools.server import ToolCall
from ui.security import COOKIE, CSRF_HEADER, BodyTooLarge, cleared_cookie, error_response, parse_json, session_cookie
from ui.sessions import OPEN_TOKEN_ID, SessionStore, UiSession

log = logging.getLogger("taste_memory.ui")


@dataclass(frozen=True)
class UiCallContext:
    """What a page call hands the call path instead of the SDK's context: the verified principal.
    It has no ``request_context``, so ``tools.calls.confirmation.can_ask`` answers no."""

    principal: Principal


class SessionIdentity:
    """``CallerIdentity`` for page calls: the principal the API resolved from the session."""

    def resolve(self, context: Any) -> Principal | None:
        return context.principal if isinstance(context, UiCallContext) else None


def _session_body(session: UiSession, principal: Principal, open_mode: bool, upload_bytes: int) -> dict[str, Any]:
    role = "open" if session.token_id == OPEN_TOKEN_ID else principal.role
    # Operator and open principals see users through ops_list_users; a user token lists its own.
    user_ids = sorted(principal.user_ids) if role == "user" else None
    return {
        "signed_in": True,
        "csrf": session.csrf,
        "role": role,
        "user_ids": user_ids,
        "open_mode": open_mode,
        "history_upload_bytes": upload_bytes,  # the page refuses a larger file before sending it
    }


async def _json_body(request: Request) -> Any:
    """The body as JSON; ``ValueError`` for anything else (``BodyTooLarge`` past the limit)."""
    return parse_json(await request.body())


UNAUTHORIZED = "sign in first: no live session (it expired, was signed out, or its token was revoked)"
# Sign-in attempts per client address: guessing a 256-bit token is hopeless anyway, but an open
# endpoint that checks the token file on every request should not be free to hammer.
SIGN_IN_PER_MINUTE = 30
SIGN_IN_BURST = 10


class UiApi:
    def __init__(
        self,
        sessions: SessionStore,
        calls: dict[str, ToolCall],
        secure_cookie: bool,
        sign_in_limiter: RateLimiter | None = None,
        history_upload_bytes: int = 0,
    ) -> None:
        self.sessions = sessions
        self.calls = calls
        self.secure_cookie = secure_cookie
        self.history_upload_bytes = history_upload_bytes
        self.sign_in_limiter = sign_in_limiter or RateLimiter(SIGN_IN_PER_MINUTE, SIGN_IN_BURST)

    def _live(self, request: Request) -> tuple[UiSession, Principal] | None:
        return self.sessions.lookup(request.cookies.get(COOKIE))

    @staticmethod
    def _csrf_ok(request: Request, session: UiSession) -> bool:
        sent = request.headers.get(CSRF_HEADER, "")
        return hmac.compare_digest(sent.encode(), session.csrf.encode())

    def caller(self, request: Request, csrf: bool = True) -> tuple[UiSession, Principal] | Response:
        """The live session and its principal, or the refusal: 401 without a session, 403 without
        its CSRF token (``csrf``: the request changes something)."""
        live = self._live(request)
        if live is None:
            return error_response(401, "UNAUTHORIZED", UNAUTHORIZED)
        if csrf and not self._csrf_ok(request, live[0]):
            return error_response(403, "FORBIDDEN", "missing or wrong CSRF token")
        return live

    async def get_session(self, request: Request) -> Response:
        live = self._live(request)
        open_mode = self.sessions.open_mode()
        if live is None:
            return JSONResponse({"signed_in": False, "open_mode": open_mode})
        return JSONResponse(_session_body(*live, open_mode, self.history_upload_bytes))

    async def sign_in(self, request: Request) -> Response:
        address = request.client.host if request.client is not None else "-"
        try:
            self.sign_in_limiter.check(f"ui-sign-in:{address}")
        except RateLimited as exc:
            retry = exc.retry_after_s
            return error_response(
                429,
                "RATE_LIMITED",
                "too many sign-in attempts from this address",
                headers={"Retry-After": str(max(1, round(retry)))},
                details={"retry_after_s": retry},
            )
        try:
            body = await _json_body(request)
        except BodyTooLarge:
            return error_response(413, "INVALID_ARGUMENT", "request body too large")
        except ValueError:
            body = None  # open mode accepts any body; otherwise no token → 401 below
        token = body.get("token") if isinstance(body, dict) else None
        session = self.sessions.sign_in(token if isinstance(token, str) else None)
        if session is None:
            log.warning("ui sign-in refused")  # never the token, not even a part of it
            return error_response(401, "UNAUTHORIZED", "this token is unknown, revoked or missing")
        principal = self.sessions.principal_of(session)
        assert principal is not None  # just verified
        log.info("ui sign-in", extra={"principal": principal.name})
        response = JSONResponse(_session_body(session, principal, self.sessions.open_mode(), self.history_upload_bytes))
        response.headers["Set-Cookie"] = session_cookie(
            session.session_id, int(self.sessions.absolute_seconds), self.secure_cookie
        )
        return response

    async def sign_out(self, request: Request) -> Response:
        live = self._live(request)
        if live is None:
            return error_response(401, "UNAUTHORIZED", UNAUTHORIZED)
        if not self._csrf_ok(request, live[0]):
            return error_response(403, "FORBIDDEN", "missing or wrong CSRF token")
        self.sessions.drop(live[0].session_id)
        return Response(status_code=204, headers={"Set-Cookie": cleared_cookie(self.secure_cookie)})

    async def call_tool(self, request: Request) -> Response:
        live = self.caller(request)
        if isinstance(live, Response):
            return live
        _, principal = live
        call = self.calls.get(request.path_params["tool"])
        if call is None:
            return error_response(404, "NOT_FOUND", "no such tool on this server")
        try:
            arguments = await _json_body(request)
        except BodyTooLarge:
            return error_response(413, "INVALID_ARGUMENT", "request body too large")
        except ValueError:
            arguments = None
        if not isinstance(arguments, dict):
            return error_response(400, "INVALID_ARGUMENT", "the body must be a JSON object of the tool's arguments")
        answer = await call(arguments, UiCallContext(principal))
        envelope = envelope_of(answer) if isinstance(answer, CallToolResult) else None
        if envelope is None:
            # Only an elicitation question could come back otherwise, and a page context never asks.
            return error_response(500, "INTERNAL", "the tool answered in a form the page cannot show")
        return JSONResponse(envelope)
