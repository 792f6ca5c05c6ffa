"""The spec against the published client's own types, field by field (DESIGN: "serve what the real
client reads"; reference header: "Traced from packages/benchsdk-api/src/client.ts + types.ts").

`client_types.json` holds, as data, every request and response type @benchsdk/api uses for the
operations it calls, read at the commit it records. A new client release is a one-file update of
that data, and this test fails until the spec follows.

The rules, for every operation the client calls:
- **responses** (what the client reads): each field the client's type declares is declared by the
  spec with the same JSON type and the same nullability; a field the client does not mark optional
  is required. A closed set of strings (`'available' | 'unavailable'`) is the spec's enum, exactly.
  A field the client marks optional and the mock does not serve is listed under `not_served`, with
  its reason. The spec may serve more than the client reads (TypeScript ignores extra members).
- **requests** (what the client sends): each field the client's type declares is declared by the
  spec with the same JSON type, nullable wherever the client's type is; the spec requires only what
  the client's type requires, so nothing the client may omit is refused.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import pytest

from mock_server.benchsdk.profile import PROFILE
from mock_server.engine.spec import iter_operations, load_bundle

from .client_types import DATA, TYPES, fields_of, parse, read_as


@cache
def spec() -> dict[str, Any]:
    return load_bundle(PROFILE.spec_dir, PROFILE.expand)


def operations() -> dict[str, dict[str, Any]]:
    return {op["operationId"]: op for _, _, _, op in iter_operations(spec())}


# ---- the spec side: a schema's fields, JSON types, nullability and enum ----------------------------


def deref(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        node: Any = spec()
        for part in schema["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def merged(schema: dict[str, Any]) -> dict[str, Any]:
    """An object schema with its `allOf` parts folded in (properties and required united)."""
    schema = deref(schema)
    if "allOf" not in schema:
        return schema
    out: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
    for part in schema["allOf"]:
        part = merged(part)
        out["properties"].update(part.get("properties", {}))
        out["required"] += part.get("required", [])
    return out


def shape(schema: dict[str, Any]) -> tuple[set[str], bool, dict[str, Any]]:
    """(JSON types without null, nullable, the non-null schema) of a property schema."""
    schema = deref(schema)
    if "oneOf" in schema:
        branches = [deref(b) for b in schema["oneOf"]]
        nullable = any(b.get("type") == "null" for b in branches)
        rest = [b for b in branches if b.get("type") != "null"]
        assert len(rest) == 1, schema
        types, inner_null, body = shape(rest[0])
        return types, nullable or inner_null, body
    if "allOf" in schema:
        return {"object"}, False, merged(schema)
    if "const" in schema:
        return {"string"}, False, {"enum": [schema["const"]]}
    declared = schema.get("type")
    types = set(declared) if isinstance(declared, list) else ({declared} if declared else set())
    nullable = "null" in types
    return types - {"null"}, nullable, schema


# ---- the comparison --------------------------------------------------------------------------------


def compare(
    expr: Any, schema: dict[str, Any], where: str, *, reading: bool, problems: list[str], owner: str = ""
) -> None:
    """Append to `problems` every way `schema` differs from the client's type `expr`. `owner` names
    an inline object's holder (the operation, for an envelope), for `not_served`."""
    kind, nullable, detail = parse(expr)
    if kind == "unknown":
        return
    types, spec_nullable, body = shape(schema)
    if nullable != spec_nullable and (reading or nullable):
        problems.append(f"{where}: nullable {spec_nullable} in the spec, {nullable} in the client")
    if kind in ("ref", "inline"):
        if types != {"object"}:
            problems.append(f"{where}: {sorted(types)} in the spec, an object in the client")
            return
        owner = detail if kind == "ref" else owner
        compare_object(fields_of(expr), merged(body), where, reading=reading, problems=problems, owner=owner)
    elif kind == "array":
        if types != {"array"}:
            problems.append(f"{where}: {sorted(types)} in the spec, an array in the client")
            return
        compare(detail, body["items"], where + "[]", reading=reading, problems=problems)
    elif kind == "enum":
        if types != {"string"}:
            problems.append(f"{where}: {sorted(types)} in the spec, a string in the client")
        spec_enum = {v for v in body.get("enum", []) if v is not None}
        if reading and spec_enum != set(detail):
            problems.append(f"{where}: enum {sorted(spec_enum)} in the spec, {sorted(detail)} in the client")
    else:
        allowed = {"number": {"number", "integer"}}.get(kind, {kind})
        if not types or not types <= allowed:
            problems.append(f"{where}: {sorted(types)} in the spec, {kind} in the client")


def compare_object(
    fields: dict[str, Any], schema: dict[str, Any], where: str, *, reading: bool, problems: list[str], owner: str
) -> None:
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    for key, expr in fields.items():
        name = key.removesuffix("?")
        optional = key.endswith("?")
        at = f"{where}.{name}"
        if name not in props:
            if not (reading and optional and f"{owner}.{name}" in DATA["not_served"]):
                problems.append(f"{at}: not declared by the spec")
            continue
        if reading and not optional and name not in required:
            problems.append(f"{at}: the client reads it as always there; the spec does not require it")
        if not reading and optional and name in required:
            problems.append(f"{at}: the client may omit it; the spec requires it")
        compare(expr, props[name], at, reading=reading, problems=problems)
    if not reading:
        missing = required - {k.removesuffix("?") for k in fields}
        if missing:
            problems.append(f"{where}: the spec requires {sorted(missing)}, which the client never sends")


def success_schema(op: dict[str, Any]) -> dict[str, Any]:
    status = next(s for s in op["responses"] if s.startswith("2"))
    return op["responses"][status]["content"]["application/json"]["schema"]


