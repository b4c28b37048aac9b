"""The documented client setups, each started exactly as its snippet says.

tests/clients/setups.py reads the snippets (docs/CLIENTS.md, and the one the README shows) the way
the clients read them. A stdio entry runs its
own command, arguments and environment under the Python SDK's stdio client; a URL entry gets
``memory-service serve`` with the transport its path names, on a free port in place of the docs'
8765, and the matching Python client at that URL. Entries that launch the same way are checked once
(every stdio snippet is the same command). The Inspector's lines also run through the Inspector CLI
itself, pinned in tests/clients/inspector, when node and npm are there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from service.settings import DEFAULT_TOOLSETS, Settings
from tests.clients.node_package import INSPECTOR, skip_without_node
from tests.clients.setups import PLACEHOLDER, Launch, launches, snippets, snippets_by_file
from tests.support import every_tool
from tests.support.mcp_sessions import WireCaller, _session, sse_session, streamable_http_session
from tests.support.server_process import CALL_TIMEOUT, running_server
from tools.specs.catalog import TOOL_SPECS, listed_names

pytestmark = pytest.mark.slow

CLIENTS = {"claude-desktop", "claude-code", "cursor", "vscode", "inspector"}
SERVICE_BIN = Path(sys.executable).parent / "memory-service"  # what /path/to/taste-memory/.venv/bin holds
INSPECTOR_TIMEOUT = 90.0


def _distinct() -> dict[tuple[object, ...], list[Launch]]:
    grouped: dict[tuple[object, ...], list[Launch]] = {}
    for launch in launches():
        key = (launch.command, tuple(launch.args), tuple(sorted(launch.env.items())), launch.transport, launch.url)
        grouped.setdefault(key, []).append(launch)
    return grouped


DISTINCT = list(_distinct().values())


def _id(group: list[Launch]) -> str:
    return f"{group[0].transport}[{','.join(sorted({launch.client for launch in group}))}]"


def placed(word: str, data_dir: Path) -> str:
    """The docs' placeholders, as their text tells the reader to fill them in; nothing else changes."""
    if PLACEHOLDER not in word:
        return word
    replaced = word.replace(f"{PLACEHOLDER}/.venv/bin/memory-service", str(SERVICE_BIN))
    replaced = replaced.replace(f"{PLACEHOLDER}/data", str(data_dir))
    assert PLACEHOLDER not in replaced, f"a placeholder the docs do not explain: {word}"
    return replaced


def test_the_docs_set_up_every_client_over_stdio_and_http() -> None:
    by_file = snippets_by_file()
    assert set(by_file["CLIENTS.md"]) == CLIENTS, "docs/CLIENTS.md shows every client"
    assert set(by_file["README.md"]) == {"claude-code"}, "the README shows one client and points to docs/CLIENTS.md"
    assert set(snippets()) == CLIENTS
    kinds = {(launch.client, "stdio" if launch.command else "http") for launch in launches()}
    assert kinds == {(client, kind) for client in CLIENTS for kind in ("stdio", "http")} - {("claude-desktop", "http")}
    assert SERVICE_BIN.exists(), f"{SERVICE_BIN}: the console script `pip install -e .` provides"


@asynccontextmanager
async def stdio_as_written(launch: Launch, tmp_path: Path) -> AsyncIterator[WireCaller]:
    data_dir = tmp_path / "data"
    parameters = StdioServerParameters(
        command=placed(launch.command or "", data_dir),
        args=[placed(arg, data_dir) for arg in launch.args],
        env={name: placed(value, data_dir) for name, value in launch.env.items()},  # over the SDK's safe defaults
        cwd=str(tmp_path),
    )
    with open(tmp_path / "stdio-server.log", "w") as errlog:
        async with _session(
            Client(stdio_client(parameters, errlog=errlog), cache=None, read_timeout_seconds=CALL_TIMEOUT)
        ) as call:
            yield call


async def check_calls(call: WireCaller) -> None:
    tools = await every_tool(call.client)
    assert len(tools) == len(TOOL_SPECS)
    profile = await call.ok("memory_get_profile", {"user_id": 1})
    assert profile["version"] == 0


@pytest.mark.parametrize("group", DISTINCT, ids=_id)
async def test_each_setup_starts_and_answers(group: list[Launch], tmp_path: Path) -> None:
    launch = group[0]
    if launch.command is not None:
        async with stdio_as_written(launch, tmp_path) as call:
            await check_calls(call)
        assert (tmp_path / "data").is_dir(), "the server did not use the data directory the snippet names"
        return
    with running_server(Settings(data_dir=tmp_path / "data"), tmp_path, transport=launch.transport) as server:
        url = launch.url.replace(f":{launch.port()}", f":{server.port}")  # type: ignore[union-attr]
        assert url in (server.sse_url, server.mcp_url), url
        session = sse_session(server) if url == server.sse_url else streamable_http_session(server)
        async with session as call:
            await check_calls(call)


def run_inspector(argv: list[str], data_dir: Path, port: int | None, cwd: Path) -> dict[str, object]:
    assert argv[:2] == ["npx", "@modelcontextprotocol/inspector"]
    words = [placed(word, data_dir) for word in argv[2:]]
    if port is not None:
        words = [word.replace(":8765", f":{port}") for word in words]
    command = [str(INSPECTOR.directory / "node_modules" / ".bin" / "mcp-inspector"), *words]
    done = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=INSPECTOR_TIMEOUT, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return json.loads(done.stdout)


@skip_without_node
@pytest.mark.parametrize(
    "launch", [launch for launch in launches() if launch.client == "inspector"], ids=lambda launch: launch.transport
)
def test_the_inspector_lines_run_in_the_inspector(launch: Launch, tmp_path: Path) -> None:
    INSPECTOR.ensure_installed()
    data_dir = tmp_path / "data"
    if launch.command is not None:
        listed = run_inspector(launch.argv, data_dir, None, tmp_path)
    else:
        with running_server(Settings(data_dir=data_dir), tmp_path, transport=launch.transport) as server:
            listed = run_inspector(launch.argv, data_dir, server.port, tmp_path)
    names = {tool["name"] for tool in listed["tools"]}  # type: ignore[index, union-attr]
    assert names == {name.replace(".", "_") for name in listed_names(DEFAULT_TOOLSETS)}  # a session's start
