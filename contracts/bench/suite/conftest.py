"""The target of the Bench suite: the runner's session (or a stand-alone one, see `_runner`)."""

from __future__ import annotations

import pytest

from .._runner import KEY_ENV, OAUTH_ENV, current
from ._client import Bench


@pytest.fixture(scope="session")
def target():
    return current()


@pytest.fixture(scope="session")
def http(target):
    client = target.client()
    yield client
    client.close()


@pytest.fixture(scope="session")
def bench(target, http) -> Bench:
    return Bench(http, target.env[KEY_ENV], target.env.get(OAUTH_ENV))


@pytest.fixture
def embedded(target, http):
    """Checks that need the mock's control surface; the mock is reset to its fixtures first."""
    if not target.embedded:
        pytest.skip("needs the mock's /__mock control surface")
    assert http.post("/__mock/reset").status_code == 204
    return http


@pytest.fixture
def writes(target):
    if not (target.embedded or target.policy.allow_writes):
        pytest.skip("changes state: run with --allow-writes")


@pytest.fixture
def spends(target):
    """Evaluations spend the allowance: only with --allow-spend against a live target."""
    if not (target.embedded or target.policy.allow_spend):
        pytest.skip("spends evaluation allowance: run with --allow-spend")


@pytest.fixture
def oauth(bench):
    if not bench.oauth:
        pytest.skip(f"account-class operation: set {OAUTH_ENV}")
    return bench.oauth


@pytest.fixture
def system_id(target, bench, writes, oauth):
    """A system of our own to write to: created for the test, deleted after it when deletes are allowed."""
    r = bench.call("create_system", body={"name": "contract suite system"}, token="oauth")
    assert r.status_code in (200, 201), r.text
    sid = r.json()["system"]["id"]
    yield sid
    if target.embedded or target.policy.allow_destructive:
        bench.call("delete_system", path={"id": sid})
