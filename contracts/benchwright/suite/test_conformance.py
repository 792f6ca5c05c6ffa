"""Stateless conformance (schemathesis) over every operation of the spec:
positive and negative data, the built-in checks, and our conventions.

Streams are left to `test_sse.py`, which reads them incrementally with a budget.
Against a live target, operations that spend money or destroy data are skipped
unless opted in (see `contracts.safety`).
"""

from __future__ import annotations

import pytest
import schemathesis

from contracts.benchwright.checks import benchwright_conventions
from contracts.benchwright.suite._support import case_headers, session_only
from contracts.benchwright.suite.conftest import BUNDLE, OPERATIONS
from contracts.runner.conformance import POSITIVE_STATUSES, schemathesis_config
from contracts.runner.pacing import send
from contracts.runner.report import CASES

STREAMS = ["streamRunEvents", "streamOperatorEvents"]
BY_LABEL = {f"{method} {path}": (name, op) for name, (method, path, op) in OPERATIONS.items()}

# §14: the API validates semantically (launch modes, page tokens, index specs), so a schema-valid
# request may get 400 invalid_argument; 422 never exists here (the runner's POSITIVE_STATUSES).
CONFIG = schemathesis_config(POSITIVE_STATUSES)
schema = schemathesis.openapi.from_dict(BUNDLE, config=CONFIG).exclude(operation_id=STREAMS)


@schema.parametrize()
@pytest.mark.claim(
    "headers.request_id",
    "timestamps.rfc3339",
    "money.shape",
    "etag.weak",
    "errors.problem",
    "ratelimit.headers",
    "errors.code_documented",
)
# the clauses the conventions check names one by one (contracts/benchwright/conventions.py)
@pytest.mark.claim(
    "headers.api_version",
    "timestamps.duration_ms",
    "money.currency",
    "money.rounding",
    "errors.status_member",
    "errors.problem_fields",
    "ratelimit.values",
    "ratelimit.anonymous",
)
def test_conformance(case, target, policy, session_cookie):
    name, operation = BY_LABEL[case.operation.label]
    allowed, reason = policy.permits(case.method, operation)
    if not allowed:
        pytest.skip(f"{name} {reason}")
    if session_only(operation) and session_cookie is None:
        pytest.skip(f"{name} needs a browser session, which a live target cannot be given")
    if not policy.probes(case.method, OPERATIONS[name][0]):
        return  # an undocumented-method probe a deployment is not sent
    if not policy.fuzzes(case.method, CASES[case.operation.label]):
        return  # past a deployment's share of generated writes for this operation
    headers = case_headers(case, operation, target, session_cookie)
    if "wait" in (case.query or {}) and isinstance(case.query["wait"], int | float):
        case.query["wait"] = 0  # long-polling is checked on its own; fuzzing must not hold connections
    CASES[case.operation.label] += 1
    response = send(
        policy, target.pacer, case.method, lambda: case.call(base_url=target.base_url, headers=headers, timeout=30)
    )
    case.validate_response(response, additional_checks=[benchwright_conventions], headers=headers)
