"""The contract suite's state machine (token → join → run → poll → results), run in-process on the mock.

It must pass on the mock as it is and fail when the mock breaks a claim it walks.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from contracts.benchgen.exchange import Control, Exchange
from contracts.benchgen.lifecycle import BenchgenLifecycle, Context
from contracts.runner.claims import Drift
from mock_server.apis import bundle
from mock_server.benchgen import fixtures
from mock_server.benchgen.model.state import Store
from mock_server.engine.spec import iter_operations

OPERATIONS = {op["operationId"]: (m.upper(), p, op) for m, p, _, op in iter_operations(bundle("benchgen"))}
PASS = settings(
    max_examples=30, stateful_step_count=30, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck)
)
READ, RUN = "benchmark:read", "benchmark:run"


def _context(client, revocation_seconds: float = 60) -> Exchange:
    exchange = Exchange(client, OPERATIONS, secrets={fixtures.DEMO_TOKEN})
    BenchgenLifecycle.context = Context(
        exchange=exchange,
        control=Control(client),
        token=fixtures.DEMO_TOKEN,
        revocation_seconds=revocation_seconds,
        allow_spend=True,
    )
    return exchange


def _machine(client, revocation_seconds: float = 60) -> tuple[BenchgenLifecycle, object]:
    """One machine, driven step by step (as hypothesis would replay a sequence)."""
    _context(client, revocation_seconds)
    machine = BenchgenLifecycle()
    return machine, machine.start()


def test_the_machine_passes_on_the_mock(bench):
    """B-11…B-50 (§B.4): no drift over many random sequences; it really talks to the mock."""
    exchange = _context(bench.client)
    run_state_machine_as_test(BenchgenLifecycle, settings=PASS)
    assert exchange.answers > 150


def test_a_full_sequence_passes(bench):
    """The §B.4 lifecycle as one sequence: join, repeat, queue each source, poll to done, results, run out."""
    m, demo = _machine(bench.client)
    poor = m.new_user_and_token(scopes=[READ, RUN], credits=10)
    m.join(demo, "auto")
    m.join(demo, "auto")  # B-15 repeat
    m.join(demo, "manual")
    m.queue(demo, "manual", "model_id")  # pending: refused
    m.join(poor, "auto")
    runs = [m.queue(demo, "auto", source) for source in ("model_id", "model", "external", "external_no_key")]
    m.queue(poor, "auto", "model_id")
    m.queue(poor, "auto", "model_id")  # 402
    for _ in range(12):
        for run in runs:
            m.poll(run, demo)
            m.results(run, demo)
        m.advance(5)
    assert all(run.done for run in runs)
    m.poll(runs[0], poor)  # another user's run: 404
    m.teardown()


def test_the_machine_catches_a_wrong_revocation_window(bench):
    """B-48: told the window is 30 s, the machine sees the mock still accept a token at 30 s."""
    m, _ = _machine(bench.client, revocation_seconds=30)
    token = m.new_user_and_token(scopes=[READ, RUN], credits=0)
    m.revoke(token)
    m.advance(30)
    with pytest.raises(Drift) as caught:
        m.join(token, "auto")
    assert caught.value.claim.id == "B-48"


def test_the_machine_catches_a_join_that_ignores_auto_approval(bench, monkeypatch):
    """B-14: a mock that approves everyone is a drift."""
    original = Store.register

    def approve_all(self, competition_id, user_id):
        participation = original(self, competition_id, user_id)
        participation.status = participation.status.APPROVED
        return participation

    monkeypatch.setattr(Store, "register", approve_all)
    m, demo = _machine(bench.client)
    with pytest.raises(Drift) as caught:
        m.join(demo, "manual")
    assert caught.value.claim.id == "B-14"


def test_the_machine_catches_an_early_poll_answered(bench, monkeypatch):
    """P-throttle: a mock that answered a poll sooner than check_again_seconds is a drift."""
    monkeypatch.setattr(Store, "poll", lambda self, token_id, sub, now: self.run_view(sub, now))
    m, demo = _machine(bench.client)
    m.join(demo, "auto")
    run = m.queue(demo, "auto", "model_id")
    m.poll(run, demo)
    with pytest.raises(Drift) as caught:
        m.poll(run, demo)
    assert caught.value.claim.id == "P-throttle"


def test_the_machine_catches_a_leaked_endpoint_key(bench, monkeypatch):
    """B-31: a status that echoed the submitted key is caught by the exchange's scan."""
    from mock_server.benchgen.resources import runs

    original = runs.status_view

    def leaky(view):
        return {**original(view), "model": "sk-contract-0000-9f2c"}  # the machine's first key

    monkeypatch.setattr(runs, "status_view", leaky)
    m, demo = _machine(bench.client)
    m.join(demo, "auto")
    run = m.queue(demo, "auto", "external")
    with pytest.raises(Drift) as caught:
        m.poll(run, demo)
    assert caught.value.claim.id == "B-31"
