"""Every tool, in the order they are listed, and the toolsets a session lists them by."""

from __future__ import annotations

from collections.abc import Collection

from tools.specs.base import ToolSpec
from tools.specs.conflicts import CONFLICT_SPECS
from tools.specs.context import CONTEXT_SPECS
from tools.specs.control import CONTROL_SPECS
from tools.specs.followups import FOLLOWUP_SPECS
from tools.specs.forget import FORGET_SPECS
from tools.specs.insights import INSIGHT_SPECS
from tools.specs.memories import MEMORY_SPECS
from tools.specs.moves import MOVE_SPECS
from tools.specs.portability import PORTABILITY_SPECS
from tools.specs.prd import PRD_SPECS
from tools.specs.provenance import PROVENANCE_SPECS
from tools.specs.toolsets import ENABLE_TOOLSETS, TOOLSET_SPECS
from tools.specs.tracks import TRACK_SPECS
from tools.specs.transfer import IMPORT_SPECS

__all__ = ["ALWAYS_LISTED", "TOOLSETS", "TOOL_SPECS", "ToolSpec", "listed_names"]

TOOL_SPECS: list[ToolSpec] = (
    PRD_SPECS + MOVE_SPECS + TRACK_SPECS + INSIGHT_SPECS + MEMORY_SPECS + FOLLOWUP_SPECS + IMPORT_SPECS + CONTROL_SPECS
)
TOOL_SPECS += CONTEXT_SPECS  # the memory block for the prompt
TOOL_SPECS += FORGET_SPECS  # forget one item
TOOL_SPECS += PROVENANCE_SPECS  # pairwise choices and provenance
TOOL_SPECS += CONFLICT_SPECS  # stated versus played
TOOL_SPECS += PORTABILITY_SPECS  # a playlist carried to another service
TOOL_SPECS += TOOLSET_SPECS  # the door to the rest


def _names(*groups: list[ToolSpec]) -> frozenset[str]:
    return frozenset(spec.prd_name for group in groups for spec in group)


# Every listed tool costs the model context in every conversation, so a session starts with
# settings.DEFAULT_TOOLSETS (the PRD's tools and what most conversations need, chosen with the session-cost
# benchmark) and lists more in-band with memory_enable_toolsets. ``core`` is the PRD contract (its
# eleven memory tools and ops.list_users). Toolsets shape what the model sees, nothing else: every
# tool can be called whatever is listed. Every tool is in at least one toolset.
TOOLSETS: dict[str, frozenset[str]] = {
    "core": _names(PRD_SPECS) - {"ops.audit"},
    "everyday": frozenset(
        {"memory.get_context", "memory.open_followups", "memory.add", "memory.query", "memory.resolve_track"}
    ),
    "ledger": _names(MOVE_SPECS, PORTABILITY_SPECS) | {"memory.rotation_report"},
    "tracks": _names(TRACK_SPECS),
    "memories": _names(MEMORY_SPECS, FOLLOWUP_SPECS, CONTEXT_SPECS, PROVENANCE_SPECS) | {"memory.feedback_summary"},
    # "why do you think that?", and "what I said versus what I played"
    "control": _names(CONTROL_SPECS, FORGET_SPECS, IMPORT_SPECS, CONFLICT_SPECS) | {"memory.explain"},
    "ops": frozenset({"ops.list_users", "ops.audit"}),
}
ALWAYS_LISTED = frozenset({ENABLE_TOOLSETS})  # the door stays listed whatever else is
assert _names(TOOL_SPECS) == ALWAYS_LISTED.union(*TOOLSETS.values()), "a tool in no toolset"


def listed_names(toolsets: Collection[str] | None) -> frozenset[str]:
    """The tools these toolsets list (None: every tool), the door included."""
    if toolsets is None:
        return _names(TOOL_SPECS)
    return ALWAYS_LISTED.union(*(TOOLSETS[name] for name in toolsets))
