"""The track catalog: upsert, resolve, confirm, and rule checks of a playlist."""

from __future__ import annotations

from tools.spec import ToolSpec

TRACK_SPECS: list[ToolSpec] = []
