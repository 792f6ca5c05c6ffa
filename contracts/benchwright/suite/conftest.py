"""Fixtures of the Benchwright contract suite: the target, the run policy, clients, the spec.

The target is the runner's session (`contracts.runner.session.current`): the embedded
mock, a served one by URL, or a deployment at `BW_API_URL` with `BW_PAT` (and, to widen
the scope and token checks, `BW_PAT_READONLY` and `BW_PAT_EXPIRED`). Options come from
the runner (`HARNESS_CONTRACT_*`; `contracts.runner.safety`).
"""

from __future__ import annotations

from typing import Any

import pytest

from contracts.benchwright.checks import KNOWN_CREDENTIALS
from contracts.runner.http import SuiteClient
from contracts.runner.profiles import PROFILE  # noqa: F401  (loads the quick/full hypothesis profile)
from contracts.runner.safety import RunPolicy
from contracts.runner.session import Session, current
from mock_server.apis import bundle
from mock_server.engine.spec import iter_operations

BUNDLE = bundle("benchwright")
OPERATIONS = {op["operationId"]: (method.upper(), path, op) for method, path, _, op in iter_operations(BUNDLE)}


@pytest.fixture(scope="session")
def target() -> Session:
    session = current("benchwright")
    KNOWN_CREDENTIALS.add(session.credential)
    return session


@pytest.fixture(scope="session")
def policy(target) -> RunPolicy:
    return target.policy


@pytest.fixture(scope="session")
def client(target, policy) -> SuiteClient:
    suite_client = SuiteClient(target.base_url, policy, target.credential, pacer=target.pacer)
    yield suite_client
    suite_client.close()


@pytest.fixture
def mock_only(target):
    """Skip, with the reason, what needs the mock's control surface."""
    if not target.control:
        pytest.skip("needs the mock's control surface (simulated clock, token minting)")


def require(policy: RunPolicy, operation_id: str) -> None:
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


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """The crawl of the existing data (contracts/runner/suite/test_crawl.py) asserts, with Benchwright's
    hooks, the claims and clauses those hooks declare (`CRAWL.claims`): marked so before the coverage
    plugins read the items, so the clause plan counts them as the run does."""
    from contracts.benchwright.crawl import CRAWL

    for item in items:
        if item.name == "test_crawl_existing_data":
            item.add_marker(pytest.mark.claim(*CRAWL.claims))
