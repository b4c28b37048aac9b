"""Registers the playbook prompts (tools/prompts/texts.py) on the MCP server.

The SDK's ``Prompt`` takes its arguments from a Python signature and answers a bad value with a
generic error; ``PlaybookPrompt`` lists the arguments it is given and checks them itself
(tools/prompts/arguments.py), so a client shows each argument's meaning and a user sees what was wrong.
Every tool can be called whatever a session lists; when a step names a tool the session does not
list, the text starts by enabling the toolsets that list it (``memory_enable_toolsets``).
Rendering passes the call pipeline like a tool call (identity, rate limit, metrics, log line).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts.base import Message, Prompt, PromptArgument, UserMessage
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS
from pydantic import Field, InstanceOf

from service.auth.policy import Principal
from service.facade import MemoryService
from tools.calls.envelope import ErrorCode, error_code
from tools.calls.pipeline import Call, CallPipeline
from tools.calls.rpc_errors import rpc_error
from tools.prompts.arguments import checked
from tools.prompts.texts import NO_TOOL, PROMPTS, PromptSpec
from tools.specs.catalog import TOOLSETS


def _never_called() -> str:  # pragma: no cover - render is overridden; the SDK model needs an fn
    return ""


class PlaybookPrompt(Prompt):
    spec: PromptSpec = Field(exclude=True)
    served: frozenset[str] = Field(exclude=True)  # PRD names of the tools this server can call
    listed: Callable[[Any], frozenset[str]] = Field(exclude=True)  # PRD names the request's session lists
    rename: Callable[[str], str] = Field(exclude=True)  # plain wire names -> this server's name style
    pipeline: InstanceOf[CallPipeline] = Field(exclude=True)

    async def render(self, arguments: dict[str, Any] | None, context: Any) -> list[Message]:
        call = Call(
            f"prompt.{self.spec.name}",
            access=None,
            gated=False,
            log_message="prompt",
            log_fields={"prompt": self.spec.name},
        )

        async def work(service: MemoryService, values: dict[str, Any], principal: Principal) -> list[Message]:
            steps = [(tools, line) for tools, line in self.spec.steps(values) if tools <= self.served]
            unlisted = frozenset().union(*(tools for tools, _ in steps)) - self.listed(context)
            steps = ([(NO_TOOL, enabling_step(unlisted))] if unlisted else []) + steps
            text = "\n".join(f"{n}. {line}" for n, (_, line) in enumerate(steps, start=1))
            return [UserMessage(self.rename(text))]

        return await self.pipeline.run(
            call, arguments, context, lambda raw: checked(self.spec.arguments, raw), work, _refused, _code
        )


def _code(exc: Exception) -> ErrorCode:
    return "INVALID_ARGUMENT" if isinstance(exc, MCPError) and exc.error.code == INVALID_PARAMS else error_code(exc)


def _refused(exc: Exception, request_id: str) -> list[Message]:
    if isinstance(exc, MCPError):  # an argument's own error names it already
        raise exc
    raise rpc_error(exc, None, request_id) from None


def enabling_step(unlisted: frozenset[str]) -> str:
    """The first step when later ones call tools the session does not list: the fewest toolsets
    (greedy, ties in catalog order) that list them all."""
    chosen: list[str] = []
    remaining = set(unlisted)
    while remaining:
        best = max(TOOLSETS, key=lambda name: len(TOOLSETS[name] & remaining))
        chosen.append(best)
        remaining -= TOOLSETS[best]
    return f"Call memory_enable_toolsets(toolsets={json.dumps(chosen)}) first: the steps below use its tools."


def build_prompt(
    spec: PromptSpec,
    served: frozenset[str],
    listed: Callable[[Any], frozenset[str]],
    rename: Callable[[str], str],
    pipeline: CallPipeline,
) -> PlaybookPrompt:
    return PlaybookPrompt(
        name=spec.name,
        title=spec.title,
        description=rename(spec.description),
        arguments=[
            PromptArgument(name=a.name, description=rename(a.description), required=a.required) for a in spec.arguments
        ],
        fn=_never_called,
        spec=spec,
        served=served,
        listed=listed,
        rename=rename,
        pipeline=pipeline,
    )


def add_prompts(
    server: MCPServer,
    pipeline: CallPipeline,
    served: Collection[str],
    listed: Callable[[Any], frozenset[str]],
    rename: Callable[[str], str],
) -> None:
    """Add every playbook prompt whose tools are among ``served`` (PRD names); ``listed`` gives what
    a request's session lists; ``rename`` turns the plain wire names in the text into the server's
    naming style."""
    callable_names = frozenset(served)
    for spec in PROMPTS:
        if spec.needs <= callable_names:
            server.add_prompt(build_prompt(spec, callable_names, listed, rename, pipeline))
