"""The PRD contract as the tests see it: schemas read straight from ``models/schemas/*.json``.

The ``memory.common.schema.json`` references are resolved here with a ``referencing`` registry
built from the files themselves, independently of the service's own inliner, and formats are
checked for real: ``date-time`` is RFC 3339 (results must moreover be UTC with ``Z``, SPEC §5) and
``uuid`` is the canonical hyphenated RFC 4122 form.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

import models

SCHEMA_DIR = Path(models.__file__).parent / "schemas"

# The tools of the contract (PRD §8 plus ops.list_users, SPEC §5, and ops.audit), by PRD name.
TOOLS = [
    "ops.list_users",
    "memory.get_profile",
    "memory.update_profile",
    "memory.append_preference_event",
    "memory.log_playlist_create",
    "memory.log_playlist_mutation",
    "memory.get_playlists",
    "memory.get_playlist",
    "memory.reconstruct_playlist",
    "memory.search",
    "memory.export_user_data",
    "memory.delete_user_data",
    "ops.audit",
    # Ledger moves, insights and the track catalog.
    "memory.undo_last_mutation",
    "memory.resync_playlist",
    "memory.fork_playlist",
    "memory.diff_playlist",
    "memory.rotation_report",
    "memory.feedback_summary",
    "memory.upsert_tracks",
    "memory.resolve_track",
    "memory.confirm_track",
    "memory.check_playlist",
    # Typed memories, plays and follow-ups.
    "memory.add",
    "memory.query",
    "memory.log_plays",
    "memory.validate_recommendation",
    "memory.open_followups",
    # The user in control: switches, context, import, choices, provenance, forget, inspect.
    "memory.set_enabled",
    "memory.pause",
    "memory.status",
    "memory.get_context",
    "memory.import_user_data",
    "memory.record_choice",
    "memory.explain",
    "memory.forget",
    "memory.inspect",
    # Stated versus played.
    "memory.list_conflicts",
    "memory.resolve_conflict",
    # The timeline picture of the memory page.
    "memory.get_playlist_timeline",
    # A playlist carried to another service.
    "memory.playlist_portability",
    # The door to the tools a session does not list yet.
    "memory.enable_toolsets",
]


def wire(prd_name: str) -> str:
    """The default wire name: ``memory.get_profile`` → ``memory_get_profile``."""
    return prd_name.replace(".", "_")


_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def is_rfc3339(value: str) -> bool:
    if not _RFC3339.match(value):
        return False
    try:
        datetime.fromisoformat(value[:-1] + "+00:00" if value[-1] in "Zz" else value)
    except ValueError:
        return False
    return True


def is_uuid(value: str) -> bool:
    if not _UUID.match(value):
        return False
    uuid.UUID(value)
    return True


def _checker(require_utc_z: bool) -> FormatChecker:
    checker = FormatChecker(formats=())

    @checker.checks("date-time")
    def _date_time(value: object) -> bool:
        if not isinstance(value, str):
            return True
        return is_rfc3339(value) and (not require_utc_z or value.endswith("Z"))

    @checker.checks("uuid")
    def _uuid(value: object) -> bool:
        return not isinstance(value, str) or is_uuid(value)

    return checker


RESULT_FORMATS = _checker(require_utc_z=True)
INPUT_FORMATS = _checker(require_utc_z=False)


def load(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / f"{name}.json").read_text())


@cache
def registry() -> Registry:
    resources = []
    for path in sorted(SCHEMA_DIR.glob("*.json")):
        document = json.loads(path.read_text())
        resources.append((document["$id"], Resource.from_contents(document, default_specification=DRAFT202012)))
    return Registry().with_resources(resources)


@cache
def result_validator(prd_name: str) -> Draft202012Validator:
    return Draft202012Validator(load(f"{prd_name}.result"), registry=registry(), format_checker=RESULT_FORMATS)


@cache
def input_validator(prd_name: str) -> Draft202012Validator:
    return Draft202012Validator(load(f"{prd_name}.input"), registry=registry(), format_checker=INPUT_FORMATS)


@cache
def envelope_validator() -> Draft202012Validator:
    return Draft202012Validator(load("memory.tool.response"), registry=registry(), format_checker=RESULT_FORMATS)


def errors_of(validator: Draft202012Validator, instance: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in validator.iter_errors(instance)]


def assert_valid_success(prd_name: str, envelope: dict[str, Any]) -> dict[str, Any]:
    """The envelope is the PRD envelope of a success and its result the tool's PRD result."""
    problems = errors_of(envelope_validator(), envelope)
    assert not problems, f"{prd_name}: envelope does not validate: {problems}"
    assert envelope["success"] is True, f"{prd_name} failed: {envelope.get('error')}"
    assert set(envelope) == {"success", "result"}, f"{prd_name}: a success carries exactly success and result"
    problems = errors_of(result_validator(prd_name), envelope["result"])
    assert not problems, f"{prd_name}: result does not validate against the PRD result schema: {problems}"
    return envelope["result"]


def assert_valid_error(envelope: dict[str, Any]) -> dict[str, Any]:
    problems = errors_of(envelope_validator(), envelope)
    assert not problems, f"error envelope does not validate: {problems}"
    assert envelope["success"] is False
    assert set(envelope) == {"success", "error"}, "a failure carries exactly success and error"
    return envelope["error"]


def strip_moment(export_result: dict[str, Any]) -> dict[str, Any]:
    """An export's data without the fields that name the moment it was taken."""
    data = dict(export_result["data"])
    data.pop("as_of", None)
    data.pop("continuation", None)
    return data
