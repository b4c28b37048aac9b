"""Hypothesis strategies built from a tool's published input schema: valid instances, mutations
of valid instances, and random argument dicts.

Written against Hypothesis' public API rather than with ``hypothesis-jsonschema``: its 0.23.1
(the latest release) calls ``cu.many(...).more()``, an internal that Hypothesis 6.170 replaced, so
every object schema fails with ``AttributeError: 'many' object has no attribute 'more'``. The
input schemas use a small subset of JSON Schema; a keyword outside it raises
``UnsupportedSchema`` so a tool added later with a richer schema fails loudly here instead of
being fuzzed with the wrong shapes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st
from jsonschema import Draft202012Validator

IGNORED = {"$schema", "$id", "title", "description", "default", "examples", "$comment"}
SUPPORTED = IGNORED | {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "const",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "items",
    "format",
    "allOf",
    "if",
    "then",
    "pattern",
}
Hints = Mapping[str, st.SearchStrategy[Any]]  # property name ("name[]" for its items) → extra values


class UnsupportedSchema(Exception):
    pass


def check_supported(schema: Any, where: str = "(root)") -> None:
    if not isinstance(schema, dict):
        return
    unknown = set(schema) - SUPPORTED
    if unknown:
        raise UnsupportedSchema(f"{where}: keywords {sorted(unknown)} are not generated; extend schema_strategies")
    for name, sub in schema.get("properties", {}).items():
        check_supported(sub, f"{where}.{name}")
    for key in ("items", "if", "then"):
        check_supported(schema.get(key), f"{where}/{key}")
    for index, sub in enumerate(schema.get("allOf", [])):
        check_supported(sub, f"{where}/allOf[{index}]")


# --- JSON values -----------------------------------------------------------------------------

_keys = st.text(max_size=12)
_plain_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.text(max_size=24)
    | st.floats(allow_nan=False, allow_infinity=False)
)
plain_json = st.recursive(
    _plain_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4), max_leaves=12
)

HOSTILE_CONSTANTS: list[Any] = [
    math.nan,
    math.inf,
    -math.inf,
    -0.0,
    5e-324,
    1e308,
    1.0,
    1.5,
    0,
    -1,
    2**31,
    2**53 + 1,
    2**63 - 1,
    2**63,
    2**64,
    -(2**63) - 1,
    10**100,
    -(10**100),
    True,
    False,
    None,
    "",
    " ",
    "\x00",
    "\ud800",
    "\udfff\ud800",
    "\u202e\u200b\ufeff",
    "𝄞" * 40,
    "a" * 10_000,
    "null",
    "NaN",
    "-Infinity",
    "1",
    "true",
    "{}",
    "[]",
    "$where",
    "a.b",
    "../../etc/passwd",
    "' OR 1=1 --",
    "2025-13-45T99:99:99Z",
    "0000-01-01T00:00:00Z",
    "9999-12-31T23:59:59-23:59",
    "0001-01-01T00:00:00+23:59",
    "2025-06-30T23:59:60Z",
    "2025-01-01T00:00:00+24:00",
    "2025-01-01T00:00:00.1234567890123Z",
    "00000000-0000-0000-0000-000000000000",
    "00000000-0000-0000-0000-00000000000G",
    [],
    [None],
    [[[[]]]],
    list(range(64)),
    {},
    {"": ""},
    {"$set": {"a": 1}},
    {"a\x00b": 1},
    {"a.b": {"$gt": ""}},
    {"$ref": "#"},
    {"__proto__": {"x": 1}},
    {"track_ids": None},
    {"track_ids": [None]},
]
# Lone surrogates too: text the service must refuse rather than fail to encode.
_hostile_text = st.text(alphabet=st.characters() | st.characters(categories=["Cs"]), max_size=40)
_hostile_scalars = (
    st.sampled_from(HOSTILE_CONSTANTS) | st.floats() | st.integers(-(2**80), 2**80) | _hostile_text | _plain_scalars
)
# Small trees: Hypothesis' cost grows with every value drawn, and size is covered by the
# hand-made cases (1 MB strings, 10,000-item arrays, deep nesting).
hostile_json = st.recursive(
    _hostile_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys | _hostile_text, inner, max_size=4),
    max_leaves=6,
)


# --- valid instances -------------------------------------------------------------------------


@st.composite
def _date_time(draw: st.DrawFn) -> str:
    """RFC 3339 in all its legal spellings: t/T, any fraction digits, z/Z or an offset."""
    moment = draw(st.datetimes())
    text = f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}{draw(st.sampled_from('Tt'))}"
    text += f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}"
    digits = draw(st.integers(0, 9))
    if digits:
        text += "." + f"{moment.microsecond:06d}{draw(st.integers(0, 999))}"[:digits].ljust(digits, "0")
    if draw(st.booleans()):
        return text + draw(st.sampled_from("Zz"))
    minutes = draw(st.integers(-(23 * 60 + 59), 23 * 60 + 59))
    sign = "-" if minutes < 0 else "+"
    return f"{text}{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    if kind is None:
        return []
    return [kind] if isinstance(kind, str) else list(kind)


def _string(schema: dict[str, Any]) -> st.SearchStrategy[str]:
    fmt = schema.get("format")
    if fmt == "date-time":
        return _date_time()
    if fmt == "uuid":
        return st.uuids().map(str)
    if fmt is not None:
        raise UnsupportedSchema(f"string format {fmt!r} is not generated; extend schema_strategies")
    if "pattern" in schema:  # the schemas' patterns are anchored and bound their own length
        return st.from_regex(schema["pattern"], fullmatch=True)
    low = schema.get("minLength", 0)
    return st.text(min_size=low, max_size=schema.get("maxLength", low + 40))


def _single(schema: dict[str, Any], kind: str, name: str, hints: Hints) -> st.SearchStrategy[Any]:
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "number":
        return st.floats(schema.get("minimum"), schema.get("maximum"), allow_nan=False, allow_infinity=False)
    if kind == "string":
        return _string(schema)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        low = schema.get("minItems", 0)
        items = valid_values(schema.get("items", {}), f"{name}[]", hints)
        return st.lists(items, min_size=low, max_size=schema.get("maxItems", low + 8))
    if kind == "object":
        if "properties" in schema:
            return _object(schema, hints)
        return st.dictionaries(_keys, plain_json, max_size=5)
    raise UnsupportedSchema(f"type {kind!r} is not generated")


def valid_values(schema: dict[str, Any], name: str = "", hints: Hints | None = None) -> st.SearchStrategy[Any]:
    """Values ``schema`` accepts; ``hints[name]`` values (filtered by the schema) are mixed in."""
    hints = hints or {}
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kinds = _types(schema)
    base = st.one_of([_single(schema, kind, name, hints) for kind in kinds]) if kinds else plain_json
    if name in hints:
        return st.one_of(hints[name].filter(Draft202012Validator(schema).is_valid), base)
    return base


def _object(schema: dict[str, Any], hints: Hints) -> st.SearchStrategy[dict[str, Any]]:
    # Strategies are built once per schema, not per draw: Hypothesis pays for every new one.
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    fields = {name: valid_values(sub, name, hints) for name, sub in properties.items()}
    branches = []
    for branch in schema.get("allOf", []):
        if "if" not in branch:
            raise UnsupportedSchema("allOf members other than if/then are not generated")
        then = branch.get("then", {})
        narrowed = {
            name: valid_values({**properties.get(name, {}), **sub}, name, hints)
            for name, sub in then.get("properties", {}).items()
        }
        branches.append((Draft202012Validator(branch["if"]).is_valid, narrowed, set(then.get("required", []))))

    @st.composite
    def objects(draw: st.DrawFn) -> dict[str, Any]:
        out = {name: draw(values) for name, values in fields.items() if name in required or draw(st.booleans())}
        # if/then: once the drawn object satisfies an ``if``, redraw the properties its ``then``
        # narrows (a mutation's payload shape depends on its type).
        for matches, narrowed, then_required in branches:
            if matches(out):
                for name, values in narrowed.items():
                    if name in out or name in then_required:
                        out[name] = draw(values)
        return out

    return objects()


def valid_arguments(schema: dict[str, Any], hints: Hints | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """Argument dicts the schema accepts (checked with jsonschema, so a gap in this generator
    cannot pass an invalid set off as valid)."""
    check_supported(schema)
    return _object(schema, hints or {}).filter(Draft202012Validator(schema).is_valid)


# --- invalid and random instances --------------------------------------------------------------


def violations(schema: dict[str, Any]) -> list[Any]:
    """Values that break ``schema`` at its own level: wrong types and each bound just crossed."""
    kinds = set(_types(schema))
    out: list[Any] = [
        value
        for value, kind in [
            ("1", "string"),
            (1, "integer"),
            (1.5, "number"),
            (True, "boolean"),
            (None, "null"),
            ([], "array"),
            ({}, "object"),
        ]
        if kind not in kinds and not (kind == "integer" and "number" in kinds)
    ]
    if "integer" in kinds:
        out += [1.0, math.nan, math.inf, 2**63, 2**64, -(2**63) - 1, 10**100]
        out += [schema["minimum"] - 1] if "minimum" in schema else []
        out += [schema["maximum"] + 1, float(schema["maximum"])] if "maximum" in schema else []
    if "string" in kinds:
        out += ["x" * (schema["minLength"] - 1)] if schema.get("minLength", 0) > 0 else []
        out += ["x" * (schema["maxLength"] + 1)] if "maxLength" in schema else []
        out += ["\x00", "~" * 3] if "pattern" in schema else []
        if schema.get("format") in ("date-time", "uuid"):
            out += ["yesterday", "2025-02-30T00:00:00Z", "2025-01-01T00:00:00", "2025-01-01", "not-a-uuid"]
    if "array" in kinds:
        out += [[]] if schema.get("minItems", 0) > 0 else []
        out += [[None], [1], [[]], ["x" * 9]]
    if "enum" in schema:
        first = schema["enum"][0]
        out += ["NOT_A_MEMBER", f" {first}"] + ([first.swapcase()] if isinstance(first, str) else [])
    if "const" in schema:
        out += [not schema["const"] if isinstance(schema["const"], bool) else f"not-{schema['const']}"]
    return out


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:20]):
            found += _paths(item, (*prefix, index))
    return found


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replaced(value[head], rest, new)}
    copy = list(value)
    copy[head] = _replaced(copy[head], rest, new)
    return copy


def _repeat(schema: dict[str, Any]) -> int:
    # A tool with one or two fields gets several hostile values per field and base, so that it
    # reaches as many distinct sets as a tool with many fields.
    return max(1, 6 // max(1, len(schema.get("properties", {}))))


def mutations_per_base(schema: dict[str, Any]) -> int:
    return 2 * _repeat(schema) * len(schema.get("properties", {})) + len(schema.get("required", [])) + 3


def mutated_arguments(schema: dict[str, Any], hints: Hints | None = None) -> st.SearchStrategy[list[dict[str, Any]]]:
    """One valid argument set, changed in every hostile way, one change per set: each required
    field dropped, an unknown field added, each field's value replaced by random (hostile) JSON
    and by a wrong type or crossed bound, a nested value replaced, random fields laid over it.
    (One base for many sets: Hypothesis' cost is per example, not per value drawn.)"""
    valid = valid_arguments(schema, hints)
    properties: dict[str, Any] = schema.get("properties", {})
    crossed = {name: st.sampled_from(violations(sub)) for name, sub in properties.items() if violations(sub)}
    unknown_keys = _keys.filter(lambda k: k not in properties)
    overlay = st.dictionaries(
        st.sampled_from(sorted(properties) or ["x"]) | _keys, hostile_json, min_size=1, max_size=4
    )
    repeat = _repeat(schema)

    @st.composite
    def mutated(draw: st.DrawFn) -> list[dict[str, Any]]:
        base = draw(valid)
        out = [{k: v for k, v in base.items() if k != name} for name in schema.get("required", [])]
        out.append({**base, draw(unknown_keys): draw(hostile_json)})
        for name in properties:
            for _ in range(repeat):
                out.append({**base, name: draw(hostile_json)})
                if name in crossed:
                    out.append({**base, name: draw(crossed[name])})
        if paths := _paths(base):
            out.append(_replaced(base, draw(st.sampled_from(paths)), draw(hostile_json)))
        out.append({**base, **draw(overlay)})
        return out

    return mutated()


def random_arguments(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts of the tool's own field names and random ones, with arbitrary (hostile) JSON values."""
    names = sorted(schema.get("properties", {})) or ["x"]
    return st.dictionaries(st.sampled_from(names) | _keys | _hostile_text, hostile_json, max_size=6)
