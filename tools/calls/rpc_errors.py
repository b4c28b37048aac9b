"""How a refused resource read (or subscription) answers: a JSON-RPC error, since a resource has
no envelope; ``data.code`` is the PRD error code, so a client branches the same way it does on a
tool's envelope.

Another user's resource, a user who has nothing, and a playlist that is not logged all answer
``NOT_FOUND`` with one message: the answer says nothing about what anyone else stores.
"""

from __future__ import annotations

from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST

from service import errors
from tools.calls.envelope import error_code, from_exception

NOT_FOUND_MESSAGE = "resource not found"

# The JSON-RPC code says whose problem it is: -32602 (invalid params) for the URI itself, a malformed
# one or one naming nothing this caller may read (the code the MCP specification gives a missing
# resource); -32600 (invalid request) for the caller's standing (no valid token, rate limited);
# -32603 for the server's own failure.
_RPC_CODES = {
    "INVALID_ARGUMENT": INVALID_PARAMS,
    "NOT_FOUND": INVALID_PARAMS,
    "UNAUTHORIZED": INVALID_REQUEST,
    "RATE_LIMITED": INVALID_REQUEST,
    "CONFLICT": INVALID_REQUEST,
    "DB_ERROR": INTERNAL_ERROR,
    "INTERNAL": INTERNAL_ERROR,
}
# URI variable names for the tool arguments they fill, so an error names what the caller wrote.
_URI_FIELDS = {"at_time": "iso_time"}


def resource_code(exc: Exception) -> str:
    """The PRD code of a failed read; a token that does not cover the user reads as NOT_FOUND."""
    return "NOT_FOUND" if isinstance(exc, errors.UserNotCovered) else error_code(exc)


def rpc_error(exc: Exception, uri: str | None, request_id: str) -> MCPError:
    """The JSON-RPC error of a refused read (``uri``), subscription or prompt (no ``uri``)."""
    code = resource_code(exc)
    data: dict[str, Any] = {"code": code} if uri is None else {"code": code, "uri": uri}
    if code == "NOT_FOUND":
        return MCPError(INVALID_PARAMS, NOT_FOUND_MESSAGE, data)
    # The tools' mapping decides message and details (and logs an unexpected failure's trace).
    error = from_exception(exc, request_id).structured_content["error"]  # type: ignore[index]
    message, details = error["message"], error.get("details")
    if code == "INVALID_ARGUMENT" and isinstance(details, dict):
        field = details.get("field")
        if field in _URI_FIELDS:
            message = message.replace(field, _URI_FIELDS[field], 1)
            details = {"field": _URI_FIELDS[field], "reason": details.get("reason")}
        else:
            details = {k: v for k, v in details.items() if k != "errors"}
    if isinstance(details, dict):
        data.update({k: v for k, v in details.items() if k not in data})
    return MCPError(_RPC_CODES.get(code, INTERNAL_ERROR), message, data)
