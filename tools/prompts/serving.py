"""Registers the playbook prompts (tools/prompts/texts.py) on the MCP server.

The SDK's ``Prompt`` takes its arguments from a Python signature and answers a bad value with a
generic error; ``PlaybookPrompt`` lists the arguments it is given and checks them itself
(tools/prompts/arguments.py), so a client shows each argument's meaning and a user sees what was wrong.
A prompt is offered only when the tools it depends on are listed (``MEMORY_TOOLSETS``), and a step
naming a tool that is not listed is left out: the text never names a tool the model cannot call.
Rendering passes the call pipeline like a tool call (identity, rate limit, metrics, log line).
"""

from __future__ import annotations

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
from tools.prompts.texts import PROMPTS, PromptSpec


def _never_called() -> str:  # pragma: no cover - render is overridden; the SDK model needs an fn
    return ""


class PlaybookPrompt(Prompt):
    spec: PromptSpec = Field(exclude=True)
    served: frozenset[str] = Field(exclude=True)  # PRD names of the tools this server lists
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
            steps = [line for tools, line in self.spec.steps(values) if tools <= self.served]
            text = "\n".join(f"{n}. {line}" for n, line in enumerate(steps, start=1))
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


def build_prompt(
    spec: PromptSpec, served: frozenset[str], rename: Callable[[str], str], pipeline: CallPipeline
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
        rename=rename,
        pipeline=pipeline,
    )


def add_prompts(
    server: MCPServer, pipeline: CallPipeline, served: Collection[str], rename: Callable[[str], str]
) -> None:
    """Add every playbook prompt whose tools are among ``served`` (PRD names); ``rename`` turns the
    plain wire names in the text into the server's naming style."""
    listed = frozenset(served)
    for spec in PROMPTS:
        if spec.needs <= listed:
            server.add_prompt(build_prompt(spec, listed, rename, pipeline))
