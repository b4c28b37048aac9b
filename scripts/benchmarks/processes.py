"""Servers as subprocesses on free loopback ports (always stopped), and MCP clients to them."""

from __future__ import annotations

import contextlib
import functools
import os
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx2
from mcp.client.client import Client
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

from host.running import ServiceHolder, running_service
from service.facade import MemoryService
from service.settings import Settings
from tools.server import create_mcp_server

from .calling import BenchError, Call, client_caller
from .constants import CALL_TIMEOUT, HOST, ROOT


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    # The caller's MEMORY_* settings must not leak into a measured server: every row states its own.
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update(extra or {})
    return env


def serve_args(data_dir: Path, port: int) -> list[str]:
    """``memory-service serve`` over SSE (the default transport), as an operator starts it."""
    return [
        sys.executable,
        "-m",
        "host.cli",
        "serve",
        "--transport",
        "sse",
        "--host",
        HOST,
        "--port",
        str(port),
        "--data-dir",
        str(data_dir),
    ]


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def answers_ready(port: int, ready_path: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}{ready_path}", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def accepts_connections(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        return probe.connect_ex((HOST, port)) == 0


@contextlib.contextmanager
def spawned(args: list[str], log_path: Path, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """A subprocess logging to ``log_path``, stopped (terminate, then kill) however the block ends."""
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            args,
            cwd=log_path.parent,
            env=child_env(env),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        yield process
    finally:
        _stop(process)


def wait_until(
    process: subprocess.Popen[bytes],
    ready: Callable[[], bool],
    log_path: Path,
    timeout: float = 60.0,
    poll: float = 0.05,
) -> float:
    """Poll ``ready()`` until it holds; seconds waited. A process that exits or never gets ready
    fails the run with the end of its log."""
    began = time.monotonic()
    while not ready():
        if process.poll() is not None:
            raise BenchError(f"{process.args} exited with {process.returncode}: {log_path.read_text()[-3000:]}")
        if time.monotonic() - began > timeout:
            raise BenchError(f"{process.args} not ready after {timeout:.0f} s: {log_path.read_text()[-3000:]}")
        time.sleep(poll)
    return time.monotonic() - began


@contextlib.contextmanager
def http_server(
    args: list[str], port: int, log_path: Path, ready: Callable[[], bool], env: dict[str, str] | None = None
) -> Iterator[str]:
    """Start a server subprocess, wait until ``ready()`` holds (60 s at most), always stop it."""
    with spawned(args, log_path, env) as process:
        wait_until(process, ready, log_path)
        yield f"http://{HOST}:{port}"


@contextlib.contextmanager
def service_process(
    data_dir: Path, work: Path, env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``memory-service serve`` on ``data_dir``; yields its base URL and process once /readyz answers."""
    port = free_port()
    log_path = work / f"service-{port}.log"
    with spawned(serve_args(data_dir, port), log_path, env) as process:
        wait_until(process, lambda: answers_ready(port, "/readyz"), log_path)
        yield f"http://{HOST}:{port}", process


@contextlib.contextmanager
def service_http(data_dir: Path, work: Path, env: dict[str, str] | None = None) -> Iterator[str]:
    """``memory-service serve`` on ``data_dir``; yields its base URL once /readyz answers."""
    with service_process(data_dir, work, env) as (base, _):
        yield base


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds a process has used so far (/proc/PID/stat), None off Linux."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def service_sse(data_dir: Path, work: Path) -> Iterator[str]:
    with service_http(data_dir, work) as base:
        yield f"{base}/sse"


@contextlib.contextmanager
def floor_sse(work: Path) -> Iterator[str]:
    port = free_port()
    args = [sys.executable, str(ROOT / "scripts" / "bench_floor_server.py"), "sse", str(port)]
    # The floor server has no /readyz: it is ready once its port accepts a connection.
    with http_server(args, port, work / f"floor-{port}.log", lambda: accepts_connections(port)) as base:
        yield f"{base}/sse"


@functools.cache
def _tls() -> ssl.SSLContext:
    return httpx2.create_ssl_context()


def http_client(
    headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: httpx2.Auth | None = None
) -> httpx2.AsyncClient:
    """The SDK's ``create_mcp_http_client`` (same timeouts, headers, auth) with one TLS context for
    every client of the run: httpx builds one per client otherwise, reading the CA bundle each time
    (about 50 ms of this process's CPU per session, unused on the loopback's plain HTTP)."""
    default = httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT)
    return httpx2.AsyncClient(timeout=timeout or default, headers=headers, auth=auth, verify=_tls())


@contextlib.asynccontextmanager
async def sse_clients(
    url: str, n: int, headers: list[dict[str, str] | None] | None = None, timeout: float = CALL_TIMEOUT
) -> AsyncIterator[list[Client]]:
    """``n`` SSE sessions, the i-th with ``headers[i]`` (a bearer token), all closed on the way out."""
    async with contextlib.AsyncExitStack() as stack:
        clients = []
        for i in range(n):
            transport = sse_client(url, headers=headers[i] if headers else None, httpx_client_factory=http_client)
            client = Client(transport, cache=None, read_timeout_seconds=timeout)
            await stack.enter_async_context(client)
            clients.append(client)
        yield clients


@contextlib.asynccontextmanager
async def sse_callers(url: str, n: int) -> AsyncIterator[list[Call]]:
    async with sse_clients(url, n) as clients:
        yield [client_caller(client) for client in clients]


@contextlib.asynccontextmanager
async def stdio_caller(params: StdioServerParameters, errlog: Path) -> AsyncIterator[tuple[Call, Client]]:
    with open(errlog, "a") as err:
        client = Client(stdio_client(params, errlog=err), cache=None, read_timeout_seconds=CALL_TIMEOUT)
        async with client:
            yield client_caller(client), client


@contextlib.asynccontextmanager
async def in_process(data_dir: Path, journal: bool = True) -> AsyncIterator[tuple[Call, MemoryService]]:
    """The service and its MCP server in this process, called through the in-memory client."""
    holder = ServiceHolder()
    server = create_mcp_server(holder, "plain")
    async with (
        running_service(Settings(data_dir=data_dir, journal=journal), holder) as service,
        Client(server, cache=None, read_timeout_seconds=CALL_TIMEOUT) as client,
    ):
        yield client_caller(client), service
