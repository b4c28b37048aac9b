"""Hostile input: at least 200 invalid or random argument sets per tool, every answer a valid
envelope, never INTERNAL, and the server keeps serving afterwards.

The tools and their input schemas come from the server's own ``tools/list``, so a tool added
later is covered without touching this file. The sets (see ``hostile_cases``) are generated
deterministically: the same ones every run. Failures are collected and reported together, each
with its tool and a truncated repr of the arguments.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from service.settings import Settings
from tests.support import connected
from tests.support.mcp_sessions import sse_session
from tests.support.server_process import http_get, running_server
from tests.tools.calls.hostile_calls import (
    all_tools,
    assert_still_serving,
    failure,
    report,
    sdk_refuses,
    seed,
    send_all,
)
from tests.tools.calls.hostile_cases import DEEP_RAW, USERS, answer_problems, cases_for, handmade, prd_name_of
from tests.tools.calls.raw_sse import raw_json, raw_sse_session

MIN_SETS = 200  # the acceptance criterion, per tool
TARGET_SETS = 230  # generated per tool, so that the few the client cannot send leave 200 sent
SSE_GENERATED = (5, 10, 5)  # valid, mutated (one base: 7 to 19 sets), random sets per tool over SSE
ONE_AND_A_HALF_MB = 1_500_000  # SSE bodies stay below the server's ~2 MiB request limit


async def test_every_tool_answers_hostile_arguments_with_envelopes(settings: Settings) -> None:
    async with connected(settings) as call:
        tools = await all_tools(call.client)
        await seed(call)
        failures: list[str] = []
        sent: Counter[str] = Counter()
        for tool in tools:
            cases = cases_for(tool.input_schema, at_least=TARGET_SETS)
            # The in-memory client refuses a few sets before sending anything (e.g. a lone
            # surrogate in an object key): those are skipped here; raw bodies with them go over
            # the wire in the SSE test below.
            sendable = [c for c in cases if not sdk_refuses(tool.name, c.arguments)]
            assert len(cases) - len(sendable) < len(cases) // 10, f"{tool.name}: the client refuses too many sets"
            await send_all(call.client, tool, sendable, failures, sent)
        assert not failures, report(failures, sent)
        too_few = {tool.name: sent[tool.name] for tool in tools if sent[tool.name] < MIN_SETS}
        assert not too_few, f"tools that got fewer than {MIN_SETS} hostile sets: {too_few}"
        await assert_still_serving(call, user=900_001)


# --- over the wire ------------------------------------------------------------------------------


def _walk(value: Any) -> Iterable[tuple[Any, int]]:
    """Every value inside ``value`` with its depth; iterative, as the raw cases nest 1,000 deep."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        yield item, depth
        if isinstance(item, dict):
            stack += [(key, depth + 1) for key in item] + [(inner, depth + 1) for inner in item.values()]
        elif isinstance(item, list):
            stack += [(inner, depth + 1) for inner in item]


def has_lone_surrogate(arguments: Any) -> bool:
    return any(isinstance(item, str) and any("\ud800" <= ch <= "\udfff" for ch in item) for item, _ in _walk(arguments))


def parser_may_refuse(arguments: dict[str, Any]) -> bool:
    """Bodies the SDK's JSON parser rejects with HTTP 400 before any tool runs: nesting past its
    200-level limit (the JSON-RPC frame adds 3) and lone-surrogate escapes."""
    return max(depth for _, depth in _walk(arguments)) > 196 or has_lone_surrogate(arguments)


@pytest.mark.slow
async def test_hostile_arguments_over_sse_leave_the_server_serving(settings: Settings, tmp_path: Path) -> None:
    with running_server(settings, tmp_path) as server:
        failures: list[str] = []
        sent: Counter[str] = Counter()
        # Generated sets through the official client.
        async with sse_session(server) as call:
            tools = await all_tools(call.client)
            await seed(call)
            for tool in tools:
                cases = cases_for(tool.input_schema, sizes=SSE_GENERATED, with_handmade=False)
                # The official client cannot send a lone surrogate: httpx refuses to encode it and
                # the client's sender task then stops for good. Those sets are skipped here only;
                # the hand-made ones below carry lone surrogates raw. (NaN and ±Infinity it does
                # send, as null: pydantic rewrites them.)
                sendable = [c for c in cases if not has_lone_surrogate(c.arguments)]
                await send_all(call.client, tool, sendable, failures, sent)
        assert all(sent[tool.name] >= 15 for tool in tools), f"too few generated sets over SSE: {sent}"

        # Hand-made sets as raw bodies, exactly as written: NaN/Infinity tokens, \ud800 escapes,
        # 1,000-level nesting, 1 MB strings, 10,000-item arrays. (The raw client reads events of
        # any size; whether answers fit the official client is test_hostile_answer_sizes' question.)
        raw_sent = refused_by_parser = 0
        async with raw_sse_session(server.base_url) as raw:
            for tool in tools:
                prd = prd_name_of(tool.name, tool.title)
                for case in handmade(tool.input_schema, deep=DEEP_RAW):
                    body = raw_json(case.arguments)
                    assert len(body.encode()) < ONE_AND_A_HALF_MB, f"{tool.name} {case.label}: raw body too large"
                    answer = await raw.call_tool(tool.name, body)
                    raw_sent += 1
                    if answer.status == 400 and parser_may_refuse(case.arguments):
                        refused_by_parser += 1  # refused by the transport before any tool ran
                        continue
                    result = (answer.message or {}).get("result")
                    if answer.status != 202 or not isinstance(result, dict):
                        failures.append(failure(tool.name, case, f"HTTP {answer.status}, answer {answer.message}"))
                        continue
                    texts_ = [item.get("text", "") for item in result.get("content", [])]
                    if problems := answer_problems(prd, result.get("structuredContent"), texts_, result.get("isError")):
                        failures.append(failure(tool.name, case, problems))
            # The same session still answers after every refusal and every hostile call.
            answer = await raw.call_tool("memory_get_profile", raw_json({"user_id": 900_003}))
            assert answer.message and answer.message["result"]["structuredContent"]["success"], answer

            # A body past the server's request limit is refused at the HTTP layer (413), and the
            # session goes on.
            oversized = raw_json({"user_id": USERS[0], "patch": {"x": "x" * 5_000_000}})
            assert (await raw.call_tool("memory_update_profile", oversized)).status == 413
            answer = await raw.call_tool("memory_get_profile", raw_json({"user_id": 900_003}))
            assert answer.message and answer.message["result"]["structuredContent"]["success"], answer

        assert not failures, report(failures, sent + Counter({"raw hand-made": raw_sent}))
        assert refused_by_parser < raw_sent // 2, f"{refused_by_parser} of {raw_sent} raw sets never reached a tool"
        assert server.alive(), f"the server died:\n{server.stderr_text()[-4000:]}"
        assert http_get(f"{server.base_url}/healthz")[0] == 200
        async with sse_session(server) as call:
            await assert_still_serving(call, user=900_002)
