"""MEMORY_TOOLSETS: what a session lists at start; core is the PRD contract, the default adds what
most conversations need, and the door to the rest (memory_enable_toolsets) is always listed."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.settings import Settings
from tests.support import connected
from tests.support.server_process import run_cli
from tools.specs.catalog import TOOL_SPECS, TOOLSETS
from tools.specs.toolsets import ENABLE_TOOLSETS

# The PRD's tools (seed 000): its eleven memory tools and ops.list_users.
PRD_TOOLS = {
    "ops_list_users",
    "memory_get_profile",
    "memory_update_profile",
    "memory_append_preference_event",
    "memory_log_playlist_create",
    "memory_log_playlist_mutation",
    "memory_get_playlists",
    "memory_get_playlist",
    "memory_reconstruct_playlist",
    "memory_search",
    "memory_export_user_data",
    "memory_delete_user_data",
}


DOOR = ENABLE_TOOLSETS.replace(".", "_")


async def listed(settings: Settings) -> set[str]:
    async with connected(settings) as call:
        return {tool.name for tool in (await call.client.list_tools()).tools}


async def test_core_lists_exactly_the_prd_tools(settings: Settings) -> None:
    assert await listed(settings.model_copy(update={"toolsets": ["core"]})) == PRD_TOOLS | {DOOR}


async def test_the_default_lists_the_prd_tools_and_the_everyday_ones(settings: Settings) -> None:
    everyday = {"memory_get_context", "memory_open_followups", "memory_add", "memory_query", "memory_resolve_track"}
    assert await listed(settings) == PRD_TOOLS | everyday | {DOOR}


async def test_all_lists_every_tool(settings: Settings) -> None:
    every = {spec.prd_name.replace(".", "_") for spec in TOOL_SPECS}
    assert await listed(settings.model_copy(update={"toolsets": Settings(toolsets="all").toolsets})) == every


@pytest.mark.parametrize("name", sorted(TOOLSETS))
async def test_each_toolset_lists_its_tools_and_nothing_else(settings: Settings, name: str) -> None:
    names = await listed(settings.model_copy(update={"toolsets": [name]}))
    assert names == {prd.replace(".", "_") for prd in TOOLSETS[name]} | {DOOR}


async def test_toolsets_combine_and_every_tool_is_in_one() -> None:
    combined = Settings(toolsets="core, ops").toolsets
    assert combined == ["core", "ops"]
    assert set().union(*TOOLSETS.values()) | {ENABLE_TOOLSETS} == {spec.prd_name for spec in TOOL_SPECS}
    assert Settings(toolsets="all").toolsets == sorted(TOOLSETS, key=list(TOOLSETS).index)


@pytest.mark.parametrize("value", ["bogus", "core,nope", ","])
def test_unknown_toolsets_are_refused_at_start(value: str, tmp_path: Path) -> None:
    done = run_cli(
        ["serve"], Settings(data_dir=tmp_path / "data"), cwd=tmp_path, env={"MEMORY_TOOLSETS": value}, timeout=60
    )
    assert done.returncode != 0
    assert "toolsets" in done.stderr
