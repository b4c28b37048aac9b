"""Run ``memory-service serve`` as a real process and talk to it the way a deployed agent does.

Use inside the test body, so the server is stopped however the test ends::

    with running_server(settings, tmp_path) as server:
        async with sse_session(server) as call:
            await call.ok("memory_get_profile", {"user_id": 1})

The server binds 127.0.0.1 on a free port, keeps its stderr in a log file under the test's
``tmp_path`` (a pipe nobody reads would fill up and stall it), and is terminated, then killed,
on the way out of the ``with`` block.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker
from mcp.client.client import Client
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from models.schema_files import envelope_schema, success_envelope_schema
from service.settings import Settings
from tests.support import EnvelopeCaller

HOST = "127.0.0.1"
SERVICE = [sys.executable, "-m", "host.cli"]
READY_TIMEOUT = 60.0  # seconds a server gets to answer GET /readyz 200
STOP_TIMEOUT = 10.0  # seconds between SIGTERM and SIGKILL
CALL_TIMEOUT = 30.0  # seconds one MCP request may take before the client gives up
_log_numbers = itertools.count(1)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def child_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The test process's environment without any MEMORY_* setting, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


def store_options(settings: Settings) -> tuple[list[str], dict[str, str]]:
    """CLI flags and environment that select the store ``settings`` describes."""
    if settings.mongodb_uri:
        return ["--mongodb-uri", settings.mongodb_uri], {"MEMORY_DATABASE_NAME": settings.database_name}
    return ["--data-dir", str(settings.data_dir)], {}


def store_environment(settings: Settings) -> dict[str, str]:
    """The same selection made with environment variables only."""
    if settings.mongodb_uri:
        return {"MEMORY_MONGODB_URI": settings.mongodb_uri, "MEMORY_DATABASE_NAME": settings.database_name}
    return {"MEMORY_DATA_DIR": str(settings.data_dir)}


def run_cli(
    args: Sequence[str],
    settings: Settings | None = None,
    *,
    cwd: Path,
    timeout: float = 120.0,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run one ``memory-service`` command to completion (store flags appended when given)."""
    flags, store_env = store_options(settings) if settings is not None else ([], {})
    return subprocess.run(
        [*SERVICE, *args, *flags],
        cwd=cwd,
        env=child_environment({**store_env, **(env or {})}),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


class ServerProcess:
    def __init__(self, process: subprocess.Popen[bytes], port: int, log_path: Path) -> None:
        self.process = process
        self.port = port
        self.log_path = log_path
        self.base_url = f"http://{HOST}:{port}"
        self.sse_url = f"{self.base_url}/sse"
        self.mcp_url = f"{self.base_url}/mcp"

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def stderr_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def kill(self) -> None:
        """SIGKILL: no shutdown hook runs, nothing is flushed."""
        if self.alive():
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=STOP_TIMEOUT)

    def stop(self) -> None:
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=STOP_TIMEOUT)

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if not self.alive():
                raise ServerExited(self.process.returncode, self.stderr_text())
            status, _ = http_get(f"{self.base_url}/readyz")
            if status == 200:
                return
            if time.monotonic() > deadline:
                raise ServerNotReady(timeout, status, self.stderr_text())
            time.sleep(0.05)


class ServerExited(Exception):
    def __init__(self, returncode: int, stderr: str) -> None:
        super().__init__(f"server exited with {returncode} before it was ready; its stderr:\n{stderr[-6000:]}")
        self.returncode = returncode
        self.stderr = stderr


class ServerNotReady(Exception):
    def __init__(self, timeout: float, status: int | None, stderr: str) -> None:
        super().__init__(
            f"GET /readyz did not answer 200 within {timeout:.0f}s (last status {status}); "
            f"server stderr:\n{stderr[-6000:]}"
        )


def _spawn(args: list[str], env: dict[str, str], cwd: Path, port: int) -> ServerProcess:
    log_path = cwd / f"server-{next(_log_numbers)}-{port}.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
        )
    return ServerProcess(process, port, log_path)


@contextmanager
def running_server(
    settings: Settings,
    workdir: Path,
    *,
    transport: str = "sse",
    extra_args: Sequence[str] = (),
    extra_env: dict[str, str] | None = None,
    env_only: bool = False,
) -> Iterator[ServerProcess]:
    """Start ``serve`` on a free loopback port, wait for GET /readyz 200, always stop it.

    ``env_only`` passes every setting as a MEMORY_* environment variable instead of a flag.
    A port taken between probing and binding is retried with another one.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    for attempt in itertools.count(1):
        port = free_port()
        if env_only:
            args = [*SERVICE, "serve", *extra_args]
            env = child_environment(
                {
                    "MEMORY_TRANSPORT": transport,
                    "MEMORY_HOST": HOST,
                    "MEMORY_PORT": str(port),
                    **store_environment(settings),
                    **(extra_env or {}),
                }
            )
        else:
            flags, store_env = store_options(settings)
            args = [
                *SERVICE,
                "serve",
                "--transport",
                transport,
                "--host",
                HOST,
                "--port",
                str(port),
                *flags,
                *extra_args,
            ]
            env = child_environment({**store_env, **(extra_env or {})})
        server = _spawn(args, env, workdir, port)
        try:
            try:
                server.wait_ready()
            except ServerExited as exc:
                if attempt < 3 and "address already in use" in exc.stderr.lower():
                    continue
                pytest.fail(str(exc), pytrace=False)
            except ServerNotReady as exc:
                pytest.fail(str(exc), pytrace=False)
            yield server
            return
        finally:
            server.stop()


def http_get(url: str) -> tuple[int | None, Any]:
    """(status, parsed JSON body or text); status None when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            status, body, ctype = response.status, response.read(), response.headers.get("content-type", "")
    except urllib.error.HTTPError as exc:
        status, body, ctype = exc.code, exc.read(), exc.headers.get("content-type", "")
    except (urllib.error.URLError, OSError):
        return None, None
    if "json" in ctype:
        return status, json.loads(body)
    return status, body.decode(errors="replace")


# --- MCP over the wire -------------------------------------------------------------------

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


def assert_rederive_clean(settings: Settings, workdir: Path) -> dict[str, Any]:
    """Issue 12's "done when": after a flow (its server stopped), ``memory-service rederive`` finds
    every derived view as the records say: exit 0, no difference. Returns the report."""
    done = run_cli(["rederive", "--json"], settings, cwd=workdir)
    assert done.returncode == 0, f"rederive found differences (exit {done.returncode}):\n{done.stdout}\n{done.stderr}"
    assert "no difference" in done.stderr, done.stderr
    report = json.loads(done.stdout)
    assert report["differences"] == 0 and report["users"], report
    return report


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
