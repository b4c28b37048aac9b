"""What every stored record may carry: who wrote it."""

from __future__ import annotations

from pydantic import BaseModel


class WrittenBy(BaseModel):
    """Who wrote a record: the verified principal, the tool and the server's request id.
    Records written before auth existed (or imported from such an export) carry none."""

    principal: str
    tool: str | None = None
    request_id: str | None = None
