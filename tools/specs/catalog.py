"""Every tool, in the order they are listed, and the toolsets a deployment lists them by."""

from __future__ import annotations

from collections.abc import Collection

from tools.specs.base import ToolSpec
from tools.specs.context import CONTEXT_SPECS
from tools.specs.control import CONTROL_SPECS
from tools.specs.followups import FOLLOWUP_SPECS
from tools.specs.forget import FORGET_SPECS
from tools.specs.insights import INSIGHT_SPECS
from tools.specs.memories import MEMORY_SPECS
from tools.specs.moves import MOVE_SPECS
from tools.specs.prd import PRD_SPECS
from tools.specs.provenance import PROVENANCE_SPECS
from tools.specs.tracks import TRACK_SPECS
from tools.specs.transfer import IMPORT_SPECS

__all__ = ["TOOLSETS", "TOOL_SPECS", "ToolSpec", "specs_in"]

TOOL_SPECS: list[ToolSpec] = (
    PRD_SPECS + MOVE_SPECS + TRACK_SPECS + INSIGHT_SPECS + MEMORY_SPECS + FOLLOWUP_SPECS + IMPORT_SPECS + CONTROL_SPECS
)
TOOL_SPECS += CONTEXT_SPECS  # the memory block for the prompt
TOOL_SPECS += FORGET_SPECS  # forget one item
TOOL_SPECS += PROVENANCE_SPECS  # pairwise choices and provenance


def _names(*groups: list[ToolSpec]) -> frozenset[str]:
    return frozenset(spec.prd_name for group in groups for spec in group)


# MEMORY_TOOLSETS: a deployment lists only the tools it needs, since every listed tool
# costs the model context. ``core`` is the PRD contract (its eleven memory tools and
# ops.list_users); ops.list_users is in ``ops`` too. Every tool is in at least one toolset.
TOOLSETS: dict[str, frozenset[str]] = {
    "core": _names(PRD_SPECS) - {"ops.audit"},
    "ledger": _names(MOVE_SPECS) | {"memory.rotation_report"},
    "tracks": _names(TRACK_SPECS),
    "memories": _names(MEMORY_SPECS, FOLLOWUP_SPECS, CONTEXT_SPECS, PROVENANCE_SPECS) | {"memory.feedback_summary"},
    "control": _names(CONTROL_SPECS, FORGET_SPECS, IMPORT_SPECS),
    "ops": frozenset({"ops.list_users", "ops.audit"}),
}
assert _names(TOOL_SPECS) == frozenset().union(*TOOLSETS.values()), "a tool in no toolset"


def specs_in(toolsets: Collection[str] | None) -> list[ToolSpec]:
    """The tools of these toolsets, in catalog order (None: every tool)."""
    if toolsets is None:
        return list(TOOL_SPECS)
    wanted = frozenset().union(*(TOOLSETS[name] for name in toolsets))
    return [spec for spec in TOOL_SPECS if spec.prd_name in wanted]
