"""``scripts/check_running.py`` against real servers, run as .ci/run and an operator run it.

Without a token on an open loopback server it succeeds (what .ci/run does); on a server with
tokens it says HTTP 401 and what to send without one, UNAUTHORIZED for a wrong one, FORBIDDEN for
a user the token does not cover, and succeeds with ``--token`` or ``MEMORY_TOKEN``; a wrong path
or nothing listening is named too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from service.settings import Settings
from tests.support.server_process import child_environment, free_port, running_server
from tests.support.tokens import create_token, token_env

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_running.py"


def check_running(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=ROOT,
        env=child_environment(env),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_an_open_loopback_server_needs_no_token(tmp_path: Path) -> None:
    with running_server(Settings(data_dir=tmp_path / "data"), tmp_path) as server:
        done = check_running(server.sse_url)
        missing = check_running(f"{server.base_url}/not-sse")
    assert done.returncode == 0, done.stderr
    assert "memory_get_profile(user_id=1) -> success=True" in done.stdout, done.stdout
    assert missing.returncode == 1
    assert "HTTP 404" in missing.stderr and "Traceback" not in missing.stderr, missing.stderr


def test_a_server_with_tokens_says_why_and_takes_a_token(tmp_path: Path) -> None:
    token_file = tmp_path / "secrets" / "tokens.json"
    token, _ = create_token(token_file, 1, label="check")
    settings = Settings(data_dir=tmp_path / "data")
    with running_server(settings, tmp_path, extra_env=token_env(token_file)) as server:
        without = check_running(server.sse_url)
        wrong = check_running(server.sse_url, "--token", "tm_000000000000_not-a-token")
        other_user = check_running(server.sse_url, "--token", token, "--user-id", "2")
        with_flag = check_running(server.sse_url, "--token", token)
        from_env = check_running(server.sse_url, env={"MEMORY_TOKEN": token})

    for refused, code in ((wrong, "UNAUTHORIZED"), (other_user, "FORBIDDEN")):
        assert refused.returncode == 1, refused
        assert f"check failed: memory_get_profile -> {code}: " in refused.stderr, refused.stderr
        assert "Traceback" not in refused.stderr
    # No token: OAuth's 401 (on by default once tokens exist), and what to send.
    assert without.returncode == 1 and "Traceback" not in without.stderr, without
    assert "HTTP 401" in without.stderr and "pass --token or set MEMORY_TOKEN" in without.stderr, without.stderr
    for accepted in (with_flag, from_env):
        assert accepted.returncode == 0, accepted.stderr
        assert "success=True" in accepted.stdout


def test_nothing_listening_is_named() -> None:
    refused = check_running(f"http://127.0.0.1:{free_port()}/sse")
    assert refused.returncode == 1
    assert "check failed:" in refused.stderr and "ConnectError" in refused.stderr, refused.stderr
