"""JSON-RPC over the MCP SSE transport with request bodies written by hand.

The official client cannot send everything a hostile peer can: pydantic turns NaN and ±Infinity
into ``null``, httpx refuses lone surrogates, and the SDK's serializer stops at about 250 levels
of nesting. This client opens ``GET /sse`` itself, POSTs raw bytes to the session's message
endpoint and reads the answer off the event stream, so those bodies reach the server verbatim.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import anyio
import httpx
from mcp_types.version import LATEST_HANDSHAKE_VERSION

CALL_TIMEOUT = 30.0  # seconds one request may take before the test gives up on it


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def raw_json(value: Any) -> str:
    """JSON text as a hostile peer would write it: ``NaN``/``Infinity`` tokens, lone surrogates
    as ``\\ud800`` escapes (the only way JSON can carry them), any depth (the C encoder's
    recursion guard follows the interpreter's limit). Other text stays UTF-8, as the official
    client sends it, so sizes compare."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        text = json.dumps(value, allow_nan=True, ensure_ascii=False, separators=(",", ":"))
    finally:
        sys.setrecursionlimit(limit)
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def body_size(value: Any) -> int:
    return len(raw_json(value).encode("utf-8"))


@dataclass
class RawAnswer:
    status: int  # HTTP status of the POST (202 when the server took the message)
    message: dict[str, Any] | None  # the JSON-RPC response read off the stream, if any


class RawSession:
    def __init__(self, http: httpx.AsyncClient, events: AsyncIterator[tuple[str, str]], post_url: str) -> None:
        self.http = http
        self.events = events
        self.post_url = post_url
        self._next_id = 0

    async def _next_event(self) -> tuple[str, str]:
        with anyio.fail_after(CALL_TIMEOUT):
            return await anext(self.events)

    async def post(self, body: bytes) -> int:
        response = await self.http.post(self.post_url, content=body, headers={"Content-Type": "application/json"})
        return response.status_code

    async def request(self, method: str, params_json: str) -> RawAnswer:
        """Send one request whose ``params`` are the given JSON text; wait for its response."""
        self._next_id += 1
        ident = self._next_id
        body = f'{{"jsonrpc":"2.0","id":{ident},"method":{json.dumps(method)},"params":{params_json}}}'
        status = await self.post(body.encode("utf-8"))
        if status != 202:
            return RawAnswer(status, None)
        while True:
            kind, data = await self._next_event()
            if kind != "message":
                continue
            message = json.loads(data)
            if message.get("id") == ident:
                return RawAnswer(status, message)

    async def call_tool(self, name: str, arguments_json: str) -> RawAnswer:
        return await self.request("tools/call", f'{{"name":{json.dumps(name)},"arguments":{arguments_json}}}')

    async def initialize(self) -> None:
        params = {
            "protocolVersion": LATEST_HANDSHAKE_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "hostile-raw-client", "version": "0"},
        }
        answer = await self.request("initialize", json.dumps(params))
        assert answer.message is not None and "result" in answer.message, f"initialize failed: {answer}"
        status = await self.post(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        assert status == 202, f"notifications/initialized answered HTTP {status}"


async def _sse_lines(chunks: AsyncIterator[str]) -> AsyncIterator[str]:
    """Lines as the SSE spec ends them (CRLF, LF or CR) and nothing else: httpx's ``aiter_lines``
    also breaks at U+2028, U+0085 and other ``str.splitlines`` separators, which JSON text carries
    unescaped (a stored track ID may hold one), so it would cut a message in two."""
    pending = ""
    async for chunk in chunks:
        pending += chunk
        while True:
            cut = min((i for i in (pending.find("\r"), pending.find("\n")) if i >= 0), default=-1)
            if cut < 0 or (pending[cut] == "\r" and cut == len(pending) - 1):
                break  # no end of line yet, or a CR that a LF in the next chunk may complete
            yield pending[:cut]
            pending = pending[cut + (2 if pending.startswith("\r\n", cut) else 1) :]
    if pending:
        yield pending


async def _sse_events(lines: AsyncIterator[str]) -> AsyncIterator[tuple[str, str]]:
    """(event, data) pairs of a text/event-stream; comment lines (keep-alives) are skipped."""
    kind, data = "message", []
    async for line in lines:
        if not line:
            if data:
                yield kind, "\n".join(data)
            kind, data = "message", []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                kind = value
            elif field == "data":
                data.append(value)


@asynccontextmanager
async def raw_sse_session(base_url: str) -> AsyncIterator[RawSession]:
    """An initialized MCP session over ``GET /sse`` driven with hand-written request bodies."""
    timeout = httpx.Timeout(CALL_TIMEOUT, read=None)  # the event stream stays open between answers
    async with (
        httpx.AsyncClient(base_url=base_url, timeout=timeout) as http,
        http.stream("GET", "/sse", headers={"Accept": "text/event-stream"}) as stream,
    ):
        assert stream.status_code == 200, f"GET /sse answered HTTP {stream.status_code}"
        events = _sse_events(_sse_lines(stream.aiter_text()))
        with anyio.fail_after(CALL_TIMEOUT):
            kind, endpoint = await anext(events)
        assert kind == "endpoint", f"first SSE event is {kind!r}, not the message endpoint"
        session = RawSession(http, events, urljoin(base_url + "/", endpoint))
        await session.initialize()
        yield session
