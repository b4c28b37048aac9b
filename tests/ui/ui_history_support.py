"""The page's history Import as its tests drive it: an upload, the job polled until it ends, a tool
call whose answer is checked against the tool's published schemas, and what uploads left on disk."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx

from host.app import build_app
from service.settings import Settings
from tests.support.contract import assert_valid_success
from tests.ui.test_ui_http import ORIGIN, call
from ui.uploads import PREFIX, upload_root

POLL_S = 0.1
WAIT_S = 60.0


@asynccontextmanager
async def two_browsers(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    """One app (the store open once), two clients with cookie jars of their own."""
    app, _, _ = build_app(settings)
    transport = httpx.ASGITransport(app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url=ORIGIN) as first,
        httpx.AsyncClient(transport=transport, base_url=ORIGIN) as second,
    ):
        yield first, second


async def upload(
    client: httpx.AsyncClient, user_id: int, body: bytes | AsyncIterator[bytes], csrf: str | None, **query: str
) -> httpx.Response:
    headers = {"Content-Type": "application/octet-stream"}
    if csrf is not None:
        headers["X-CSRF-Token"] = csrf
    params = {"user_id": str(user_id), **query}
    return await client.post("/ui/api/history-imports", params=params, content=body, headers=headers)


async def finished(client: httpx.AsyncClient, job_id: str) -> dict[str, Any]:
    """The job's answer once it is no longer running."""
    for _ in range(int(WAIT_S / POLL_S)):
        answer = await backing_off(lambda: client.get(f"/ui/api/history-imports/{job_id}"))
        assert answer.status_code == 200, answer.text
        job: dict[str, Any] = answer.json()
        assert set(job) >= {"job_id", "user_id", "state", "read", "total", "file"}, job
        if job["state"] != "running":
            assert ("report" in job) == (job["state"] == "done") and ("error" in job) == (job["state"] == "failed")
            return job
        await asyncio.sleep(POLL_S)
    raise AssertionError(f"import {job_id} still running after {WAIT_S}s")


async def backing_off(send: Callable[[], Awaitable[httpx.Response]]) -> httpx.Response:
    """``send()`` again after the wait a ``RATE_LIMITED`` answer names, as a client must."""
    for _ in range(50):
        answer = await send()
        if answer.status_code != 429:
            return answer
        await asyncio.sleep(float(answer.json()["error"]["details"]["retry_after_s"]))
    raise AssertionError("still rate limited after 50 waits")


async def ok(client: httpx.AsyncClient, tool: str, arguments: dict[str, Any], csrf: str) -> Any:
    """A page tool call that succeeded, its envelope and result valid by the published schemas."""
    answer = await call(client, tool, arguments, csrf)
    assert answer.status_code == 200, answer.text
    return assert_valid_success(tool.replace("_", ".", 1), answer.json())


def leftovers(settings: Settings) -> list[str]:
    """Uploads still on disk (the test's own: on MongoDB the system folder is the test's, patched)."""
    root, _ = upload_root(settings)
    return sorted(p.name for p in root.iterdir() if p.name.startswith(PREFIX)) if root.is_dir() else []
