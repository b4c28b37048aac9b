"""The tool list a client sees: names, titles, hints, schemas."""

from __future__ import annotations

import re

from models.schema_files import input_schema
from service.settings import Settings
from tests.support import connected, every_tool
from tools.server import wire_name
from tools.specs.catalog import TOOL_SPECS

WIRE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


async def test_default_tool_names_are_safe_for_claude_and_openai(settings: Settings) -> None:
    async with connected(settings) as call:
        listed = await every_tool(call.client)
    names = {t.name for t in listed}
    assert names == {wire_name(s.prd_name) for s in TOOL_SPECS}
    # The PRD's eleven memory tools, ops.list_users and ops.audit, ten ledger-move, insight and catalog
    # tools, five typed-memory tools, nine control tools (switches, pause, status, context, import,
    # choice, explain, forget, inspect), the timeline, the two conflict tools and memory_enable_toolsets.
    assert len(names) == 42
    for tool in listed:
        assert WIRE_NAME.match(tool.name), tool.name
        assert tool.title and tool.description and len(tool.description) > 80
        hints = tool.annotations
        assert hints is not None
        for hint in (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint, hints.open_world_hint):
            assert hint is not None
        assert hints.open_world_hint is False


async def test_published_input_schema_is_the_prd_schema(settings: Settings) -> None:
    async with connected(settings) as call:
        listed = {t.name: t for t in await every_tool(call.client)}
    for spec in TOOL_SPECS:
        published = listed[wire_name(spec.prd_name)].input_schema
        assert published == input_schema(spec.prd_name)
        assert published["additionalProperties"] is False


async def test_dotted_names_on_request(settings: Settings) -> None:
    dotted = settings.model_copy(update={"tool_names": "dotted"})
    async with connected(dotted) as call:
        names = {t.name for t in (await call.client.list_tools()).tools}
        assert "memory.get_profile" in names and "ops.list_users" in names
        result = await call.ok("memory.get_profile", {"user_id": 3})
    assert result == {"user_id": 3, "profile": {}, "version": 0, "updated_at": None}
