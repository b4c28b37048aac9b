"""Which scope each tool needs from an OAuth client, derived in one place from what the tools
declare (access, switches, destructive and idempotent hints): the control tools are exactly the
switches, forgetting, deleting and importing, so a new tool that lands among them shows here."""

from __future__ import annotations

from service.auth.policy import Access, required_scope
from tools.specs.catalog import TOOL_SPECS


def scope_of(name: str) -> str | None:
    [spec] = [s for s in TOOL_SPECS if s.prd_name == name]
    return required_scope(spec.access, spec.control) if spec.access is not None else None


def test_the_control_tools_are_the_switches_forget_delete_and_import() -> None:
    control = {s.prd_name for s in TOOL_SPECS if s.access is not None and scope_of(s.prd_name) == "memory:control"}
    assert control == {
        "memory.set_enabled",
        "memory.pause",
        "memory.forget",
        "memory.delete_user_data",
        "memory.import_user_data",
        "ops.audit",  # an operator tool: refused to every OAuth grant anyway (never an operator)
    }


def test_every_other_writer_needs_write_and_every_reader_read() -> None:
    for spec in TOOL_SPECS:
        if spec.access is None or spec.control or spec.access is Access.OPERATOR:
            continue
        expected = "memory:read" if spec.read_only else "memory:write"
        assert scope_of(spec.prd_name) == expected, spec.prd_name
