"""The ``/ui`` application: the page's files and its API, behind ``UiGuard``.

``host/app.py`` mounts it on the HTTP transports when ``MEMORY_UI=on``. The files ship inside
the package (``ui/static``), so ``pip install`` is all the page needs; only names present there
are served, never a path built from the request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import Receive, Scope, Send

from service.auth.oauth.server import AuthorizationServer
from service.auth.tokens import TokenStore
from service.settings import Settings
from tools.calls.pipeline import CallPipeline
from tools.server import ToolCall
from ui.api import UiApi
from ui.consent_api import ConsentApi
from ui.history_api import HistoryApi
from ui.history_jobs import HistoryJobs
from ui.security import BodyLimit, UiGuard, error_response
from ui.sessions import SessionStore
from ui.uploads import upload_root

HISTORY_IMPORTS = "/api/history-imports"
CONSENTS = "/api/oauth/requests"
CONNECTED = "/api/oauth/clients"

STATIC = Path(__file__).parent / "static"
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")  # a file of the directory itself, no path
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".txt": "text/plain; charset=utf-8",
}


def _file(directory: Path, name: str) -> Response:
    path = directory / name
    media_type = TYPES.get(path.suffix)
    if not NAME.match(name) or media_type is None or not path.is_file():
        return error_response(404, "NOT_FOUND", "no such file")
    # Revalidated on each load, so a new version of the page is picked up after an upgrade.
    return Response(path.read_bytes(), media_type=media_type, headers={"Cache-Control": "no-cache"})


async def _to_index(scope: Scope, receive: Receive, send: Send) -> None:
    await RedirectResponse("/ui/", status_code=308)(scope, receive, send)


def ui_routes(
    settings: Settings,
    tokens: TokenStore,
    calls: Mapping[str, ToolCall],
    security: TransportSecuritySettings,
    pipeline: CallPipeline,
    imports: HistoryJobs,
    oauth: AuthorizationServer | None = None,
    static: Path = STATIC,
) -> list[BaseRoute]:
    """The page and its API for ``settings`` (``/ui`` redirects to ``/ui/``); ``calls`` are the
    tool call paths by plain wire name, ``pipeline`` the one they run through (for the history
    Import, which is no tool), ``imports`` its jobs (the host closes them at shutdown)."""
    sessions = SessionStore(
        tokens,
        open_mode=lambda: settings.loopback and not tokens.configured(),
        absolute_seconds=settings.ui_session_minutes * 60,
    )
    api = UiApi(
        sessions,
        dict(calls),
        secure_cookie=not settings.loopback,
        history_upload_bytes=settings.max_history_upload_bytes,
    )
    consent = ConsentApi(api, oauth)
    history = HistoryApi(api, pipeline, imports, upload_root(settings)[0], settings.max_history_upload_bytes)

    async def index(request: Request) -> Response:
        return _file(static, "index.html")

    async def asset(request: Request) -> Response:
        return _file(static, request.path_params["name"])

    async def http_error(request: Request, exc: Exception) -> Response:
        # Starlette's own 404/405 as the page's JSON errors.
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        return error_response(
            status,
            "NOT_FOUND" if status in (404, 405) else "INTERNAL",
            "no such page or method" if status in (404, 405) else "internal error",
        )

    router = Starlette(
        exception_handlers={404: http_error, 405: http_error},
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/static/{name}", asset, methods=["GET"]),
            Route("/api/session", api.get_session, methods=["GET"]),
            Route("/api/session", api.sign_in, methods=["POST"]),
            Route("/api/session", api.sign_out, methods=["DELETE"]),
            Route("/api/tools/{tool}", api.call_tool, methods=["POST"]),
            Route(HISTORY_IMPORTS, history.start, methods=["POST"]),
            Route(HISTORY_IMPORTS + "/{job_id}", history.status, methods=["GET"]),
            Route(HISTORY_IMPORTS + "/{job_id}", history.cancel, methods=["DELETE"]),
            Route(CONSENTS + "/{request_id}", consent.show, methods=["GET"]),
            Route(CONSENTS + "/{request_id}/approve", consent.approve, methods=["POST"]),
            Route(CONSENTS + "/{request_id}/deny", consent.deny, methods=["POST"]),
            Route(CONNECTED, consent.clients, methods=["GET"]),
            Route(CONNECTED + "/{client_id}/revoke", consent.revoke_client, methods=["POST"]),
        ],
    )
    # The history upload streams its body to disk (ui/uploads.py): its own, larger limit.
    upload = BodyLimit(settings.max_history_upload_bytes, "MEMORY_MAX_HISTORY_UPLOAD_BYTES")
    return [
        Route("/ui", UiGuard(_to_index, security, settings.max_request_bytes)),
        Mount("/ui", app=UiGuard(router, security, settings.max_request_bytes, {"/ui" + HISTORY_IMPORTS: upload})),
    ]
