"""The spec against the installed SDK's pinned catalog (C-07, C-08, C-09, C-27).

Runs against the spec files alone. An SDK release that adds, removes or changes an
operation (method, path, auth class, parameters, request schema, multipart field or
limit) fails here until the spec follows.
"""

from __future__ import annotations

import json
from importlib.resources import files

import pytest

from mock_server.bench.model.catalog import catalog_entry, catalog_from_spec, compare, normalise, spec_operations
from mock_server.bench.model.specdata import load_spec

SECURITY = {
    "public": [{}],
    "credential": [{"api_key": []}, {"oauth_account": []}, {"session": []}],
    "account": [{"oauth_account": []}, {"session": []}],
}


@pytest.fixture(scope="module")
def pinned() -> dict:
    return json.loads(files("bench_sdk").joinpath("operations.json").read_text())


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
    """Field by field, so a failure names what an SDK release changed."""
    for entry in pinned["operations"]:
        method, path, op = by_id[entry["id"]]
        mine = normalise(catalog_entry(method, path, op))
        assert normalise(entry).get(field) == mine.get(field), (entry["id"], field)


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
