"""Ledger moves: undo, fork, resync and diff of a logged playlist."""

from __future__ import annotations

from tools.spec import ToolSpec

MOVE_SPECS: list[ToolSpec] = []
