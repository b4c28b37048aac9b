"""Fetching Client ID Metadata Documents: from listed origins only, no redirects followed, at most
5 KB, within a few seconds, and kept for five minutes, so a consent and its code exchange fetch the
document once. A refusal is an ``OAuthError`` the routes answer; nothing refused is remembered."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection

import anyio
import httpx
from mcp.shared.auth import OAuthClientInformationFull
from pydantic import ValidationError

from service.auth.oauth.client_documents import check_url, client_from_document
from service.auth.oauth.errors import OAuthError
from service.auth.oauth.server import AuthorizationServer
from service.timeutil import format_iso, utc_now

MAX_BYTES = 5 * 1024  # the draft's advice; a client's description is a few hundred bytes
TIMEOUT_S = 5.0
CACHE_S = 300.0


class ClientDocuments:
    def __init__(
        self,
        server: AuthorizationServer,
        allowed_origins: Collection[str],
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.server = server
        self.allowed_origins = frozenset(allowed_origins)
        self.transport = transport  # tests may hand in a transport; the default is the network
        self.clock = clock
        self._cache: dict[str, tuple[OAuthClientInformationFull, float]] = {}

    async def resolve(self, client_id: str) -> OAuthClientInformationFull:
        """The client the URL describes, fetched (or cached); ``OAuthError`` when refused."""
        check_url(client_id, self.allowed_origins)  # before the cache: a delisted origin ends at once
        cached = self._cache.get(client_id)
        if cached is not None and cached[1] > self.clock():
            return cached[0]
        record = client_from_document(client_id, await self._fetch(client_id), format_iso(utc_now()) or "")
        try:
            client = OAuthClientInformationFull.model_validate(record.metadata)
        except ValidationError:
            raise OAuthError("invalid_client", "the client metadata document holds an invalid URL") from None
        self.server.remember_client(record)
        self._cache[client_id] = (client, self.clock() + CACHE_S)
        return client

    async def _fetch(self, url: str) -> object:
        try:
            # The whole fetch, not each read: a server dripping a byte at a time is cut off too.
            with anyio.fail_after(TIMEOUT_S):
                body = await self._body(url)
        except TimeoutError:
            raise OAuthError("invalid_client", "the client metadata document took too long") from None
        except httpx.HTTPError as exc:
            raise OAuthError("invalid_client", f"the client metadata document could not be fetched: {exc}") from None
        try:
            return json.loads(body)
        except ValueError:
            raise OAuthError("invalid_client", "the client metadata document is not JSON") from None

    async def _body(self, url: str) -> bytes:
        async with (
            httpx.AsyncClient(transport=self.transport, timeout=TIMEOUT_S, follow_redirects=False) as http,
            http.stream("GET", url, headers={"Accept": "application/json"}) as answer,
        ):
            if answer.status_code != 200:
                raise OAuthError("invalid_client", f"the client metadata document answered {answer.status_code}")
            body = b""
            async for chunk in answer.aiter_bytes():
                body += chunk
                if len(body) > MAX_BYTES:
                    raise OAuthError("invalid_client", f"the client metadata document exceeds {MAX_BYTES} bytes")
            return body
