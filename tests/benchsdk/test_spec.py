"""The spec is the single source of truth: every operation of the reference, its limits as data,
its documented error codes, and a handler behind each (reference: Write path 1–10, Read path)."""

from __future__ import annotations

import re

import pytest

from mock_server.benchsdk.profile import PROFILE
from mock_server.engine.spec import iter_operations

from .client import BASE

WRITE_PATH = {
    "upsertBenchmark",
    "createRun",
    "registerParticipant",
    "planWorkers",
    "claimWorker",
    "heartbeatWorker",
    "postWorkerEvents",
    "createWorkerArtifact",
    "completeWorker",
    "failWorker",
    "releaseWorker",
    "submitRunSummary",
}
READ_PATH = {
    "listBenchmarks",
    "getBenchmark",
    "updateBenchmark",
    "listRuns",
    "listAllRuns",
    "getRun",
    "updateRun",
    "getRunProgress",
    "getParticipantLogs",
    "listParticipantWorkers",
    "getWorker",
    "listRunArtifacts",
    "listWorkerArtifacts",
    "getWorkerArtifact",
    "getBenchmarkResults",
    "getRunResults",
    "getRunTaskResults",
    "getRunTimeline",
    "getRunImports",
    "listRunIterations",
}


# called by @benchsdk/api, not in the reference: served from what the client sends and reads
CLIENT_ONLY = {"listParticipants", "getParticipant", "updateParticipant", "updateWorker"}


@pytest.fixture(scope="module")
def spec():
    from mock_server.engine.spec import load_bundle

    return load_bundle(PROFILE.spec_dir, PROFILE.expand)


def test_the_bundle_is_valid_openapi(spec):
    from openapi_spec_validator import validate

    validate(spec)


def test_every_reference_operation_is_specified_under_api_v1_and_handled(spec):
    """32 operations: write calls 1–10 (12) and the read path (20), each with a handler (A-01); plus the
    four routes @benchsdk/api calls that the reference does not document."""
    ops = {op["operationId"]: path for _, path, _, op in iter_operations(spec)}
    assert set(ops) == WRITE_PATH | READ_PATH | CLIENT_ONLY and len(ops) == 36
    assert all(path.startswith("/api/v1/") for path in ops.values())
    assert set(ops) <= set(PROFILE.handlers)


def test_every_operation_documents_its_errors_and_references_the_envelope(spec):
    """x-errors per operation: 400 invalid_argument, 401, 404 where there are path params; each status a response
    referencing the error schema (A-07)."""
    for _, path, _, op in iter_operations(spec):
        errors = op["x-errors"]
        assert "invalid_argument" in errors["400"] and "unauthenticated" in errors["401"], op["operationId"]
        if "{" in path and op["operationId"] != "upsertBenchmark":  # an upsert creates what is missing
            assert "404" in errors, op["operationId"]
        for status in errors:
            assert op["responses"][status] == {"$ref": "#/components/responses/Error"}, (op["operationId"], status)
        if "requestBody" in op:
            assert errors["413"] == ["payload_too_large"] and errors["415"] == ["unsupported_media_type"]


def test_limits_and_timing_are_spec_data(spec):
    """Transport & conventions, Limits: ≤ 5000 records, ≤ 100 steps, ≤ 20 unique samples (A-08..A-10)."""
    ops = {op["operationId"]: op for _, _, _, op in iter_operations(spec)}
    assert ops["postWorkerEvents"]["x-limits"] == {"maxRecords": 5000, "maxStepsPerRecord": 100, "minRecords": 1}
    assert ops["heartbeatWorker"]["x-limits"] == {"maxConcurrencySamples": 20, "uniqueConcurrencySteps": True}
    # the record bounds are also schema keywords (a stock schemathesis run must not call an empty batch
    # schema-valid), left to the handler (`x-handler-checks`) so its refusal names the limit: they agree
    records = ops["postWorkerEvents"]["requestBody"]["content"]["application/json"]["schema"]["properties"]["records"]
    limits = ops["postWorkerEvents"]["x-limits"]
    assert (records["minItems"], records["maxItems"]) == (limits["minRecords"], limits["maxRecords"])
    assert set(records["x-handler-checks"]) == {"minItems", "maxItems"}
    assert spec["x-timing"]["leaseSeconds"] > 0
    auth = [{"apiKey": []}, {"oauth": [], "orgSlug": []}, {"oauth": [], "orgId": []}]
    assert all(op["security"] == auth for op in ops.values())
    assert spec["components"]["securitySchemes"]["orgSlug"]["name"] == "X-Org-Slug"
    assert spec["components"]["securitySchemes"]["orgId"]["name"] == "X-Organization-Id"


def test_every_operation_refuses_no_token_with_a_documented_code(client, spec):
    """A-02, A-07: without a bearer token every operation answers 401 in the envelope."""
    for method, path, _, op in iter_operations(spec):
        url = re.sub(r"\{[^}]+\}", "x", path)
        response = client.request(method.upper(), url, json={} if method != "get" else None)
        assert response.status_code == 401, (op["operationId"], response.text)
        assert response.json()["error"]["code"] in op["x-errors"]["401"]


def test_a_non_json_body_is_415_in_the_envelope(platform, client):
    """A-05: request bodies are JSON."""
    response = client.put(
        BASE + "/benchmarks/xml", content=b"<b/>", headers={**platform.headers, "Content-Type": "text/xml"}
    )
    assert response.status_code == 415 and response.json()["error"]["code"] == "unsupported_media_type"