def check_operation(op_id: str) -> list[str]:
    entry = DATA["operations"][op_id]
    op = operations()[op_id]
    problems: list[str] = []
    if entry.get("request"):
        schema = op["requestBody"]["content"]["application/json"]["schema"]
        assert not op["requestBody"].get("required") or "?" not in entry["request"]
        compare(entry["request"], schema, f"{op_id} request", reading=False, problems=problems)
    response = entry.get("response")
    if isinstance(response, dict) and "oneOf" in response:
        branches = deref(success_schema(op))["oneOf"]
        assert len(branches) == len(response["oneOf"]), op_id
        for expr, branch in zip(response["oneOf"], branches, strict=True):
            compare(expr, branch, f"{op_id} {expr}", reading=True, problems=problems)
    elif response is not None:
        compare(response, success_schema(op), f"{op_id} response", reading=True, problems=problems, owner=op_id)
    params = [deref(p) for p in op.get("parameters", [])]
    declared = {p["name"] for p in params if p["in"] == "query"}
    missing = set(entry.get("query", [])) - declared
    if missing:
        problems.append(f"{op_id}: query parameters {sorted(missing)} the client sends are not declared")
    return problems


def test_the_data_pins_a_commit_of_the_published_client():
    """The data names the repository, files and full commit it was read at."""
    source = DATA["source"]
    assert source["repository"] == "computesdk/benchmarks" and source["package"] == "@benchsdk/api"
    assert re.fullmatch(r"[0-9a-f]{40}", source["commit"])
    assert source["files"] == ["packages/benchsdk-api/src/types.ts", "packages/benchsdk-api/src/client.ts"]


def test_every_client_operation_is_in_the_spec_or_recorded_as_undocumented():
    """Each operation of the data is a spec operation; the client methods left out are recorded."""
    assert set(DATA["operations"]) <= set(operations())
    called = {m for entry in DATA["operations"].values() for m in entry["client"]}
    assert not called & set(DATA["not_in_the_reference"])
    assert set(DATA["not_in_the_reference"]).isdisjoint(operations())
    # the routes the client calls and the reference does not document are served from what the client
    # sends and reads (docs/interpretations.md), each saying so in its x-reference
    beyond = set(DATA["served_beyond_the_reference"])
    assert beyond <= set(DATA["operations"]) and beyond <= set(operations())
    assert all(operations()[op]["x-reference"].startswith("Not in the reference") for op in beyond)


@pytest.mark.parametrize("op_id", sorted(DATA["operations"]))
def test_the_spec_declares_exactly_what_the_client_reads_and_sends(op_id):
    """Field by field: names, JSON types, nullability and optionality of the client's types."""
    problems = check_operation(op_id)
    assert not problems, "\n".join(problems)


def test_not_served_entries_name_optional_client_fields():
    """Only a field the client marks optional may be left unserved, and each entry names one."""
    for key in DATA["not_served"]:
        owner, field = key.split(".")
        fields = TYPES[owner] if owner in TYPES else DATA["operations"][owner]["response"]
        assert f"{field}?" in fields, key


INT = {"type": "integer"}


@pytest.mark.parametrize(
    ("expr", "schema", "reading", "expected"),
    [
        ("number", {"type": "boolean"}, True, "['boolean'] in the spec, number in the client"),
        ("number", {"type": "integer"}, True, None),
        ("string", {"type": ["string", "null"]}, True, "nullable True in the spec, False in the client"),
        ("string", {"type": ["string", "null"]}, False, None),
        ("string|null", {"type": "string"}, False, "nullable False in the spec, True in the client"),
        ("'available'|'unavailable'", {"type": "object"}, True, "['object'] in the spec, a string in the client"),
        ("'a'|'b'", {"type": "string", "enum": ["a"]}, True, "enum ['a'] in the spec, ['a', 'b'] in the client"),
        ({"stepCount": "number"}, {"type": "object", "properties": {"taskCount": INT}}, True, "not declared"),
        ({"x": "number"}, {"type": "object", "properties": {"x": INT}}, True, "does not require it"),
        ({"x?": "number"}, {"type": "object", "required": ["x"], "properties": {"x": INT}}, False, "requires it"),
    ],
)
def test_the_comparison_finds_each_kind_of_drift(expr, schema, reading, expected):
    """The checker itself: a boolean for a number, a null the client does not allow, an object for an
    enum, a renamed field, a missing `required`, a request field required that the client may omit."""
    problems: list[str] = []
    compare(expr, schema, "x", reading=reading, problems=problems)
    if expected is None:
        assert problems == []
    else:
        assert any(expected in p for p in problems), problems


@pytest.mark.parametrize(
    ("expr", "value", "message"),
    [
        ("TaskResultsResponse", {"accepted": True}, "is not a number"),
        ("BenchmarkFailurePoint", {"participantSlug": "e2b", "taskIndex": 1, "errorCode": None}, "provider is missing"),
        ("BenchmarkResultsOverviewAnalytics", {"status": "ready", "query": {}}, "is not one of"),
        ("BenchmarkTaskIteration", {"data": None}, "participantSlug is missing"),
        ("BenchmarkAssignment|null", None, None),
        ("BenchmarkRunWorker", None, "is null"),
    ],
)
def test_reading_an_answer_as_the_client_types_it(expr, value, message):
    """`read_as` (used by the end-to-end sequence) refuses what the client's type does not allow."""
    if message is None:
        assert read_as(expr, value) is None
    else:
        with pytest.raises(AssertionError, match=message):
            read_as(expr, value)
    assert read_as("BenchmarkRef", {"id": "b", "slug": "s", "name": "n", "extra": 1}) == {
        "id": "b",
        "slug": "s",
        "name": "n",
    }
