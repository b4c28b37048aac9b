"""Registers the playbook prompts (tools/prompts/texts.py) on the MCP server.

The SDK's ``Prompt`` takes its arguments from a Python signature and answers a bad value with a
generic error; ``PlaybookPrompt`` lists the arguments it is given and checks them itself
(tools/prompts/arguments.py), so a client shows each argument's meaning and a user sees what was wrong.
A prompt is offered only when the tools it depends on are listed (``MEMORY_TOOLSETS``), and a step
naming a tool that is not listed is left out: the text never names a tool the model cannot call.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts.base import Message, Prompt, PromptArgument, UserMessage
from pydantic import Field

from tools.prompts.arguments import checked
from tools.prompts.texts import PROMPTS, PromptSpec


def _never_called() -> None:  # pragma: no cover - render is overridden; the SDK model needs an fn
    return None


class PlaybookPrompt(Prompt):
    spec: PromptSpec = Field(exclude=True)
    served: frozenset[str] = Field(exclude=True)  # PRD names of the tools this server lists
    rename: Callable[[str], str] = Field(exclude=True)  # plain wire names -> this server's name style

    async def render(self, arguments: dict[str, Any] | None, context: Any) -> list[Message]:  # type: ignore[override]
        values = checked(self.spec.arguments, arguments)
        steps = [line for tools, line in self.spec.steps(values) if tools <= self.served]
        text = "\n".join(f"{n}. {line}" for n, line in enumerate(steps, start=1))
        return [UserMessage(self.rename(text))]


def build_prompt(spec: PromptSpec, served: frozenset[str], rename: Callable[[str], str]) -> PlaybookPrompt:
    return PlaybookPrompt(
        name=spec.name,
        title=spec.title,
        description=rename(spec.description),
        arguments=[PromptArgument(name=a.name, description=rename(a.description), required=a.required)
                   for a in spec.arguments],
        fn=_never_called,
        spec=spec,
        served=served,
        rename=rename,
    )


def add_prompts(server: MCPServer, served: Collection[str], rename: Callable[[str], str]) -> None:
    """Add every playbook prompt whose tools are among ``served`` (PRD names); ``rename`` turns the
    plain wire names in the text into the server's naming style."""
    listed = frozenset(served)
    for spec in PROMPTS:
        if spec.needs <= listed:
            server.add_prompt(build_prompt(spec, listed, rename))
