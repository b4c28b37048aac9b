"""One start-of-session recipe: the tools the server's instructions start a session with are the
tools whose descriptions say to call them at the start, and the instructions say how to reach the
tools a session does not list."""

from __future__ import annotations

import re

from service.settings import Settings
from tests.support import connected, every_tool
from tools.specs.catalog import TOOLSETS

TOOL_NAME = re.compile(r"\b(?:memory|ops)_[a-z_]+\b")
AT_THE_START = re.compile(r"^Call (first in every session|at the start of a session)")


async def test_instructions_and_descriptions_give_one_recipe(settings: Settings) -> None:
    async with connected(settings) as call:
        instructions = call.client.instructions or ""
        tools = await every_tool(call.client)
    step_one = instructions.split("\n1. ", 1)[1].split("\n2. ", 1)[0]
    first_sentence = step_one.split("Later,", 1)[0]
    started_with = set(TOOL_NAME.findall(first_sentence))
    said_to_start = {tool.name for tool in tools if AT_THE_START.match(tool.description or "")}
    assert started_with == said_to_start == {"ops_list_users", "memory_get_context"}
    context = next(tool for tool in tools if tool.name == "memory_get_context")
    assert "after ops_list_users" in (context.description or "")


async def test_the_instructions_name_the_door_and_every_toolset_beyond_the_default(settings: Settings) -> None:
    async with connected(settings) as call:
        instructions = call.client.instructions or ""
        listed = {tool.name for tool in (await call.client.list_tools()).tools}
    assert "memory_enable_toolsets" in listed and "memory_enable_toolsets" in instructions
    door = next(line for line in instructions.splitlines() if "memory_enable_toolsets" in line)
    door_step = instructions[instructions.index(door) :].split("\nEvery answer", 1)[0]
    for toolset in set(TOOLSETS) - set(settings.toolsets):
        assert re.search(rf"\b{toolset}\b", door_step), toolset
