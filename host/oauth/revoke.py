"""RFC 7009 revocation for public clients. The SDK's endpoint refuses a form without a
``client_secret`` field (400) before looking at the token, and a public client has none to send;
this one needs the token and the client id, and answers 200 whatever the token was (§2.2)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from service.auth.oauth.server import AuthorizationServer

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def revocation_endpoint(server: AuthorizationServer) -> Callable[[Request], Awaitable[Response]]:
    async def revoke(request: Request) -> Response:
        form = await request.form()
        token, client_id = form.get("token"), form.get("client_id")
        if not isinstance(token, str) or not isinstance(client_id, str) or not token or not client_id:
            return JSONResponse(
                {"error": "invalid_request", "error_description": "send token and client_id"},
                status_code=400,
                headers=NO_STORE,
            )
        server.revoke_token(token, client_id)
        return Response(status_code=200, headers=NO_STORE)

    return revoke
