"""Every tool rejects arguments its published PRD input schema forbids, naming the field, writing nothing.

The cases (``invalid_cases.py``) are generated from the input schema files, with hand-written ones
for the payload rules; every case is checked against the schema locally before it is sent, so a
case that the schema allows can never slip in by mistake. The store and the valid baselines the
cases change one thing of are in ``baselines.py``.
"""

from __future__ import annotations

import copy
import json

import pytest

from service.settings import Settings
from tests.support import connected
from tests.support.contract import TOOLS, assert_valid_error, wire
from tests.tools.calls.baselines import BASELINES, live_baseline, seed, store_state
from tests.tools.calls.invalid_cases import cases_for, check_cases_against_schema_file


@pytest.mark.parametrize("prd_name", TOOLS)
async def test_invalid_arguments_are_rejected_naming_the_field_and_write_nothing(
    settings: Settings, prd_name: str
) -> None:
    check_cases_against_schema_file(prd_name)
    cases = cases_for(prd_name)
    assert len(cases) >= 5
    wrong: list[str] = []
    async with connected(settings) as call:
        await seed(call)
        before = await store_state(call)
        for case in cases:
            envelope = await call(wire(prd_name), copy.deepcopy(case.arguments))
            if envelope.get("success"):
                wrong.append(f"{case.label}: accepted -> {json.dumps(envelope['result'])[:200]}")
                continue
            error = assert_valid_error(envelope)
            field = (error.get("details") or {}).get("field") if isinstance(error.get("details"), dict) else None
            if error["code"] != "INVALID_ARGUMENT" or field != case.field:
                wrong.append(
                    f"{case.label}: expected INVALID_ARGUMENT on {case.field!r}, got {error['code']} "
                    f"on {field!r} ({error['message'][:160]})"
                )
        after = await store_state(call)
        # The untouched baseline is accepted: the cases failed for their one change, and no rejected
        # call left an idempotency claim behind (that would make this retry a CONFLICT).
        accepted = await call(wire(prd_name), await live_baseline(call, prd_name))
    assert not wrong, f"{len(wrong)} of {len(cases)} cases misbehaved:\n" + "\n".join(wrong)
    assert after == before, "a rejected call wrote something"
    assert accepted["success"], f"the valid baseline was refused: {accepted.get('error')}"


async def test_non_object_arguments_and_unknown_tool_fields_never_reach_internal(settings: Settings) -> None:
    async with connected(settings) as call:
        await seed(call)
        before = await store_state(call)
        for prd_name in TOOLS:
            for extra in ({"USER_ID": 1}, {"": 1}, {"user_id ": 1}):
                error = assert_valid_error(await call(wire(prd_name), {**BASELINES[prd_name], **extra}))
                assert error["code"] == "INVALID_ARGUMENT", (prd_name, extra, error)
                assert error["details"]["field"] == next(iter(extra)), (prd_name, extra, error)
        after = await store_state(call)
    assert after == before
