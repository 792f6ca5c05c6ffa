"""§4.1.1 and §4.6–§4.11 as a state machine over real runs: launch, let time pass,
pause, resume, halt; after every step each run's `display_status` must follow
`status`, `halted` and `halt_reason` as §4.1.1 tabulates, terminal runs stay
terminal, and each transition answers as §4.6/§4.11 say.

Needs the mock's clock (and launches spend money), so it runs against the mock,
or against a live target only with --allow-spend (where time is real).
"""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from contracts.benchwright.suite._support import advance, code_of, expect, launch_run
from contracts.benchwright.suite.conftest import require

TERMINAL = {"ok", "error"}


def expected_display(run: dict) -> str:
    """§4.1.1, read literally: the reason decides the label; nothing halted passes through."""
    reason = run.get("halt_reason") or ""
    if reason.startswith("operator_kill"):
        return "killed"
    if not run["halted"]:
        return run["status"]
    if reason.startswith("operator_pause"):
        return "paused"
    if reason.startswith("agent_review"):
        return "waiting"
    return "halted"


def test_run_lifecycle(client, target, policy, mock_only):
    require(policy, "launchRun")

    class Lifecycle(RuleBasedStateMachine):
        runs = Bundle("runs")

        def __init__(self):
            super().__init__()
            self.known: dict[str, dict] = {}

        def fetch(self, run_id: str) -> dict:
            response = client.get(f"/v1/runs/{run_id}")
            expect(
                response.status_code == 200,
                "spec.status",
                "GET /v1/runs/{id}",
                f"a launched run answered {response.status_code}",
                response,
            )
            return response.json()

        @rule(target=runs)
        def launch(self):
            run_id = launch_run(client)
            self.known[run_id] = self.fetch(run_id)
            return run_id

        @rule(seconds=st.sampled_from([1, 5, 15, 60]))
        def time_passes(self, seconds):
            advance(target, seconds)

        @rule(run_id=runs)
        def pause(self, run_id):
            before = self.fetch(run_id)
            response = client.post(f"/v1/runs/{run_id}/pause")
            if before["status"] != "running":
                expect(
                    response.status_code == 409 and code_of(response) == "invalid_state",
                    "lifecycle.transitions",
                    "POST /v1/runs/{id}/pause",
                    f"pausing a {before['status']} run answered {response.status_code} {code_of(response)}",
                    response,
                )
            elif before["halted"]:
                expect(
                    response.status_code == 409 and code_of(response) == "already_halted",
                    "lifecycle.transitions",
                    "POST /v1/runs/{id}/pause",
                    f"pausing a halted run answered {response.status_code} {code_of(response)}",
                    response,
                )
            else:
                body = response.json()
                expect(
                    response.status_code == 200 and body["halted"] and body["halt_reason"].startswith("operator_pause"),
                    "lifecycle.transitions",
                    "POST /v1/runs/{id}/pause",
                    f"pause answered {response.status_code}",
                    response,
                )

        @rule(run_id=runs)
        def resume(self, run_id):
            before = self.fetch(run_id)
            response = client.post(f"/v1/runs/{run_id}/resume")
            paused = (before.get("halt_reason") or "").startswith("operator_pause") and before["status"] == "running"
            if paused:
                expect(
                    response.status_code == 200 and not response.json()["halted"],
                    "lifecycle.transitions",
                    "POST /v1/runs/{id}/resume",
                    f"resuming a paused run answered {response.status_code}",
                    response,
                )
            else:
                expect(
                    response.status_code == 409 and code_of(response) == "not_paused",
                    "lifecycle.transitions",
                    "POST /v1/runs/{id}/resume",
                    f"resuming a run that is not paused answered {response.status_code} {code_of(response)}",
                    response,
                )

        @rule(run_id=runs, reason=st.sampled_from(["", "superseded", "  spaced   out  "]))
        def halt(self, run_id, reason):
            response = client.post(f"/v1/runs/{run_id}/halt", json={"reason": reason} if reason else {})
            body = response.json()
            expect(
                response.status_code == 200 and body["halted"],
                "lifecycle.transitions",
                "POST /v1/runs/{id}/halt",
                f"halt answered {response.status_code}",
                response,
            )
            expected = " ".join(reason.split())
            expect(
                body["halt_reason"].startswith("operator_kill by ")
                and (not expected or body["halt_reason"].endswith(f": {expected}")),
                "lifecycle.transitions",
                "POST /v1/runs/{id}/halt",
                f"halt_reason {body['halt_reason']!r} does not record {expected!r}",
                response,
            )

        @invariant()
        def display_status_follows_the_table(self):
            for run_id, previous in list(self.known.items()):
                run = self.fetch(run_id)
                expect(
                    run["display_status"] == expected_display(run),
                    "lifecycle.display_status",
                    "GET /v1/runs/{id}",
                    f"status={run['status']} halted={run['halted']} "
                    f"halt_reason={run['halt_reason']!r} shows {run['display_status']!r}, "
                    f"expected {expected_display(run)!r}",
                )
                if previous["status"] in TERMINAL:
                    expect(
                        run["status"] == previous["status"],
                        "lifecycle.transitions",
                        "GET /v1/runs/{id}",
                        f"a {previous['status']} run became {run['status']}",
                    )
                self.known[run_id] = run

    run_state_machine_as_test(Lifecycle)


