"""The playbook prompts through the MCP client: listed with their arguments, rendered with the
user's values, naming only tools the session lists or enables in its first step, and clear about
bad arguments.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from service.settings import Settings
from tests.support import connected
from tools.specs.catalog import TOOLSETS

FIVE = {
    "start_session",
    "remember_preference",
    "make_playlist_under_my_rules",
    "what_was_in_that_playlist",
    "follow_up_recommendations",
}

# Arguments that exercise every branch of every prompt (optional ones given and left out).
ARGUMENTS: list[tuple[str, dict[str, str]]] = [
    ("start_session", {}),
    ("start_session", {"user_id": "1", "focus": "Nightwish"}),
    ("remember_preference", {"user_id": "1", "preference": 'no more than 2 songs per artist, "please" {ok}'}),
    ("make_playlist_under_my_rules", {"user_id": "2", "theme": "upbeat symphonic metal", "length": "90 minutes"}),
    ("make_playlist_under_my_rules", {"user_id": "2", "theme": "rainy day"}),
    ("what_was_in_that_playlist", {"user_id": "1", "playlist": "breathers upbeat metal", "when": "last Friday"}),
    (
        "what_was_in_that_playlist",
        {"user_id": "1", "playlist": "playlist00000000000001", "when": "2026-01-31T12:00:00Z"},
    ),
    ("follow_up_recommendations", {"user_id": "3", "limit": "7"}),
    ("follow_up_recommendations", {"user_id": "3"}),
]

# A tool name in prompt text; an argument such as memory_id= is not one.
TOOL_NAME = re.compile(r"\b(?:memory|ops)[._][a-z_]+\b(?!\s*=)")


ENABLING = re.compile(r"^1\. Call memory[._]enable_toolsets\(toolsets=(\[[^\]]*\])\) first")


def callable_after_first_step(text: str, listed: set[str], style: str = "plain") -> set[str]:
    """The tools listed, with those of the toolsets the text's first step enables."""
    found = ENABLING.match(text)
    enabled = json.loads(found.group(1)) if found else []
    named = {name for toolset in enabled for name in TOOLSETS[toolset]}
    return listed | {name if style == "dotted" else name.replace(".", "_") for name in named}


async def prompt_text(call: Any, name: str, arguments: dict[str, str]) -> str:
    result = await call.client.get_prompt(name, arguments)
    assert len(result.messages) == 1 and result.messages[0].role == "user"
    return result.messages[0].content.text


async def test_exactly_five_prompts_with_descriptions_and_arguments(settings: Settings) -> None:
    async with connected(settings) as call:
        prompts = (await call.client.list_prompts()).prompts
    assert {p.name for p in prompts} == FIVE and len(prompts) == 5
    by_name = {p.name: p for p in prompts}
    for prompt in prompts:
        assert prompt.title and prompt.description and len(prompt.description) > 40
        assert prompt.arguments, prompt.name
        for argument in prompt.arguments:
            assert argument.description, (prompt.name, argument.name)
    required = {p.name: {a.name for a in p.arguments if a.required} for p in prompts}
    assert required == {
        "start_session": set(),
        "remember_preference": {"user_id", "preference"},
        "make_playlist_under_my_rules": {"user_id", "theme"},
        "what_was_in_that_playlist": {"user_id", "playlist"},
        "follow_up_recommendations": {"user_id"},
    }
    assert {a.name for a in by_name["make_playlist_under_my_rules"].arguments} == {"user_id", "theme", "length"}


@pytest.mark.parametrize("style", ["plain", "dotted"])
async def test_every_prompt_names_only_listed_tools_in_order(settings: Settings, style: str) -> None:
    async with connected(settings.model_copy(update={"tool_names": style})) as call:
        tools = {tool.name for tool in (await call.client.list_tools()).tools}
        for name, arguments in ARGUMENTS:
            text = await prompt_text(call, name, arguments)
            named = TOOL_NAME.findall(text)
            assert named, (name, text)
            reachable = callable_after_first_step(text, tools, style)
            assert set(named) <= reachable, (name, set(named) - reachable)
            assert text.startswith("1. ") and "\n2. " in text
            if style == "dotted":
                assert not re.search(r"\bmemory_(?!id\b)[a-z]", text), text


