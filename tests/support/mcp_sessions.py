"""MCP sessions with a real server over the wire, through the official clients: SSE, streamable
HTTP, and stdio (a process of its own on the same store). Every answer goes through ``WireCaller``,
which checks what an agent relies on: the envelope is the structured content, the only text is the
same JSON, ``is_error`` is ``not success``, and the envelope validates against the PRD schema.

    with running_server(settings, tmp_path) as server:
        async with sse_session(server) as call:
            await call.ok("memory_get_profile", {"user_id": 1})
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from mcp.client.client import Client
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from models.schema_files import envelope_schema, success_envelope_schema
from service.settings import Settings
from tests.support import EnvelopeCaller
from tests.support.server_process import CALL_TIMEOUT, ServerProcess, _log_numbers, running_server, store_options

_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")
FORMATS = FormatChecker(["uuid"])


@FORMATS.checks("date-time")
def _utc_iso(value: object) -> bool:
    """The service's own rule: every time is UTC ISO-8601 ending in Z."""
    return not isinstance(value, str) or bool(_UTC.match(value))


def prd_name(wire: str) -> str:
    return wire if "." in wire else wire.replace("_", ".", 1)


class WireCaller(EnvelopeCaller):
    """Call a tool and get its envelope, after checking what an agent relies on: the envelope
    is the structured content, the only text content is the same JSON, ``is_error`` is
    ``not success``, and the envelope validates against the PRD schema of that tool."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def __call__(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call_tool(tool, arguments)
        envelope = result.structured_content
        assert isinstance(envelope, dict), f"{tool} returned no structured content: {result}"
        assert len(result.content) == 1 and result.content[0].type == "text", result.content
        assert json.loads(result.content[0].text) == envelope, f"{tool}: text content differs from structured content"
        assert result.is_error == (not envelope.get("success")), f"{tool}: is_error={result.is_error} for {envelope}"
        schema = success_envelope_schema(prd_name(tool)) if envelope.get("success") else envelope_schema()
        errors = sorted(Draft202012Validator(schema, format_checker=FORMATS).iter_errors(envelope), key=str)
        assert not errors, f"{tool} envelope breaks the PRD schema: {[e.message for e in errors[:5]]}\n{envelope}"
        return envelope

    async def export(self, user_id: int) -> dict[str, Any]:
        """The whole export, following continuation cursors, with parts joined per playlist."""
        merged: dict[str, Any] | None = None
        arguments: dict[str, Any] = {"user_id": user_id}
        for _ in range(1000):
            data = (await self.ok("memory_export_user_data", arguments))["data"]
            if merged is None:
                merged = {**data, "preference_events": [], "playlists": []}
            elif data.get("profile") is not None:
                merged["profile"] = data["profile"]
            merged["preference_events"].extend(data.get("preference_events", []))
            for playlist in data.get("playlists", []):
                if merged["playlists"] and merged["playlists"][-1]["playlist_id"] == playlist["playlist_id"]:
                    joined = merged["playlists"][-1]
                    for key, value in playlist.items():
                        if key in ("snapshots", "events"):
                            joined[key].extend(value)
                        else:
                            joined.setdefault(key, value)
                else:
                    merged["playlists"].append(
                        {**playlist, "snapshots": list(playlist["snapshots"]), "events": list(playlist["events"])}
                    )
            cursor = (data.get("continuation") or {}).get("next_cursor")
            if cursor is None:
                return merged
            arguments = {"user_id": user_id, "cursor": cursor}
        raise AssertionError("export did not end after 1000 parts")


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


@asynccontextmanager
async def _session(client: Client) -> AsyncIterator[WireCaller]:
    """Enter the client; a test's own failure comes out as itself, not inside the SDK's task
    groups' ExceptionGroups."""
    try:
        async with client:
            yield WireCaller(client)
    except BaseExceptionGroup as group:
        leaves = _leaves(group)
        mine = [e for e in leaves if isinstance(e, AssertionError)] or leaves
        if len(mine) == 1:
            raise mine[0] from None
        raise


@asynccontextmanager
async def sse_session(server: ServerProcess, token: str | None = None) -> AsyncIterator[WireCaller]:
    """The official MCP SSE client: GET /sse, POST /messages/; ``token`` is sent as a bearer token."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else None
    transport = sse_client(server.sse_url, headers=headers)
    async with _session(Client(transport, cache=None, read_timeout_seconds=CALL_TIMEOUT)) as call:
        yield call


@asynccontextmanager
async def streamable_http_session(
    server: ServerProcess, token: str | None = None, mode: str = "auto"
) -> AsyncIterator[WireCaller]:
    """The official MCP streamable-HTTP client at /mcp; ``token`` is sent as a bearer token on
    every request (``mode`` as ``Client``'s: "auto" probes the 2026 protocol, "legacy" forces
    the initialize handshake and a session id)."""
    if token is None and mode == "auto":
        async with _session(Client(server.mcp_url, cache=None, read_timeout_seconds=CALL_TIMEOUT)) as call:
            yield call
        return
    headers = {"Authorization": f"Bearer {token}"} if token is not None else None
    async with create_mcp_http_client(headers=headers) as http:
        transport = streamable_http_client(server.mcp_url, http_client=http)
        async with _session(Client(transport, cache=None, read_timeout_seconds=CALL_TIMEOUT, mode=mode)) as call:  # type: ignore[arg-type]
            yield call


@asynccontextmanager
async def stdio_session(
    settings: Settings, workdir: Path, env: dict[str, str] | None = None
) -> AsyncIterator[WireCaller]:
    """Launch ``serve --transport stdio`` through the SDK's stdio client (which stops it on exit)."""
    flags, store_env = store_options(settings)
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "host.cli", "serve", "--transport", "stdio", *flags],
        env={**store_env, "PYTHONUNBUFFERED": "1", **(env or {})},
        cwd=str(workdir),
    )
    workdir.mkdir(parents=True, exist_ok=True)
    with open(workdir / f"stdio-server-{next(_log_numbers)}.log", "w") as errlog:
        client = Client(stdio_client(parameters, errlog=errlog), cache=None, read_timeout_seconds=CALL_TIMEOUT)
        async with _session(client) as call:
            yield call


SessionOpener = Callable[[], AbstractAsyncContextManager[WireCaller]]


@asynccontextmanager
async def serving(transport: str, settings: Settings, workdir: Path) -> AsyncIterator[SessionOpener]:
    """One server over ``transport`` (sse, streamable-http, stdio), as a way to open sessions on it:
    over HTTP every session reaches the same process; over stdio each session is a process of its
    own on the same store (a stdio server serves exactly one client)."""
    if transport == "stdio":
        yield lambda: stdio_session(settings, workdir)
        return
    with running_server(settings, workdir, transport=transport) as server:
        yield (lambda: sse_session(server)) if transport == "sse" else (lambda: streamable_http_session(server))
