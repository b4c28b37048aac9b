"""The README's five-call walkthrough, run for real: ``python scripts/walkthrough.py``.

Starts ``memory-service serve`` on a free loopback port with a fresh data directory, makes five
calls with the official MCP Python client over SSE, prints each call and the envelope it answered
(the block the README shows), and stops the server. Ids and times differ from run to run.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from mcp.client.client import Client
from mcp.client.sse import sse_client

# The five calls of the README: the playbook's bootstrap, a profile rule, a playlist logged as it was
# made, one edit of it, and its contents read back from memory as they were before that edit.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("ops_list_users", {}),
    (
        "memory_update_profile",
        {
            "user_id": 1,
            "patch": {"playlist_rules": {"max_tracks_per_artist": 2}, "avoid": ["christmas music"]},
            "reason": "User feedback: no more than two songs per artist, and no Christmas songs",
            "source": "user",
        },
    ),
    (
        "memory_log_playlist_create",
        {
            "user_id": 1,
            "playlist_id": "37i9dQZF1DXcBWIGoYBM5M",
            "name": "Friday drive",
            "track_ids": ["4uLU6hMCjMI75M1A2tKUQC", "7ouMYWpwJ422jRcDASZB7P", "0VjIjW4GlUZAMYd2vXMi3b"],
            "intent_tags": ["upbeat"],
            "created_at": "2026-01-09T18:00:00Z",
            "idempotency_key": "friday-drive-2026-01-09",
        },
    ),
    (
        "memory_log_playlist_mutation",
        {
            "user_id": 1,
            "playlist_id": "37i9dQZF1DXcBWIGoYBM5M",
            "type": "REMOVE_TRACKS",
            "payload": {"track_ids": ["7ouMYWpwJ422jRcDASZB7P"]},
            "timestamp": "2026-01-10T09:30:00Z",
            "client_event_id": "0b8f4f3e-5d0c-4a57-9a43-4d8a7d3c1e21",
        },
    ),
    (
        "memory_reconstruct_playlist",
        {"user_id": 1, "playlist_id": "37i9dQZF1DXcBWIGoYBM5M", "at_time": "2026-01-09T20:00:00Z"},
    ),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def service_command() -> list[str]:
    """The virtualenv's console script, as the README runs it (``python -m host.cli`` without one)."""
    script = Path(sys.executable).parent / "memory-service"
    return [str(script)] if script.exists() else [sys.executable, "-m", "host.cli"]


def wait_ready(base_url: str, server: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"memory-service serve exited with {server.returncode} before it was ready")
        try:
            with urllib.request.urlopen(f"{base_url}/readyz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.1)
    raise SystemExit(f"{base_url}/readyz did not answer 200 within {timeout:.0f} s")


async def run_calls(url: str) -> list[str]:
    lines = []
    async with Client(sse_client(url)) as client:
        for tool, arguments in CALLS:
            result = await client.call_tool(tool, arguments)
            lines.append(f">>> {tool} {json.dumps(arguments, ensure_ascii=False)}")
            lines.append(json.dumps(result.structured_content, ensure_ascii=False))
    return lines


def main() -> int:
    data_dir = Path(tempfile.mkdtemp(prefix="tm-walkthrough-"))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    command = [*service_command(), "serve", "--port", str(port), "--data-dir", str(data_dir / "data")]
    with open(data_dir / "serve.log", "wb") as log:
        server = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_ready(f"http://127.0.0.1:{port}", server)
        lines = asyncio.run(run_calls(f"http://127.0.0.1:{port}/sse"))
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        shutil.rmtree(data_dir, ignore_errors=True)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
