"""Fixtures of the contract suite: the target, the safety policy, clients, the spec.

Configuration comes from the environment (the `benchwright-contract` CLI sets it):
BW_API_URL, BW_PAT, BW_PAT_READONLY, BW_PAT_EXPIRED (the target, see
`contracts.target`), BW_CONTRACT_PROFILE (quick|full), BW_CONTRACT_ALLOW_SPEND,
BW_CONTRACT_ALLOW_DESTRUCTIVE, BW_CONTRACT_ALLOW_WRITES, BW_CONTRACT_MAX_REQUESTS.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from contracts.benchwright.checks import KNOWN_CREDENTIALS
from contracts.runner import target as targets
from contracts.runner.http import SuiteClient
from contracts.runner.profiles import PROFILE  # noqa: F401  (loads the quick/full hypothesis profile)
from contracts.runner.safety import LIVE_DEFAULT_BUDGET, Policy
from mock_server.apis import bundle
from mock_server.engine.spec import iter_operations

BUNDLE = bundle("benchwright")
OPERATIONS = {op["operationId"]: (method.upper(), path, op) for method, path, _, op in iter_operations(BUNDLE)}


def _flag(name: str) -> bool:
    return os.environ.get(name, "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def target():
    resolved = targets.resolve()
    KNOWN_CREDENTIALS.add(resolved.pat)
    yield resolved
    resolved.close()


@pytest.fixture(scope="session")
def policy(target) -> Policy:
    budget = os.environ.get("BW_CONTRACT_MAX_REQUESTS")
    return Policy(
        live=target.live,
        allow_spend=_flag("BW_CONTRACT_ALLOW_SPEND"),
        allow_destructive=_flag("BW_CONTRACT_ALLOW_DESTRUCTIVE"),
        allow_writes=_flag("BW_CONTRACT_ALLOW_WRITES"),
        max_requests=int(budget) if budget else (LIVE_DEFAULT_BUDGET if target.live else None),
    )


@pytest.fixture(scope="session")
def client(target, policy) -> SuiteClient:
    suite_client = SuiteClient(target.base_url, policy, target.pat)
    yield suite_client
    suite_client.close()


@pytest.fixture
def mock_only(target):
    """Skip, with the reason, what needs the mock's control surface."""
    if not target.control:
        pytest.skip("needs the mock's control surface (simulated clock, token minting)")


def require(policy: Policy, operation_id: str) -> None:
    method, _, operation = OPERATIONS[operation_id]
    allowed, reason = policy.permits(method, operation)
    if not allowed:
        pytest.skip(f"{operation_id} {reason}")


def clamp_of(operation_id: str, name: str = "limit") -> dict[str, Any]:
    _, _, operation = OPERATIONS[operation_id]
    for param in operation.get("parameters", []):
        if "$ref" in param:
            ref = param["$ref"].split("/")[-1]
            param = BUNDLE["components"]["parameters"][ref]
        if param.get("name") == name and "x-clamp" in param:
            return param["x-clamp"]
    raise KeyError(f"{operation_id} has no clamp on {name}")


@pytest.fixture(scope="session")
def session_cookie(target) -> dict[str, str] | None:
    """A browser session for the suite's user (mock targets only)."""
    if not target.control:
        return None
    body = target.control_post("/sessions", {"user_id": target.tokens.get("user_id")}).json()
    KNOWN_CREDENTIALS.add(body["cookie"])
    return {body["cookie_name"]: body["cookie"]}


def pytest_configure(config):
    config.addinivalue_line("markers", "claim(*ids): the reference claims a check covers (coverage report)")
