"""Where a BenchGen check joins and runs: a `World`.

On the mock (its control surface) a check gets a fresh user with credits, a token of both
scopes and a fresh auto-approving benchmark it has joined, and time moves by the simulated
clock. On a deployment (with `--allow-spend`: joining and queueing spend credits) it gets
the run's own token and the first public benchmark, joined (or already joined and
approved), and time is real: a wait is bounded (`LIVE_WAIT_SECONDS`) and what is not done
at the bound is drift (B-37).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from contracts.runner.waits import poll

from .exchange import Answer, Control, Exchange

READ, RUN = "benchmark:read", "benchmark:run"
LIVE_WAIT_SECONDS = 300


@dataclass
class World:
    token: str  # holds benchmark:read and benchmark:run
    competition: int  # joined and approved
    model_id: int  # a platform model of the token's user
    advance: Callable[[float], object]  # let `seconds` pass
    embedded: bool
    user: int | None = None  # the user's id on the mock (a deployment does not say)
    credits: int | None = None  # the credits at the start, where known (the mock's fresh user)

    @classmethod
    def on_mock(cls, control: Control, exchange: Exchange, credits: int = 100, name: str = "Contract") -> World:
        user = control.user(credits)
        _, token = control.token(user, [READ, RUN])
        exchange.secrets.add(token)
        cid = control.competition(name, True)
        exchange.expect(exchange.call("registerForCompetition", token=token, path={"id": cid}), "B-11", 201)
        return cls(token, cid, _platform_model(exchange, token), control.advance, True, user, credits)

    @classmethod
    def on_deployment(cls, exchange: Exchange, token: str) -> World:
        listed = exchange.expect(exchange.call("listPublicCompetitions", token=token), "B-05", 200)
        if not listed.body["results"]:
            pytest.skip("the deployment lists no public benchmark to join")
        cid = listed.body["results"][0]["id"]
        joined = exchange.call("registerForCompetition", token=token, path={"id": cid})
        if joined.status == 404:
            raise exchange.fail("B-09.2", joined, f"the listed benchmark {cid} is not found by register")
        if joined.status == 201 and joined.body.get("participant_status") == "pending":
            pytest.skip(f"the account's participation in benchmark {cid} awaits approval")
        if joined.status not in (201, 400):
            exchange.expect(joined, "B-11", 201)
        return cls(token, cid, _platform_model(exchange, token), time.sleep, False)

    def queue(self, exchange: Exchange, token: str | None = None, claim: str = "B-26", **body: object) -> int:
        body = body or {"model_id": self.model_id}
        answer = exchange.call(
            "queueBenchmarkRun", token=token or self.token, body={"competition_id": self.competition, **body}
        )
        self.affordable(answer)
        json_body_accepted(exchange, answer)
        return exchange.expect(answer, claim, 201).body["submission_id"]

    def affordable(self, answer: Answer) -> None:
        """On a deployment a 402 `insufficient_credits` is the account's balance, not drift: the check stops."""
        if not self.embedded and answer.status == 402 and answer.code == "insufficient_credits":
            pytest.skip("the account has too few credits left to queue the check's runs: top it up")

    def finish(self, exchange: Exchange, sid: int, token: str | None = None) -> None:
        """Until run `sid` is done: an hour of simulated time, or real polls as `check_again_seconds` asks."""
        token = token or self.token
        if self.embedded:
            self.advance(3600)
            return
        first = exchange.expect(exchange.call("getRunStatus", token=token, path={"submission_id": sid}), "B-33", 200)
        step = max(1, int(first.body.get("check_again_seconds") or 1))
        poll(
            lambda: exchange.call("getRunStatus", token=token, path={"submission_id": sid}),
            lambda answer: "done" if answer.body.get("done") else "pending",
            done={"done"},
            known={"done", "pending"},
            bound=LIVE_WAIT_SECONDS,
            step=step,
            drift=lambda detail: exchange.fail("B-37", first, f"run {sid}: {detail}"),
        )


def json_body_accepted(exchange: Exchange, answer: Answer) -> None:
    """B-18: the queue call takes a JSON body; a 415 to one is the route refusing what the reference prints."""
    if answer.operation_id == "queueBenchmarkRun" and answer.status == 415:
        raise exchange.fail("B-18", answer, "the queue call refused its JSON body")


def _platform_model(exchange: Exchange, token: str) -> int:
    listed = exchange.call("listUserLlmModels", token=token)
    models = [m for m in listed.body["results"] if m.get("kind") == "platform"] or listed.body["results"]
    if not models:
        raise exchange.fail("B-19", listed, "no model to run on")
    return models[0]["id"]
