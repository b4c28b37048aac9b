"""memory_enable_toolsets with the official MCP client against a served process, on every
transport and both protocol eras: the session is told its tool list changed, lists the new tools
and calls one.

Up to protocol 2025-11-25 (``mode="legacy"``: the initialize handshake, a session) the news is a
``notifications/tools/list_changed`` on the session; at 2026-07-28 (the client's default) there is
no session, and the client opens a ``subscriptions/listen`` stream for it.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.subscriptions import ToolsListChanged

from service.settings import Settings
from tests.support.mcp_sessions import WireCaller
from tests.support.server_process import CALL_TIMEOUT, running_server, store_options
from tests.tools.toolsets.test_enable_toolsets import WAIT_SECONDS, ListChanges
from tools.specs.catalog import TOOLSETS, listed_names

LEDGER = {name.replace(".", "_") for name in TOOLSETS["ledger"]}
DEFAULT = {name.replace(".", "_") for name in listed_names(["core", "everyday"])}


async def enable_list_and_call(client: Client, told: Callable[[], Awaitable[None]]) -> None:
    call = WireCaller(client)
    assert {tool.name for tool in (await client.list_tools()).tools} == DEFAULT
    answer = await call.ok("memory_enable_toolsets", {"toolsets": ["ledger"]})
    assert set(answer["added"]) == LEDGER - DEFAULT
    await told()
    assert {tool.name for tool in (await client.list_tools()).tools} == DEFAULT | LEDGER
    refused = await call.error(
        "memory_get_playlist_timeline", {"user_id": 1, "playlist_id": "playlist00000000000001"}, "NOT_FOUND"
    )
    assert refused["details"] == {"field": "playlist_id"}


@asynccontextmanager
async def client_on(transport: str, mode: str, settings: Settings, workdir: Path) -> AsyncIterator[Client]:
    """The official client, on a server of its own, not yet entered."""
    async with AsyncExitStack() as stack:
        if transport == "stdio":
            flags, store_env = store_options(settings)
            parameters = StdioServerParameters(
                command=sys.executable,
                args=["-m", "host.cli", "serve", "--transport", "stdio", *flags],
                env={**store_env, "PYTHONUNBUFFERED": "1"},
                cwd=str(workdir),
            )
            errlog = stack.enter_context(open(workdir / "stdio-server.log", "w"))  # noqa: SIM115 - the stack closes it
            connect = stdio_client(parameters, errlog=errlog)
        else:
            server = stack.enter_context(running_server(settings, workdir, transport=transport))
            if transport == "sse":
                connect = sse_client(server.sse_url)
            else:
                http = await stack.enter_async_context(create_mcp_http_client())
                connect = streamable_http_client(server.mcp_url, http_client=http)
        yield Client(connect, cache=None, read_timeout_seconds=CALL_TIMEOUT, mode=mode)  # type: ignore[arg-type]


@pytest.mark.parametrize("transport", ["sse", "streamable-http", "stdio"])
async def test_a_2025_session_is_told_and_lists_more(transport: str, settings: Settings, tmp_path: Path) -> None:
    inbox = ListChanges()
    async with client_on(transport, "legacy", settings, tmp_path) as client:
        client.message_handler = inbox
        async with client:
            assert client.server_capabilities.tools.list_changed is True  # type: ignore[union-attr]
            await enable_list_and_call(client, lambda: inbox.until(1))


@pytest.mark.parametrize("transport", ["sse", "streamable-http", "stdio"])
async def test_a_2026_client_hears_of_it_on_its_listen_stream(
    transport: str, settings: Settings, tmp_path: Path
) -> None:
    async with (
        client_on(transport, "auto", settings, tmp_path) as client,
        client,
        client.listen(tools_list_changed=True) as stream,
    ):

        async def told() -> None:
            with anyio.fail_after(WAIT_SECONDS):
                assert isinstance(await anext(aiter(stream)), ToolsListChanged)

        await enable_list_and_call(client, told)
