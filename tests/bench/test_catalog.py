"""The spec, and the catalog the mock serves from it, against the installed SDK's pinned catalog
(C-07, C-08, C-09, C-27).

An SDK release that adds, removes or changes an operation (method, path, auth class,
parameters, request schema, multipart field or limit) fails here until the spec follows. The
served `list_operations` answer equals the pinned `operations.json` entry for entry and field
for field, nulls included (`get_runtime_settings` states `"body": null`). The order of the
entries is not compared: the spec groups operations by reference section, the SDK's file by
its own order.
"""

from __future__ import annotations

import json
from importlib.resources import files

import pytest
from starlette.testclient import TestClient

from mock_server.bench.spec_catalog import (
    MISSING,
    catalog_entry,
    catalog_from_spec,
    compare,
    load_spec,
    spec_operations,
)

from .conftest import make_app

SECURITY = {
    "public": [{}],
    "credential": [{"api_key": []}, {"oauth_account": []}, {"session": []}],
    "account": [{"oauth_account": []}, {"session": []}],
}


PINNED = json.loads(files("bench_sdk").joinpath("operations.json").read_text())
SERVED_FIELDS = sorted({field for entry in PINNED["operations"] for field in entry})


@pytest.fixture(scope="module")
def pinned() -> dict:
    return PINNED


@pytest.fixture(scope="module")
def spec() -> dict:
    return load_spec()


@pytest.fixture(scope="module")
def by_id(spec) -> dict:
    return {op["operationId"]: (m, p, op) for m, p, op in spec_operations(spec)}


def test_every_catalog_operation_is_in_the_spec_unchanged(pinned, spec):
    """C-27: read the catalog, never a hard-coded count; the spec's catalog equals the SDK's."""
    diff = compare(pinned, catalog_from_spec(spec))
    assert diff == {"missing": [], "extra": [], "changed": []}, diff


@pytest.mark.parametrize("field", ["method", "path", "auth", "path_parameters", "query", "body", "form"])
def test_each_field_agrees(pinned, by_id, field):
    """Field by field, so a failure names what an SDK release changed; a stated `null` is not an absence."""
    for entry in pinned["operations"]:
        method, path, op = by_id[entry["id"]]
        mine = catalog_entry(method, path, op)
        assert entry.get(field, MISSING) == mine.get(field, MISSING), (entry["id"], field)


@pytest.fixture(scope="module")
def served() -> dict:
    """The catalog as `list_operations` answers it, over HTTP from the mock (no credential: public)."""
    response = TestClient(make_app()).get("/api/headless/operations")
    assert response.status_code == 200
    return response.json()


def test_the_served_catalog_is_the_pinned_catalog(pinned, served):
    """C-08, C-09: the network catalog equals the SDK's pinned one: the same version, the same ids, and each
    entry equal as JSON (every field, `null`s included)."""
    assert served["version"] == pinned["version"] and set(served) == set(pinned)
    mine = {o["id"]: o for o in served["operations"]}
    assert len(mine) == len(served["operations"])
    assert sorted(mine) == sorted(o["id"] for o in pinned["operations"])
    for entry in pinned["operations"]:
        assert mine[entry["id"]] == entry, (
            entry["id"],
            compare({"operations": [entry]}, {"operations": [mine[entry["id"]]]}),
        )


def test_the_served_catalog_states_the_null_body(pinned, served):
    """The one entry the pinned file gives an explicit `"body": null` is served with that key and that null."""
    nulls = [o["id"] for o in pinned["operations"] if "body" in o and o["body"] is None]
    assert nulls == ["get_runtime_settings"]
    entry = next(o for o in served["operations"] if o["id"] == "get_runtime_settings")
    assert "body" in entry and entry["body"] is None


@pytest.mark.parametrize("field", SERVED_FIELDS)
def test_each_served_field_agrees(pinned, served, field):
    """Field by field over the served JSON, so a failure names the field: present on both sides or on neither."""
    mine = {o["id"]: o for o in served["operations"]}
    for entry in pinned["operations"]:
        assert entry.get(field, MISSING) == mine[entry["id"]].get(field, MISSING), (entry["id"], field)


