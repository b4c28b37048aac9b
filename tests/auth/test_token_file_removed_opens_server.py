"""A server listening beyond loopback stays closed when its token file disappears.

``serve`` refuses to start on a non-loopback address without a token (README, Security); at run
time the open mode must not be decided per call from the file alone (``BearerTokens.resolve``), or
once the file is gone (an operator moves or deletes it, a secrets volume is remounted empty) any
caller reaching the port with no token at all would read, write and delete every user's memory.
Checked by binding 0.0.0.0 (the container case) and removing the file while the server runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from service.settings import Settings
from tests.support.mcp_sessions import sse_session
from tests.support.server_process import running_server
from tests.support.tokens import create_token, token_env

pytestmark = pytest.mark.slow

ALICE = 1


async def test_a_non_loopback_server_stays_closed_when_its_token_file_disappears(
    settings: Settings, tmp_path: Path
) -> None:
    token_file = tmp_path / "secrets" / "tokens.json"
    alice, _ = create_token(token_file, ALICE)
    # The last --host wins: listen on every interface (reached here through 127.0.0.1).
    with running_server(
        settings, tmp_path, extra_args=["--host", "0.0.0.0"], extra_env=token_env(token_file)
    ) as server:
        async with sse_session(server, alice) as call:
            await call.ok("memory_update_profile", {"user_id": ALICE, "patch": {"private": "yes"}})
        async with sse_session(server) as call:
            await call.error("memory_get_profile", {"user_id": ALICE}, "UNAUTHORIZED")
        token_file.rename(token_file.with_name("tokens.json.moved"))
        async with sse_session(server) as call:
            await call.error("memory_get_profile", {"user_id": ALICE}, "UNAUTHORIZED")
            await call.error("memory_delete_user_data", {"user_id": ALICE, "confirm": True}, "UNAUTHORIZED")
            await call.error("ops_list_users", {}, "UNAUTHORIZED")
