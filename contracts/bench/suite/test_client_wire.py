"""What trybench-sdk's other doors send and read (docs/bench-notes.md item 14): the tracer's spans, one
`traces[]` entry per span under one trace id with the environment as `attributes["bench.environment"]`
(C-12.3), and the `bench eval` CLI's polling of a runtime run: event cursors, the run's status, and a
result read apart from the status (C-63.2, C-63.3). The traces check writes (--allow-writes against a
deployment); the runtime check needs the mock's clock and GitHub fixture."""

from __future__ import annotations

from contracts.runner import unique

from .test_conventions import check

ENV = "contract-env"
GATE_DECISIONS = {"validated_improvement", "no_improvement", "insufficient_evidence"}


def _span(span_id: str, parent: str | None, env: str) -> dict:
    span = {
        "span_id": span_id,
        "name": f"step-{span_id[-2:]}",
        "kind": "CHAIN",
        "status": "ok",
        "started_at": "2026-01-01T00:00:00Z",
        "ended_at": "2026-01-01T00:00:01Z",
        "attributes": {"bench.environment": env},
    }
    if parent:
        span["parent_span_id"] = parent
    return span


def check_tracer_spans_make_one_trace(bench, env: str = ENV) -> None:
    """C-12.3: three spans sent as the tracer sends them (one entry each, one trace id, two requests) are one
    trace, listed under its environment and counted by sdk_status, and under no other environment."""
    trace_id = unique.hex(32)
    spans = [_span("00000000000000a1", None, env), _span("00000000000000a2", "00000000000000a1", env)]
    spans.append(_span("00000000000000a3", "00000000000000a2", env))
    for batch in (spans[:2], spans[2:]):
        entries = [{"trace_id": trace_id, "source": "bench_sdk", "spans": [sp]} for sp in batch]
        body = {"capture_content": False, "traces": entries}
        r = bench.call("ingest_traces", body=body)
        check("ingest_traces", r)
        if r.status_code != 201:
            raise bench.drift("C-12.3", "POST /api/traces", f"spans of the tracer's form answered {r.status_code}")
    r = bench.call("get_trace", path={"id": trace_id})
    check("get_trace", r)
    got = r.json()["trace"] if r.status_code == 200 else {}
    if sorted(s["span_id"] for s in got.get("spans", [])) != [s["span_id"] for s in spans]:
        raise bench.drift("C-12.3", "GET /api/traces/{id}", "the trace does not hold every span sent under its id")
    if got.get("environment") != env:
        raise bench.drift("C-12.3", "GET /api/traces/{id}", f"environment {got.get('environment')!r}, sent {env!r}")
    r = bench.call("list_traces", query={"environment": env})
    check("list_traces", r)
    if trace_id not in [t["id"] for t in r.json().get("items", [])]:
        raise bench.drift("C-12.3", "GET /api/traces", f"environment={env} does not list the trace")
    r = bench.call("list_traces", query={"environment": env + "-other"})
    check("list_traces", r)
    if trace_id in [t["id"] for t in r.json().get("items", [])]:
        raise bench.drift("C-12.3", "GET /api/traces", "another environment lists the trace")
    r = bench.call("sdk_status", query={"environment": env})
    check("sdk_status", r)
    if not r.json().get("reporting"):
        raise bench.drift("C-12.3", "GET /api/traces/sdk-status", f"environment={env} reports nothing")


def test_tracer_spans_make_one_trace(bench, writes):
    """C-12.3: spans sent one entry each under one trace id make one trace, selected by its environment."""
    check_tracer_spans_make_one_trace(bench)


PLAN = {
    "cases": [{"id": "c1", "input": "a"}, {"id": "c2", "input": "b"}],
    "configurations": [{"id": "current", "model": "gpt-4.1"}, {"id": "candidate", "model": "gpt-4.1-mini"}],
    "budget": {"max_trials": 100},
}


def check_runtime_run_polling(bench, http, system: int = 123) -> None:
    """C-63.2: each event has a cursor above the last, the page names the run's status, and polling after the
    last cursor returns nothing new; C-63.3: the result reads the status apart from result{decision,
    comparisons, metrics}, and a completed run's decision is one `bench eval gate` acts on."""
    r = bench.call("runtime_eval_plan", path={"id": system}, body=PLAN)
    check("runtime_eval_plan", r)
    plan_id = r.json()["plan"]["id"]
    r = bench.call(
        "runtime_eval_run",
        path={"id": system},
        body={"plan_id": plan_id},
        headers={"Idempotency-Key": "contract-" + unique.hex(12)},
    )
    check("runtime_eval_run", r)
    run_id = r.json()["run"]["id"]
    http.post("/__mock/clock", json={"advance_seconds": 3600})
    where = {"id": system, "runID": run_id, "action": "events"}
    r = bench.call("runtime_eval_events", path=where)
    check("runtime_eval_events", r)
    page = r.json()
    cursors = [e.get("cursor") for e in page.get("events", [])]
    if not cursors or None in cursors or cursors != sorted(set(cursors)):
        raise bench.drift("C-63.2", "GET …/events", f"event cursors {cursors}")
    if page.get("status") != "completed":
        raise bench.drift("C-63.2", "GET …/events", f"the page names status {page.get('status')!r}")
    r = bench.call("runtime_eval_events", path=where, query={"after": cursors[-1]})
    check("runtime_eval_events", r)
    if r.json().get("events"):
        raise bench.drift("C-63.2", "GET …/events", "polling after the last cursor returned events again")
    r = bench.call("runtime_eval_results", path={"id": system, "runID": run_id})
    check("runtime_eval_results", r)
    body = r.json()
    result = body.get("result") or {}
    if body.get("status") != "completed" or not {"decision", "comparisons", "metrics"} <= set(result):
        raise bench.drift("C-63.3", "GET …/evaluation-runs/{runID}", "no top-level status or result")
    if result["decision"] not in GATE_DECISIONS:
        raise bench.drift("C-63.3", "GET …/evaluation-runs/{runID}", f"decision {result['decision']!r}")


def test_runtime_run_polling(bench, embedded):
    """C-63.2, C-63.3: a runtime run polled as `bench eval watch` and `gate` poll it."""
    check_runtime_run_polling(bench, embedded)
