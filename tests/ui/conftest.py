"""The browser tests' world: one server whose tokens were made with ``memory-service token create``
and one browser, per test module (and worker); each token gets its own browser context.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.support.backends import make_settings
from tests.support.server_process import running_server
from tests.support.tokens import create_token, token_env
from tests.ui.browser import launch
from tests.ui.page_world import (
    EXPORTED,
    GONE,
    HOSTILE_USER,
    KEPT,
    NEVER,
    OTHER,
    PAGES,
    SIGHT,
    TIMELINE,
    UPLOAD_LIMIT,
    WORDS,
    World,
)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    workdir = tmp_path_factory.mktemp("ui-browser")
    settings = make_settings("embedded", workdir / "data")
    token_file = workdir / "secrets" / "tokens.json"

    def make_tokens() -> dict[str, str]:
        # One file, so one after the other; the server re-reads it, so it may start meanwhile.
        return {
            "main": create_token(
                token_file, KEPT, HOSTILE_USER, NEVER, PAGES, EXPORTED, GONE, TIMELINE, WORDS, SIGHT, label="page tests"
            )[0],
            "other": create_token(token_file, OTHER)[0],
        }

    # Uploads up to 8 MiB, so the history card's own size check can be seen before a file is sent.
    limits = {"MEMORY_MAX_HISTORY_UPLOAD_BYTES": str(UPLOAD_LIMIT)}
    serving = running_server(settings, workdir, transport="sse", extra_env={**token_env(token_file), **limits})
    async with launch() as browser:
        tokens, server = await asyncio.gather(asyncio.to_thread(make_tokens), asyncio.to_thread(serving.__enter__))
        try:
            yield World(server, browser, tokens)
        finally:
            await asyncio.to_thread(serving.__exit__, None, None, None)
