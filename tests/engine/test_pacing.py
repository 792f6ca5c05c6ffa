"""Pacing (`contracts.runner.pacing`): a run keeps under the target's rate limits and waits out the
429s it did not provoke (§13 for Benchwright; any API whose spec documents `X-RateLimit-*`)."""

from __future__ import annotations

import time

import pytest

from contracts.runner import pacing
from contracts.runner.pacing import Pacer, RateLimited, send
from contracts.runner.safety import BudgetExceeded, NotPermitted, RunPolicy
from mock_server.apis import bundle


class Answer:
    def __init__(self, status: int, headers: dict) -> None:
        self.status_code = status
        self.headers = headers


@pytest.fixture
def slept(monkeypatch) -> list[float]:
    waits: list[float] = []
    monkeypatch.setattr(pacing.time, "sleep", waits.append)
    return waits


def test_header_names_and_window_come_from_the_spec() -> None:
    pacer = Pacer.from_spec(bundle("benchwright"))
    assert (pacer.remaining_header, pacer.reset_header) == ("X-RateLimit-Remaining", "X-RateLimit-Reset")
    assert pacer.window_seconds == bundle("benchwright")["x-tiers"]["window_seconds"]


@pytest.mark.parametrize(
    "headers",
    [{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1"}, {"x-ratelimit-remaining": ["0"]}],
    ids=["httpx", "schemathesis"],
)
def test_an_empty_window_holds_the_next_request_of_its_kind(headers: dict) -> None:
    pacer = Pacer(window_seconds=60)
    pacer.observe("POST", headers, now=100.0)
    assert pacer.delay("PUT", now=130.0) == pytest.approx(30.0)  # writes wait for the window
    assert pacer.delay("GET", now=130.0) == 0.0  # reads have their own bucket
    assert pacer.delay("PUT", now=161.0) == 0.0  # the window has passed


@pytest.mark.parametrize("headers", [{"Retry-After": "7"}, {"retry-after": ["7"]}], ids=["httpx", "schemathesis"])
def test_a_429_is_waited_out_and_sent_again(slept: list[float], headers: dict) -> None:
    answers = iter([Answer(429, headers), Answer(200, {})])
    policy = RunPolicy(live=True, allow_writes=True)
    assert send(policy, Pacer(), "POST", lambda: next(answers)).status_code == 200
    assert slept == [7.0] and policy.spent == 2


def test_a_429_that_lasts_past_the_retries_skips_the_check(slept: list[float]) -> None:
    with pytest.raises(RateLimited):
        send(RunPolicy(live=False), Pacer(), "GET", lambda: Answer(429, {"Retry-After": "1"}))
    assert len(slept) == pacing.RETRIES


def test_a_provoked_429_is_returned_as_it_is(slept: list[float]) -> None:
    answer = send(RunPolicy(live=False), Pacer(), "GET", lambda: Answer(429, {"Retry-After": "1"}), expect_429=True)
    assert answer.status_code == 429 and slept == []


def test_the_budget_and_the_read_only_guard_stop_a_request_before_it_is_sent() -> None:
    sent: list[int] = []
    with pytest.raises(BudgetExceeded):
        send(RunPolicy(live=True, max_requests=0), Pacer(), "GET", lambda: sent.append(1))
    with pytest.raises(NotPermitted):
        send(RunPolicy(live=True), Pacer(), "POST", lambda: sent.append(1))
    with pytest.raises(NotPermitted):
        send(RunPolicy(live=True, allow_writes=True), Pacer(), "DELETE", lambda: sent.append(1))
    assert sent == []


def test_on_a_mock_a_wait_moves_the_mock_clock_on_instead_of_sleeping() -> None:
    """B-37: an early `run_status` poll is 429 throttled with Retry-After; on a mock target the pacer
    waits it out on the mock's own clock (a simulated clock never ends a throttle by real sleep)."""
    from contracts.benchgen.exchange import Control, Exchange
    from contracts.benchgen.suite.conftest import OPERATIONS
    from contracts.benchgen.world import World
    from contracts.runner.session import resolve

    session = resolve("benchgen", {})
    try:
        assert session.control and session.pacer.sleep == session.advance_clock
        with session.client() as client:
            exchange = Exchange(client, OPERATIONS)
            world = World.on_mock(Control(client), exchange)
            sid = world.queue(exchange)

            def poll(**kw):
                return exchange.call("getRunStatus", token=world.token, path={"submission_id": sid}, **kw)

            assert poll().status == 200
            assert poll(expect_429=True).status == 429  # an early poll is throttled
            before, started = Control(client).now(), time.monotonic()
            assert poll().status == 200  # waited out by the pacer, on the mock's clock
            elapsed = time.monotonic() - started
            moved = (Control(client).now() - before).total_seconds()
        assert session.pacer.waited >= 1 and moved >= session.pacer.waited
        assert elapsed < session.pacer.waited  # the wait passed on the mock's clock, not in real time
    finally:
        session.close()
