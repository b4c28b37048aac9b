"""Run ``memory-service serve`` (or any other command) as a real process, as an operator does.

Use inside the test body, so the server is stopped however the test ends, and talk to it with
``tests/support/mcp_sessions.py``. The server binds 127.0.0.1 on a free port, keeps its stderr
in a log file under the test's ``tmp_path`` (a pipe nobody reads would fill up and stall it), and
is terminated, then killed, on the way out of the ``with`` block.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from service.settings import Settings

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


def assert_rederive_clean(settings: Settings, workdir: Path) -> dict[str, Any]:
    """After a flow (its server stopped), ``memory-service rederive`` finds every derived view as
    the records say: exit 0, no difference. Returns the report."""
    done = run_cli(["rederive", "--json"], settings, cwd=workdir)
    assert done.returncode == 0, f"rederive found differences (exit {done.returncode}):\n{done.stdout}\n{done.stderr}"
    assert "no difference" in done.stderr, done.stderr
    report = json.loads(done.stdout)
    assert report["differences"] == 0 and report["users"], report
    return report