def test_halt_and_pause_answer_as_documented(client, target, policy, mock_only):
    """§4.11#1: pause halts a running run with an `operator_pause` reason, §4.11#2 a second pause is
    `409 already_halted`, §4.11#3 resume lifts it, §4.11#4 a second resume is `409 not_paused`. §4.6#1:
    halt stops the run now (`halted=true`); §4.6#2 it records the reason, `operator_kill by <who>:
    <reason>`, whitespace collapsed and cut at 200 characters. One run, in that order (the mock's clock)."""
    for operation in ("launchRun", "pauseRun", "resumeRun", "haltRun"):
        require(policy, operation)
    who = (client.get("/v1/tokens/me").json() or {}).get("email")
    run_id = launch_run(client)
    advance(target, 5)
    pause = f"/v1/runs/{run_id}/pause"
    paused = client.post(pause)
    expect(
        paused.status_code == 200
        and paused.json().get("halted") is True
        and str(paused.json().get("halt_reason")).startswith("operator_pause"),
        "§4.11#1",
        "POST /v1/runs/{id}/pause",
        f"pausing a running run answered {paused.status_code} {paused.text[:200]}",
        paused,
    )
    again = client.post(pause)
    expect(
        again.status_code == 409 and code_of(again) == "already_halted",
        "§4.11#2",
        "POST /v1/runs/{id}/pause",
        f"pausing a paused run answered {again.status_code} {code_of(again)}",
        again,
    )
    resumed = client.post(f"/v1/runs/{run_id}/resume")
    expect(
        resumed.status_code == 200 and resumed.json().get("halted") is False,
        "§4.11#3",
        "POST /v1/runs/{id}/resume",
        f"resuming a paused run answered {resumed.status_code} {resumed.text[:200]}",
        resumed,
    )
    twice = client.post(f"/v1/runs/{run_id}/resume")
    expect(
        twice.status_code == 409 and code_of(twice) == "not_paused",
        "§4.11#4",
        "POST /v1/runs/{id}/resume",
        f"resuming a run that is not paused answered {twice.status_code} {code_of(twice)}",
        twice,
    )
    reason = "  superseded   by\tbuild 8813 " + "x" * 300
    halted = client.post(f"/v1/runs/{run_id}/halt", json={"reason": reason})
    body = halted.json() if halted.status_code == 200 else {}
    expected = f"operator_kill by {who}: " + " ".join(reason.split())[:200]
    expect(
        halted.status_code == 200 and body.get("halted") is True,
        "§4.6#1",
        "POST /v1/runs/{id}/halt",
        f"halt answered {halted.status_code} halted={body.get('halted')!r}",
        halted,
    )
    expect(
        body.get("halt_reason") == expected,
        "§4.6#2",
        "POST /v1/runs/{id}/halt",
        f"halt_reason is {body.get('halt_reason')!r}; expected {expected!r}",
        halted,
    )
