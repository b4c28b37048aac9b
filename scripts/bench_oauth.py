#!/usr/bin/env python
"""What an OAuth access token costs a call: memory_get_profile over streamable HTTP in process
with a bearer token and with an OAuth token, beside 1 and 50 connected clients (one grant each,
approved on the page API); p50 / p95 of 200 calls after 20 warm-up.

    python scripts/bench_oauth.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.auth.tokens import TokenStore
from tests.auth.oauth.oauth_http import (
    McpSession,
    approve,
    authorize,
    exchange,
    oauth_settings,
    page_session,
    register,
    serving,
)


async def run(grants: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = oauth_settings(Path(tmp), rate_limit_per_minute=0)
        store = TokenStore(settings.tokens_path)
        async with serving(settings) as client:
            tokens = {}
            everyone, _ = store.create("user", list(range(1, grants + 1)))
            csrf = await page_session(client, everyone)
            for user in range(1, grants + 1):
                user_token, _ = store.create("user", [user])
                cid = await register(client, f"connector {user}")
                body = {"user_id": user} if grants > 1 else None
                code = await approve(client, await authorize(client, cid), csrf, body)
                tokens[user] = (user_token, (await exchange(client, cid, code)).json()["access_token"])
            for label, token in (("bearer", tokens[1][0]), ("oauth", tokens[1][1])):
                session = McpSession(client, token)
                await session.open()
                for _ in range(20):
                    await session.envelope("memory_get_profile", {"user_id": 1})
                times = []
                for _ in range(200):
                    t = time.perf_counter()
                    await session.envelope("memory_get_profile", {"user_id": 1})
                    times.append((time.perf_counter() - t) * 1000)
                times.sort()
                print(f"grants={grants:3d} {label:6s} p50 {statistics.median(times):.2f} ms p95 {times[189]:.2f} ms")


if __name__ == "__main__":
    for n in (1, 50):
        asyncio.run(run(n))
