"""The page's side of an OAuth consent: what a client asks for, and the person's answer.

Only a user token's session answers a consent, for one of its own users (the body's ``user_id``
when the token covers several): an operator or open-mode session would hand a client another
person's memory, so it is refused. The answer is where to send the browser back to the client:
its redirect URI with the code (or ``access_denied``) and the state it sent.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from service.auth.oauth.records import PendingRequest
from service.auth.oauth.server import AuthorizationServer
from ui.api import UiApi
from ui.security import BodyTooLarge, error_response, parse_json

GONE = "no such authorization request: it expired, was answered already, or never existed"


class ConsentApi:
    def __init__(self, api: UiApi, server: AuthorizationServer | None) -> None:
        self.api = api
        self.server = server

    def _request(self, request: Request) -> PendingRequest | Response:
        pending = self.server.pending(request.path_params["request_id"]) if self.server is not None else None
        return pending if pending is not None else error_response(404, "NOT_FOUND", GONE)

    async def show(self, request: Request) -> Response:
        live = self.api.caller(request, csrf=False)
        if isinstance(live, Response):
            return live
        _, principal = live
        pending = self._request(request)
        if isinstance(pending, Response):
            return pending
        assert self.server is not None
        client = self.server.client(pending.client_id)
        redirect = urlsplit(pending.redirect_uri)
        # Per user of this session, what the client holds already: the page marks the rest as new.
        user_ids = sorted(principal.user_ids) if principal.role == "user" else []
        return JSONResponse(
            {
                "client_name": (client.client_name if client else None) or pending.client_id,
                "redirect_origin": f"{redirect.scheme}://{redirect.netloc}",
                "scopes": pending.scopes,
                "users": [
                    {"user_id": u, "held_scopes": self.server.held_scopes(u, pending.client_id)} for u in user_ids
                ],
            }
        )

    async def approve(self, request: Request) -> Response:
        live = self.api.caller(request)
        if isinstance(live, Response):
            return live
        _, principal = live
        if principal.role != "user" or not principal.user_ids:
            return error_response(403, "FORBIDDEN", "sign in with your own user token to connect a client")
        try:
            body = parse_json(await request.body()) if await request.body() else {}
        except BodyTooLarge:
            return error_response(413, "INVALID_ARGUMENT", "request body too large")
        except ValueError:
            return error_response(400, "INVALID_ARGUMENT", "the body must be JSON")
        asked = body.get("user_id") if isinstance(body, dict) else None
        if asked is None and len(principal.user_ids) == 1:
            asked = next(iter(principal.user_ids))
        if not isinstance(asked, int) or isinstance(asked, bool) or asked not in principal.user_ids:
            return error_response(
                400 if asked is None else 403,
                "INVALID_ARGUMENT" if asked is None else "FORBIDDEN",
                "name the user_id to connect (one this token covers)",
                details={"field": "user_id"},
            )
        if isinstance(pending := self._request(request), Response):
            return pending
        assert self.server is not None
        answered, code = self.server.approve(pending.request_id, asked)
        return JSONResponse({"redirect": self.server.response_to(answered, code=code)})

    async def deny(self, request: Request) -> Response:
        live = self.api.caller(request)
        if isinstance(live, Response):
            return live
        if isinstance(pending := self._request(request), Response):
            return pending
        assert self.server is not None
        answered = self.server.deny(pending.request_id)
        return JSONResponse(
            {
                "redirect": self.server.response_to(
                    answered, error="access_denied", error_description="the person declined"
                )
            }
        )

    async def clients(self, request: Request) -> Response:
        """The clients connected to this session's users, with their scopes and last use."""
        live = self.api.caller(request, csrf=False)
        if isinstance(live, Response):
            return live
        _, principal = live
        if principal.role != "user" or self.server is None:
            return JSONResponse({"clients": []})
        rows = [
            {**row, "user_id": user_id}
            for user_id in sorted(principal.user_ids)
            for row in self.server.connected_clients(user_id)
        ]
        return JSONResponse({"clients": rows})

    async def revoke_client(self, request: Request) -> Response:
        """Disconnect a client from this session's users: its tokens stop working at their next use."""
        live = self.api.caller(request)
        if isinstance(live, Response):
            return live
        _, principal = live
        client_id = request.path_params["client_id"]
        ended = 0
        if principal.role == "user" and self.server is not None:
            for user_id in principal.user_ids:
                try:
                    ended += self.server.revoke_client(user_id, client_id)
                except KeyError:
                    continue
        if not ended:
            # Someone else's client answers as a missing one.
            return error_response(404, "NOT_FOUND", "no such connected client")
        return JSONResponse({"revoked": client_id})
