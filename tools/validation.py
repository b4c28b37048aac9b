"""Server-side validation of raw tool arguments against the published PRD input schema."""

from __future__ import annotations

import math
import uuid
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError, best_match

from models.schema_files import input_schema
from service.errors import InvalidArgument
from service.timeutil import is_rfc3339

FORMATS = FormatChecker(formats=())


@FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    return not isinstance(value, str) or is_rfc3339(value)


@FORMATS.checks("uuid", raises=ValueError)
def _uuid(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return len(value) == 36 and str(uuid.UUID(value)) == value.lower()


@cache
def _validator(tool: str) -> Draft202012Validator:
    return Draft202012Validator(input_schema(tool), format_checker=FORMATS)


def _path(parts: Any) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _field(error: ValidationError) -> str:
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(k for k in error.instance if k not in allowed)
        if extra:
            return _path([*error.absolute_path, extra[0]])
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else ""
        return _path([*error.absolute_path, missing])
    return _path(error.absolute_path) or "(arguments)"


def _has_non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_has_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_non_finite(v) for v in value)
    return False


def validate_arguments(tool: str, arguments: Any) -> dict[str, Any]:
    """Return the arguments if they satisfy the tool's input schema, else raise InvalidArgument."""
    if not isinstance(arguments, dict):
        raise InvalidArgument("arguments must be a JSON object", {"field": "(arguments)"})
    errors = list(_validator(tool).iter_errors(arguments))
    if errors:
        ranked = [best_match(errors), *errors]
        found = [{"field": _field(e), "reason": e.message[:300], "rule": str(e.validator)} for e in ranked]
        found = [dict(t) for t in dict.fromkeys(tuple(f.items()) for f in found)][:10]
        first = found[0]
        raise InvalidArgument(f"invalid argument {first['field']}: {first['reason']}", {**first, "errors": found})
    if _has_non_finite(arguments):
        raise InvalidArgument("numbers must be finite (no NaN or Infinity)", {"field": "(arguments)"})
    return arguments