async def test_the_arguments_shape_the_text(settings: Settings) -> None:
    async with connected(settings) as call:
        start = await prompt_text(call, "start_session", {"user_id": "4", "focus": "Nightwish"})
        bootstrap = await prompt_text(call, "start_session", {})
        remember = await prompt_text(
            call, "remember_preference", {"user_id": "1", "preference": 'less "Epica", more breathers'}
        )
        playlist = await prompt_text(
            call, "make_playlist_under_my_rules", {"user_id": "2", "theme": "rainy day", "length": "25"}
        )
        at = await prompt_text(
            call,
            "what_was_in_that_playlist",
            {"user_id": "1", "playlist": "playlist00000000000001", "when": "2026-01-31T12:00:00Z"},
        )
        found = await prompt_text(call, "what_was_in_that_playlist", {"user_id": "1", "playlist": "rainy day"})
        followups = await prompt_text(call, "follow_up_recommendations", {"user_id": "3", "limit": "7"})
    assert 'memory_get_context(user_id=4, budget_tokens=800, focus="Nightwish")' in start
    assert "ops_list_users" not in start
    assert bootstrap.index("ops_list_users") < bootstrap.index("memory_get_profile")
    # The order the playbook gives: record what was said, then patch the profile.
    assert remember.index("memory_append_preference_event") < remember.index("memory_update_profile")
    assert '"less \\"Epica\\", more breathers"' in remember  # quoted as JSON, never breaking the text
    assert "25 tracks" in playlist
    assert (
        playlist.index("memory_get_profile")
        < playlist.index("memory_check_playlist")
        < playlist.index("memory_log_playlist_create")
    )
    assert 'at_time="2026-01-31T12:00:00Z"' in at and "memory_search" not in at
    assert found.index("memory_search") < found.index("memory_reconstruct_playlist") and "at_time" not in found
    assert "limit=7" in followups
    assert followups.index("memory_open_followups") < followups.index("memory_validate_recommendation")


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("remember_preference", {"preference": "more Epica"}, "Missing required prompt argument 'user_id'"),
        ("remember_preference", {"user_id": "1"}, "Missing required prompt argument 'preference'"),
        ("what_was_in_that_playlist", {"user_id": "1"}, "Missing required prompt argument 'playlist'"),
        ("follow_up_recommendations", {"user_id": "0"}, "'user_id': expected a positive integer"),
        ("follow_up_recommendations", {"user_id": "-3"}, "'user_id': expected a positive integer"),
        ("start_session", {"user_id": "alice"}, "'user_id': expected a positive integer"),
        (
            "follow_up_recommendations",
            {"user_id": "1", "limit": "500"},
            "'limit': expected a whole number from 1 to 100",
        ),
        (
            "make_playlist_under_my_rules",
            {"user_id": "1", "theme": "x", "length": "long"},
            "'length': expected a number",
        ),
        ("remember_preference", {"user_id": "1", "preference": "   "}, "'preference': must not be empty"),
        ("start_session", {"user": "1"}, "'user': this prompt takes no such argument"),
    ],
)
async def test_bad_arguments_get_a_clear_error(
    settings: Settings, name: str, arguments: dict[str, str], message: str
) -> None:
    async with connected(settings) as call:
        with pytest.raises(MCPError) as raised:
            await call.client.get_prompt(name, arguments)
    assert raised.value.code == -32602 and message in raised.value.message, raised.value.message


async def test_an_unknown_prompt_is_an_error(settings: Settings) -> None:
    # The SDK answers an unknown name itself (as "Internal server error" in mcp 2.x): no hook before it.
    async with connected(settings) as call:
        with pytest.raises(MCPError):
            await call.client.get_prompt("make_me_coffee", {})


async def test_every_prompt_is_offered_and_enables_what_the_session_does_not_list(settings: Settings) -> None:
    async with connected(settings.model_copy(update={"toolsets": ["core"]})) as call:
        tools = {tool.name for tool in (await call.client.list_tools()).tools}
        names = {p.name for p in (await call.client.list_prompts()).prompts}
        texts = [await prompt_text(call, name, arguments) for name, arguments in ARGUMENTS]
    assert names == FIVE  # every tool can be called whatever is listed
    for text in texts:
        named = set(TOOL_NAME.findall(text))
        if named <= tools:
            assert not ENABLING.match(text), text  # nothing to enable: no such step
        else:
            assert named <= callable_after_first_step(text, tools), text
    follow_ups = texts[-1]
    assert follow_ups.startswith('1. Call memory_enable_toolsets(toolsets=["memories"]) first'), follow_ups
