"""What the model reads before the first word of every conversation: the default listing, as the
compact JSON of each tool's name, description and input schema, within its budget, holding the
PRD's twelve tools; every description within its own. A size budget, so a test is right here."""

from __future__ import annotations

import json

import pytest

from service.settings import Settings
from tests.support import connected
from tests.tools.specs.test_toolsets import PRD_TOOLS

LISTING_BUDGET = 20_000  # bytes
DESCRIPTION_BUDGET = 400  # characters


def definition_bytes(tool: object) -> int:
    definition = {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}  # type: ignore[attr-defined]
    return len(json.dumps(definition, separators=(",", ":"), ensure_ascii=False).encode())


@pytest.mark.parametrize("style", ["plain", "dotted"])
async def test_the_default_listing_fits_its_budget_with_the_prd_tools(settings: Settings, style: str) -> None:
    async with connected(settings.model_copy(update={"tool_names": style})) as call:
        tools = (await call.client.list_tools()).tools
    names = {tool.name if style == "plain" else tool.name.replace(".", "_") for tool in tools}
    assert names >= PRD_TOOLS
    total = sum(definition_bytes(tool) for tool in tools)
    assert total <= LISTING_BUDGET, f"the default listing is {total} bytes"
    long = {
        tool.name: len(tool.description or "") for tool in tools if len(tool.description or "") > DESCRIPTION_BUDGET
    }
    assert not long, long
