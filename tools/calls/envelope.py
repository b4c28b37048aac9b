"""The one place that builds the PRD envelope and maps domain exceptions to error codes."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any, Literal, NotRequired, TypedDict

from mcp_types import CallToolResult, TextContent

from service import errors
from service.timeutil import format_iso

log = logging.getLogger("taste_memory.tools")

# The PRD's error codes (memory.tool.response.json, ErrorObject.code).
ErrorCode = Literal[
    "INVALID_ARGUMENT", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT", "RATE_LIMITED", "INTERNAL", "DB_ERROR"
]


class ErrorBody(TypedDict):
    code: ErrorCode
    message: str
    details: NotRequired[dict[str, Any] | list[Any] | str | None]


class SuccessEnvelope(TypedDict):
    success: Literal[True]
    result: Any  # the tool's result object (its own result schema)


class FailureEnvelope(TypedDict):
    success: Literal[False]
    error: ErrorBody


# What every tool answers (memory.tool.response.json): its structured content, and as JSON its text.
Envelope = SuccessEnvelope | FailureEnvelope

# Most specific first: the first matching class decides the code.
ERROR_CODES: list[tuple[type[Exception], ErrorCode]] = [
    (errors.NotAuthenticated, "UNAUTHORIZED"),
    (errors.Forbidden, "FORBIDDEN"),
    (errors.RateLimited, "RATE_LIMITED"),
    (errors.InvalidArgument, "INVALID_ARGUMENT"),
    (errors.NotFound, "NOT_FOUND"),
    (errors.Conflict, "CONFLICT"),
    (errors.StorageUnavailable, "DB_ERROR"),
]


_PLAIN = frozenset({str, int, float, bool, type(None)})


def jsonable(value: Any) -> Any:
    """A copy of a result in JSON types: datetimes as ISO strings, tuples as lists, keys as strings.

    Plain leaves are kept without a call per item (a 5,000-track list: 0.3 ms instead of 1.7 ms), and
    every container is copied, so an envelope never aliases what the service or its caches hold."""
    if type(value) in _PLAIN:
        return value
    if isinstance(value, dict):
        return {(k if type(k) is str else str(k)): (v if type(v) in _PLAIN else jsonable(v)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [v if type(v) in _PLAIN else jsonable(v) for v in value]
    if isinstance(value, datetime):
        return format_iso(value)
    return value


def _result(envelope: Envelope) -> CallToolResult:
    text = json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=envelope, is_error=not envelope["success"]
    )


def success(result: Any) -> CallToolResult:
    return _result({"success": True, "result": jsonable(result)})


def error_body(code: ErrorCode, message: str, details: Any = None) -> ErrorBody:
    error: ErrorBody = {"code": code, "message": message}
    if details is not None:
        error["details"] = jsonable(details)
    return error


def failure(code: ErrorCode, message: str, details: Any = None) -> CallToolResult:
    return _result({"success": False, "error": error_body(code, message, details)})


def envelope_of(answer: CallToolResult) -> Envelope | None:
    """The envelope a tool's answer carries as its structured content (None: not a tool envelope)."""
    envelope: Envelope | None = answer.structured_content
    return envelope


def error_code(exc: Exception) -> ErrorCode:
    for kind, code in ERROR_CODES:
        if isinstance(exc, kind):
            return code
    return "INTERNAL"


def error_of(exc: Exception, request_id: str) -> ErrorBody:
    """The error a failed call answers; an unexpected one is logged with its trace."""
    code = error_code(exc)
    if isinstance(exc, errors.MemoryServiceError) and code != "INTERNAL":
        details = exc.details if isinstance(exc.details, dict | list | str) else None
        return error_body(code, exc.message, details)
    # Anything unexpected: the trace stays in the server log, the caller gets the request id.
    log.exception("unexpected error (request %s)", request_id)
    return error_body("INTERNAL", "internal error; the server log has the details", {"request_id": request_id})


def from_exception(exc: Exception, request_id: str) -> CallToolResult:
    return _result({"success": False, "error": error_of(exc, request_id)})