def test_compare_tells_a_null_from_an_absence():
    """`compare` is exact: `body: null` against no `body` is a changed field."""
    pinned = {"operations": [{"id": "x", "body": None}], "version": 1}
    assert compare(pinned, {"operations": [{"id": "x"}], "version": 1})["changed"] == ["x: body"]
    assert compare(pinned, pinned)["changed"] == []


def test_operation_id_is_the_catalog_id_and_security_matches_the_auth_class(pinned, by_id):
    """Issue item 1: operationId = catalog id; `x-auth-class` and `security` agree."""
    for entry in pinned["operations"]:
        _, _, op = by_id[entry["id"]]
        assert op["x-auth-class"] == entry["auth"]
        assert op["security"] == SECURITY[entry["auth"]], entry["id"]


def test_multipart_operations_declare_the_file_field_and_limit(pinned, by_id):
    """C-29–C-32: multipart/form-data with the catalog's file field; the byte limit is spec data."""
    multipart = [e for e in pinned["operations"] if e.get("multipart")]
    assert multipart
    for entry in multipart:
        _, _, op = by_id[entry["id"]]
        schema = op["requestBody"]["content"]["multipart/form-data"]["schema"]
        field = schema["properties"][entry["file_field"]]
        leaf = field.get("items", field)
        assert leaf.get("contentMediaType") == "application/octet-stream" or leaf.get("format") == "binary"
        assert op["x-max-file-bytes"] == entry["max_file_bytes"]


def test_streaming_operations_answer_ndjson(pinned, by_id):
    """C-61: the catalog's streaming operations declare an application/x-ndjson response."""
    for entry in pinned["operations"]:
        _, _, op = by_id[entry["id"]]
        ok = next(v for k, v in op["responses"].items() if k.startswith("2"))
        assert ("application/x-ndjson" in ok.get("content", {})) == bool(entry.get("streaming")), entry["id"]


def test_every_operation_declares_errors_and_a_success_response(by_id):
    """Issue item 1: `x-errors` by status, each status with a response; auth errors match the class."""
    for op_id, (_, _, op) in by_id.items():
        errors = op["x-errors"]
        for status, codes in errors.items():
            assert codes and all(isinstance(c, str) for c in codes), op_id
            assert status in op["responses"], (op_id, status)
        if op["x-auth-class"] != "public":
            assert "invalid_credential" in errors["401"], op_id
        assert ("account_authorization_required" in errors.get("403", [])) == (op["x-auth-class"] == "account"), op_id
        assert any(k.startswith("2") for k in op["responses"]), op_id


def test_plan_limited_operations_declare_the_plan_limit_error(by_id):
    """C-54, C-66: operations with a required plan document 402 plan_limit."""
    for op_id, (_, _, op) in by_id.items():
        if "x-plan-required" in op or "x-spends" in op:
            assert "plan_limit" in op["x-errors"].get("402", []), op_id


def test_response_schemas_carry_what_the_reference_reads(spec, by_id):
    """C-33, C-48, C-53: `context.version`, `runs[].id`, and the error envelope's code/message/reference."""
    schemas = spec["components"]["schemas"]
    _, _, ctx = by_id["get_system_context"]
    assert ctx["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/ContextEnvelope")
    assert schemas["Context"]["properties"]["version"]["type"] == "integer"
    _, _, start = by_id["start_system_evaluation"]
    assert start["responses"]["201"]["content"]["application/json"]["schema"]["$ref"].endswith("/StartedRuns")
    assert schemas["EvaluationRun"]["properties"]["id"]["type"] == "integer"
    assert set(schemas["Error"]["required"]) == {"code", "message", "reference"}
    assert {"pricing_url", "upgrade_url", "billing_url", "payment_confirmation_required", "manage_key_url"} <= set(
        schemas["Error"]["properties"]
    )


def test_plans_are_spec_data(spec):
    """Issue item 2: the four plans and their limits live in the spec."""
    plans = spec["x-plans"]
    assert plans["order"] == ["free", "builder", "growth", "enterprise"]
    assert set(plans["plans"]) == set(plans["order"])


def test_the_bundle_is_valid_openapi(spec):
    """The merged spec passes openapi-spec-validator (3.1)."""
    from openapi_spec_validator import validate

    validate(spec)
