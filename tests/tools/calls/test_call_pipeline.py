"""The one call pipeline: a tool call, a resource read and a prompt pass the same gates in the same
place (identity, rate limit, metrics, log line), each refusing in its own form: an envelope, or a
JSON-RPC error naming the PRD code."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError

from host.running import ServiceHolder, running_service
from service.auth.policy import Principal
from service.auth.ratelimit import RateLimiter
from service.settings import Settings
from tools.calls.policy import CallPolicy
from tools.server import create_mcp_server

PROMPT = ("start_session", {"user_id": "1"})


class Switchable:
    """An identity that verifies the machine's own user until told nobody is calling."""

    def __init__(self) -> None:
        self.who: Principal | None = Principal(name="tester", role="operator", user_ids=frozenset())

    def resolve(self, context: Any) -> Principal | None:
        return self.who


class Recorded:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str | None]] = []

    def observe(self, name: str, seconds: float, error_code: str | None) -> None:
        self.calls.append((name, error_code))


@asynccontextmanager
async def client(settings: Settings, policy: CallPolicy) -> AsyncIterator[Client]:
    holder = ServiceHolder()
    server = create_mcp_server(holder, "plain", policy)
    async with running_service(settings, holder), Client(server) as connected:
        yield connected


async def test_every_surface_refuses_a_caller_nobody_verified(settings: Settings) -> None:
    identity, metrics = Switchable(), Recorded()
    async with client(settings, CallPolicy(identity=identity, metrics=metrics)) as mcp:
        assert (await mcp.get_prompt(*PROMPT)).messages  # verified: served
        identity.who = None
        answer = await mcp.call_tool("memory_get_profile", {"user_id": 1})
        assert answer.is_error and answer.structured_content["error"]["code"] == "UNAUTHORIZED"
        for refused in (lambda: mcp.read_resource("memory://users/1/profile"), lambda: mcp.get_prompt(*PROMPT)):
            with pytest.raises(MCPError) as caught:
                await refused()
            assert caught.value.error.data["code"] == "UNAUTHORIZED"
    assert metrics.calls == [
        ("prompt.start_session", None),
        ("memory.get_profile", "UNAUTHORIZED"),
        ("resource.profile", "UNAUTHORIZED"),
        ("prompt.start_session", "UNAUTHORIZED"),
    ]


async def test_one_rate_limit_counts_tools_resources_and_prompts(settings: Settings) -> None:
    policy = CallPolicy(identity=Switchable(), limiter=RateLimiter(1, 3))  # 1 a minute after a burst of 3
    async with client(settings, policy) as mcp:
        assert not (await mcp.call_tool("memory_get_profile", {"user_id": 1})).is_error
        await mcp.read_resource("memory://users/1/profile")
        await mcp.get_prompt(*PROMPT)  # the burst of 3 is spent across the three surfaces
        with pytest.raises(MCPError) as caught:
            await mcp.get_prompt(*PROMPT)
        assert caught.value.error.data["code"] == "RATE_LIMITED" and caught.value.error.data["retry_after_s"] > 0
        answer = await mcp.call_tool("memory_get_profile", {"user_id": 1})
        assert answer.structured_content["error"]["code"] == "RATE_LIMITED"


async def test_a_prompt_is_logged_on_one_line_like_a_call(settings: Settings, caplog: pytest.LogCaptureFixture) -> None:
    async with client(settings, CallPolicy(identity=Switchable())) as mcp:
        with caplog.at_level(logging.INFO, logger="taste_memory.calls"):
            await mcp.get_prompt(*PROMPT)
            with pytest.raises(MCPError):
                await mcp.get_prompt("start_session", {"user_id": "zero"})
    lines = [r for r in caplog.records if r.getMessage() == "prompt"]
    assert [(r.prompt, r.success, r.error_code, r.principal) for r in lines] == [  # type: ignore[attr-defined]
        ("start_session", True, None, "tester"),
        ("start_session", False, "INVALID_ARGUMENT", "tester"),
    ]
