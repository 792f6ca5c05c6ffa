"""Fixtures of BenchGen's contract suite: the target (from the runner's session), a checked exchange, the spec.

The runner sets the target: the embedded mock (its `/__mock` control surface exists), or
a live deployment at `BENCHGEN_API_URL` with `BENCHGEN_TOKEN` (a token carrying
`benchmark:read benchmark:run`). Against a live target nothing that needs the control
surface runs, and nothing that joins or queues runs without `--allow-spend`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from contracts.runner import differential
from contracts.runner.connections import http_transport
from contracts.runner.session import current
from mock_server.apis import bundle
from mock_server.engine.spec import iter_operations

from ..exchange import Control, Exchange
from ..world import World

BUNDLE = bundle("benchgen")
OPERATIONS = {op["operationId"]: (method.upper(), path, op) for method, path, _, op in iter_operations(BUNDLE)}
REVOCATION_SECONDS = float(BUNDLE["x-revocation"]["propagation_seconds"])


@pytest.fixture(scope="session")
def target() -> Any:
    return current("benchgen")


@pytest.fixture(scope="session")
def http(target) -> Iterator[Any]:
    """The runner's budgeted client; on the embedded mock a plain one, since its 429s are in simulated
    time (a poll sooner than `check_again_seconds`) and waiting them out in real time would gain nothing."""
    plain = differential.wrap(target, http_transport())  # differential mode: also to the oracle
    client = (
        httpx.Client(base_url=target.base_url, timeout=30.0, transport=plain) if target.embedded else target.client()
    )
    yield client
    client.close()


@pytest.fixture(scope="session")
def token(target) -> str:
    return target.env["BENCHGEN_TOKEN"]


@pytest.fixture
def exchange(http, token) -> Exchange:
    return Exchange(http, OPERATIONS, secrets={token})


@pytest.fixture
def control(http, target) -> Control:
    if not target.embedded:
        pytest.skip("needs the mock's control surface (tokens, clock): the live API has no such operations (B-42)")
    control = Control(http)
    control.reset()
    return control


@pytest.fixture
def world(target, http, exchange, token) -> Callable[..., World]:
    """A place to join and run (`contracts.benchgen.world`): on the mock a fresh user and benchmark (the mock
    reset first), on a deployment the run's account and a public benchmark, with --allow-spend only."""
    if target.embedded:
        control = Control(http)
        control.reset()
        return lambda credits=100, name="Contract": World.on_mock(control, exchange, credits, name)
    if not target.policy.allow_spend:
        pytest.skip("joins a benchmark and queues runs, which spends credits: pass --allow-spend")
    made = World.on_deployment(exchange, token)
    return lambda credits=100, name="Contract": made


@pytest.fixture
def spend(target) -> None:
    if target.live and not target.policy.allow_spend:
        pytest.skip("joins a benchmark and queues a run, which spends credits: pass --allow-spend")
