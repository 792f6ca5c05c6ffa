"""trybench-sdk's application-evaluation helpers (`bench_sdk/evaluation.py` through `Bench.evaluate_system`,
`simulate_system` and `publish_system_evaluation`), unmodified, against `bench_mock`: the report is made
locally (no request), published explicitly, and read back whole through list_runtime_evaluations (§Publish
real app results, C-51, C-52)."""

from __future__ import annotations

import asyncio
import json

import pytest
from bench_sdk import EvaluationContext

from .sdk_helpers import SYSTEM, Mock, covers, platform, tracer, traces

pytestmark = pytest.mark.http
REVISION = "0123456789abcdef0123456789abcdef01234567"


def _published(mock: Mock, environment: str) -> list[dict]:
    return platform(mock).call("list_runtime_evaluations", path={"id": SYSTEM}, query={"environment": environment})[
        "items"
    ]


@covers(
    "tracer:Bench.evaluate_system",
    "tracer:Bench.publish_system_evaluation",
    "evaluation:evaluate",
    "evaluation:EvaluationContext",
)
def test_evaluate_locally_then_publish_the_report_whole(bench_mock: Mock):
    """C-51: the complete report is the body and reads back as sent; C-52: evaluating and publishing start
    nothing and spend nothing, and the evaluation's spans stay in the report (no trace is uploaded)."""
    bench = tracer(bench_mock, environment="eval-env")
    contexts: list[tuple[EvaluationContext, bool]] = []

    async def run(case_input, context):
        contexts.append((context, context.cancelled))
        context.raise_if_cancelled()
        with bench.trace("lookup_order", kind="TOOL", input=case_input):
            pass
        with bench.trace("decide", kind="LLM", model="gpt-4.1"):
            pass
        return {"decision": "approve" if case_input["days"] <= 30 else "deny"}

    cases = [
        {
            "id": "within",
            "input": {"days": 12},
            "expected_output": {"decision": "approve"},
            "required_tools": ["lookup_order"],
        },
        {"id": "late", "input": {"days": 45}, "expected_output": {"decision": "approve"}, "max_model_calls": 0},
    ]
    allowance = platform(bench_mock).call("evaluation_allowance")
    bench_mock.control.clear_journal()
    report = asyncio.run(
        bench.evaluate_system(source_revision=REVISION, context_revision="ctx-3", cases=cases, run=run)
    )
    assert bench_mock.control.journal() == []  # made locally: no request at all
    # each case ran with its own context, live while it ran and cancelled (signalled) once it ended
    assert [(c.case_id, live) for c, live in contexts] == [("within", False), ("late", False)]
    assert all(c.cancelled for c, _ in contexts)
    assert {c["id"]: c["status"] for c in report["cases"]} == {"within": "passed", "late": "failed"}
    assert report["summary"] == {
        "status": "completed",
        "score": 50.0,
        "passed": 1,
        "failed": 1,
        "errors": 0,
        "unscored": 0,
    }
    late = {c["id"]: c for c in report["cases"][1]["checks"]}
    assert (late["expected-output"]["passed"], late["model-call-limit"]["passed"]) == (False, False)
    assert sorted(s["name"] for s in report["cases"][0]["spans"]) == ["decide", "lookup_order", "system-entrypoint"]

    asyncio.run(bench.publish_system_evaluation(SYSTEM, report))
    (stored,) = _published(bench_mock, "eval-env")
    assert stored["report"] == json.loads(json.dumps(report)) and stored["summary"]["score"] == 50.0
    assert platform(bench_mock).call("evaluation_allowance") == allowance
    assert traces(bench_mock, environment="eval-env") == []
    assert platform(bench_mock).call("list_evaluations")["items"][0]["id"] == 789  # nothing started


@covers("tracer:Bench.simulate_system", "evaluation:simulate")
def test_simulated_sessions_are_scored_on_observed_state(bench_mock: Mock):
    """A scripted conversation against a fresh session per case; the expected business state decides; the
    published report reads back as sent (C-51)."""
    bench = tracer(bench_mock, environment="sim-env")

    class Session:
        def __init__(self, state, context):
            self.state = json.loads(json.dumps(state))

        def turn(self, message, context):
            if "refund" in message:
                with bench.trace("refund", kind="TOOL"):
                    self.state["refunded"].append(int(message.split()[-1]))
            return f"turn {context.turn_index}"

        def observe(self):
            return self.state

        def close(self):
            pass

    cases = [
        {
            "id": "refund-42",
            "input": {"turns": ["hello", "please refund 42"], "initial_state": {"refunded": []}},
            "expected_state": {"refunded": [42]},
        },
        {
            "id": "no-refund",
            "input": {"turns": ["hello", "just checking"], "initial_state": {"refunded": [7]}},
            "expected_state": {"refunded": [7, 8]},
        },
    ]
    report = asyncio.run(
        bench.simulate_system(create_session=Session, source_revision=REVISION, context_revision="ctx-3", cases=cases)
    )
    assert {c["id"]: c["status"] for c in report["cases"]} == {"refund-42": "passed", "no-refund": "failed"}
    assert report["cases"][0]["observedState"] == {"refunded": [42]} and report["cases"][0]["output"] == "turn 1"
    asyncio.run(bench.publish_system_evaluation(SYSTEM, report))
    (stored,) = _published(bench_mock, "sim-env")
    assert stored["report"]["cases"] == json.loads(json.dumps(report["cases"]))
    assert stored["summary"] == {
        "status": "completed",
        "score": 50.0,
        "passed": 1,
        "failed": 1,
        "errors": 0,
        "unscored": 0,
    }
