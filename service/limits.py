"""Size limits on free-form content, so every answer built from stored data fits one SSE message.

The PRD schemas leave profiles, payloads, seed contexts and tag lists unbounded, but everything
stored comes back: a profile in every ``get_profile``, tags in every listing and search hit. The
official MCP SSE client drops the whole session on an event over 1 MiB (and the envelope travels
twice in it), so these caps are checked before anything is written and answered with
``INVALID_ARGUMENT`` naming the field.
"""

from __future__ import annotations

import json
from typing import Any

from service.errors import InvalidArgument


def json_bytes(value: Any) -> int:
    """Size of the value as compact UTF-8 JSON, the form it takes in an answer."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode())


def require_at_most(value: Any, limit: int, field: str, what: str) -> None:
    size = json_bytes(value)
    if size > limit:
        raise InvalidArgument(
            f"{what} would be {size:,} bytes as JSON; at most {limit:,} are stored",
            {"field": field, "bytes": size, "limit_bytes": limit},
        )
