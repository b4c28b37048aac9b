"""A plain reference model of RFC 7396 JSON Merge Patch, as the RFC's pseudo-code writes it (§2),
written out so tests do not trust the service's own merge."""

from __future__ import annotations

import copy
from typing import Any


def reference_merge(target: Any, patch: Any) -> Any:
    """Objects merge key by key, null deletes a key, anything else replaces the target (copied, so
    a model built from it never shares a list or object with the patch)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = reference_merge(result.get(key), value)
    return result
