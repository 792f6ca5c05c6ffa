"""The contract package's own pieces: the claims list and the conventions check of one response."""

from __future__ import annotations

import pytest

from contracts.benchsdk import CONTRACT, conventions
from contracts.benchsdk.claims import BY_ID, PROPOSALS
from mock_server.benchsdk.fixtures import SEED_BENCHMARK
from mock_server.benchsdk.profile import PROFILE
from mock_server.engine.spec import iter_operations, load_bundle

SPEC = load_bundle(PROFILE.spec_dir, PROFILE.expand)
OPS = {op["operationId"]: op for *_, op in iter_operations(SPEC)}


def test_claims_are_a01_to_a102_with_text_and_section():
    """Research A.2: 102 fixed ids; every x-claims reference of the spec names one of them."""
    assert list(BY_ID) == [f"A-{i:02d}" for i in range(1, 103)]
    assert all(c.text and c.section and c.quote for c in BY_ID.values())
    assert BY_ID["A-43"].basis == "INFERRED" and not BY_ID["A-102"].checkable
    cited = {c for op in OPS.values() for c in op.get("x-claims", [])}
    assert cited <= set(BY_ID) and len(cited) > 80
    ids = [c.id for c in CONTRACT.claims]
    assert ids[:102] == list(BY_ID) and set(ids[102:]) == set(PROPOSALS)


def _ids(violations):
    return {v.claim for v in violations}


def test_a_real_answer_of_every_seeded_read_passes(platform):
    """Every seeded read of the mock satisfies the conventions (P-envelopes, P-timestamps, A-43, A-75)."""
    (run,) = platform.get(f"/benchmarks/{SEED_BENCHMARK}/runs")["items"]
    base = f"/api/v1/benchmarks/{SEED_BENCHMARK}/runs/{run['id']}"
    workers = platform.get(f"/benchmarks/{SEED_BENCHMARK}/runs/{run['id']}/participants/e2b/workers")["items"]
    art = platform.get(f"/benchmarks/{SEED_BENCHMARK}/runs/{run['id']}/artifacts")["items"][0]
    calls = {
        "getRun": base,
        "getRunProgress": base + "/progress",
        "getRunResults": base + "/results",
        "getRunTaskResults": base + "/results/tasks",
        "getRunTimeline": base + "/results/timeline",
        "getRunImports": base + "/results/imports",
        "listRunIterations": base + "/iterations",
        "listParticipantWorkers": base + "/participants/e2b/workers",
        "getParticipantLogs": base + "/participants/e2b/logs",
        "getWorker": base + f"/workers/{workers[0]['id']}",
        "listRunArtifacts": base + "/artifacts",
        "getWorkerArtifact": base + f"/workers/{art['workerId']}/artifacts/{art['id']}",
        "listBenchmarks": "/api/v1/benchmarks",
        "listAllRuns": "/api/v1/benchmarks/runs",
        "getBenchmarkResults": f"/api/v1/benchmarks/{SEED_BENCHMARK}/results",
    }
    for op_id, url in calls.items():
        response = platform.client.get(url, headers=platform.headers)
        assert conventions.check(OPS[op_id], response.status_code, response.headers, response.json()) == [], op_id


def test_an_undocumented_error_code_is_a_violation():
    """A-07, P-errors: a 4xx carries a code the operation documents, in the envelope."""
    op = OPS["heartbeatWorker"]
    headers = {"content-type": "application/json"}
    ok = conventions.check(op, 409, headers, {"error": {"code": "stale_attempt", "message": "m"}})
    assert ok == []
    assert _ids(conventions.check(op, 409, headers, {"error": {"code": "conflict", "message": "m"}})) == {"P-errors"}
    assert _ids(conventions.check(op, 409, headers, {"detail": "m"})) == {"P-errors"}
    assert "P-status" in _ids(conventions.check(op, 418, headers, {"error": {"code": "x", "message": "m"}}))


@pytest.mark.parametrize(
    ("op_id", "body", "claim"),
    [
        (
            "claimWorker",
            {
                "assignment": {
                    "workerId": "w",
                    "attemptId": "a",
                    "attemptNumber": 1,
                    "participantSlug": "p",
                    "targetConcurrency": 1,
                    "taskRange": {"start": 0, "end": 5, "count": 5},
                }
            },
            "A-43",
        ),
        ("claimWorker", {"assignment": {"workerId": "w"}}, "A-41.2"),
        ("claimWorker", {"workerId": "w"}, "P-envelopes"),
        ("getRun", {"run": {"createdAt": "2026-04-20T10:00:00+00:00"}}, "P-timestamps"),
        ("getRun", {"run": {"summary": {"results": [{"compositeScore": 104}]}}}, "A-75"),
        ("getBenchmark", {"benchmark": {"slug": "Sandbox", "config": {}}}, "A-17"),
        ("createWorkerArtifact", {"artifactId": "a", "uploadUrl": "/__uploads/x", "artifact": {}}, "A-61"),
        ("postWorkerEvents", {"accepted": 1}, "A-16.1"),
        ("postWorkerEvents", {"accepted": True, "duplicate": False}, "P-envelopes"),
        ("postWorkerEvents", {"accepted": 3, "duplicate": True}, "A-16.2"),
    ],
)
def test_conventions_catch_each_kind_of_drift(op_id, body, claim):
    assert claim in _ids(conventions.check(OPS[op_id], 200, {"content-type": "application/json"}, body))
