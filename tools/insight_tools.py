"""Reports over a user's history: rotation and recurring feedback."""

from __future__ import annotations

from tools.spec import ToolSpec

INSIGHT_SPECS: list[ToolSpec] = []
