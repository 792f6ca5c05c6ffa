"""trybench-sdk's tracer (`bench_sdk.Bench`, `client.py`), unmodified, against the `bench_mock` fixture; every
test reads back through the platform API (list_traces, get_trace, sdk_status, link_span, evaluate_span) what
the tracer sent. The reference says of this client only that it exists apart from the platform client (C-03)
and that Bench credentials are scoped keys (C-17); what the mock serves it is the client's own wire format
(docs/interpretations.md, Bench: the tracing client)."""

from __future__ import annotations

import asyncio

import pytest
from bench_sdk import Bench

from .sdk_helpers import BRANCH, REPO, SYSTEM, Mock, by_name, covers, only_trace, parents, platform, tracer, traces

pytestmark = pytest.mark.http

TREE = {  # name: (kind, parent)
    "answer": ("AGENT", None),
    "plan": ("CHAIN", "answer"),
    "retrieve": ("RETRIEVER", "plan"),
    "embed": ("EMBEDDING", "plan"),
    "lookup_order": ("TOOL", "answer"),
    "draft": ("LLM", "answer"),
}


def _traced_app(bench: Bench) -> None:
    """Six spans in three levels, one of each kind."""
    with bench.trace("answer", kind="AGENT", input={"question": "Where is order 42?"}) as root:
        with bench.trace("plan", kind="CHAIN"):
            with bench.trace("retrieve", kind="RETRIEVER", attributes={"gen_ai.operation.name": "retrieve"}):
                pass
            with bench.trace("embed", kind="EMBEDDING", component_id=457):
                pass
        with bench.trace("lookup_order", kind="TOOL", attributes={"gen_ai.tool.name": "lookup_order"}):
            pass
        with bench.trace("draft", kind="LLM", model="gpt-4.1", input="Summarise order 42") as llm:
            llm.set_output("Order 42 ships today.")
        root.set_output("Order 42 ships today.")


@covers(
    "platform:BenchPlatform.operations",
    "tracer:Bench(api_key=)",
    "tracer:Bench(repository=)",
    "tracer:Bench(branch=)",
    "tracer:Bench(system_name=)",
    "tracer:Bench(environment=)",
    "tracer:Bench(endpoint=)",
    "tracer:Bench.trace",
    "tracer:Bench.trace(kind=)",
    "tracer:Bench.trace(component_id=)",
    "tracer:Bench.trace(model=)",
    "tracer:Bench.trace(attributes=)",
    "tracer:Bench.flush",
)
def test_a_trace_of_six_spans_in_three_levels_is_served_whole(bench_mock: Mock):
    """C-03, C-17: the SDK key (`bench_sk_`) is accepted; the six entries the tracer sends under one trace id
    are one trace, with its environment, parents and kinds; list_traces and sdk_status filter by it."""
    assert platform(bench_mock).operations()["version"] == 1  # the pinned catalog the spec follows
    bench = tracer(bench_mock, system_name="Support assistant")
    _traced_app(bench)
    bench.flush()
    trace = only_trace(bench_mock)
    assert (trace["environment"], trace["repo_full_name"], trace["branch"]) == ("staging-eu", REPO, BRANCH)
    assert trace["system_name"] == "Support assistant"
    assert {n: (s["kind"], parents(trace)[n]) for n, s in by_name(trace).items()} == TREE
    spans = by_name(trace)
    assert spans["draft"]["model_name"] == "gpt-4.1" and spans["embed"]["attributes"]["bench.component_id"] == 457
    assert spans["lookup_order"]["attributes"]["gen_ai.tool.name"] == "lookup_order"
    assert all(s["status"] == "ok" and s["attributes"]["bench.environment"] == "staging-eu" for s in spans.values())
    assert "input_value" not in spans["draft"]  # capture_content is off by default: no content leaves
    # the environment filters: ours only under its name, the seeded production trace only under its own
    assert [t["id"] for t in traces(bench_mock, environment="production")] == ["tr_seed"]
    assert traces(bench_mock, environment="staging") == []
    status = platform(bench_mock).call("sdk_status", query={"environment": "staging-eu", "repo_full_name": REPO})
    assert (status["reporting"], status["trace_count"]) == (True, 1)
    assert platform(bench_mock).call("sdk_status", query={"environment": "prod-us"})["trace_count"] == 0


@covers("platform:call:link_span", "platform:call:get_trace")
def test_a_child_span_links_to_a_component(bench_mock: Mock):
    """A span below the root of a tracer's trace can be linked (it is stored, not replaced by its siblings)."""
    bench = tracer(bench_mock)
    _traced_app(bench)
    bench.flush()
    trace = only_trace(bench_mock)
    child = by_name(trace)["lookup_order"]
    api = platform(bench_mock)
    link = api.call(
        "link_span",
        path={"id": trace["id"], "spanID": child["span_id"]},
        body={"ai_system_id": SYSTEM, "ai_system_component_id": 456},
    )["link"]
    assert (link["span_id"], link["ai_system_component_id"]) == (child["span_id"], 456)
    assert api.call("get_trace", path={"id": trace["id"]})["trace"]["links"] == [link]


@covers("tracer:Bench.trace")
def test_errors_mark_the_spans_they_leave(bench_mock: Mock):
    """An exception marks each span it propagates out of as `error`; a span whose error was handled inside
    its parent leaves the parent `ok`."""
    bench = tracer(bench_mock)
    with pytest.raises(LookupError), bench.trace("checkout", kind="AGENT"):
        try:
            with bench.trace("charge_card", kind="TOOL"):
                raise TimeoutError("gateway")
        except TimeoutError:
            pass
        with bench.trace("ship", kind="TOOL"):
            pass
        with bench.trace("reserve_stock", kind="CHAIN"), bench.trace("warehouse", kind="TOOL"):
            raise LookupError("no stock")
    bench.flush()
    statuses = {n: s["status"] for n, s in by_name(only_trace(bench_mock)).items()}
    assert statuses == {
        "checkout": "error",
        "charge_card": "error",
        "ship": "ok",
        "reserve_stock": "error",
        "warehouse": "error",
    }


@covers(
    "tracer:Bench(capture_content=)", "tracer:Bench(redact=)", "tracer:Bench.trace(input=)", "tracer:Span.set_output"
)
def test_content_is_redacted_by_the_client_and_by_privacy_settings(bench_mock: Mock):
    """Content leaves only with capture_content, filtered by the client (secrets, emails) and by the `redact`
    hook; the platform's privacy fields then redact `output_value` server-side, and evaluate_span judges
    `output_value` (yes) until it is redacted (unknown)."""
    bench = tracer(
        bench_mock, capture_content=True, redact=lambda v: v.replace("ORD-9", "[ORDER]") if isinstance(v, str) else v
    )
    with bench.trace("refund", kind="AGENT", input="Refund ORD-9 for ann@example.com key sk-abcdefghijkl") as span:
        span.set_output("yes, approve the refund")
    bench.flush()
    first = only_trace(bench_mock)
    (stored,) = first["spans"]
    assert stored["input_value"] == '"Refund [ORDER] for [REDACTED_EMAIL] key [REDACTED_SECRET]"'
    assert stored["output_value"] == '"yes, approve the refund"'
    api = platform(bench_mock)
    question = {"question": "Was the refund approved?", "yes": "approve", "no": "deny"}
    verdict = api.call("evaluate_span", path={"id": first["id"], "spanID": stored["span_id"]}, body=question)
    assert verdict["evaluation"]["verdict"] == "yes"

    account = platform(bench_mock, "BENCH_OAUTH_TOKEN")
    account.call(
        "set_trace_privacy",
        query={"repo_full_name": REPO, "branch": BRANCH},
        body={"enabled": True, "fields": ["output_value"]},
    )
    later = tracer(bench_mock, capture_content=True, environment="staging-us")
    with later.trace("refund", kind="AGENT", input="Refund ORD-10") as span:
        span.set_output("yes, approve")
    later.flush()
    (redacted,) = only_trace(bench_mock, "staging-us")["spans"]
    assert (redacted["input_value"], redacted["output_value"]) == ('"Refund ORD-10"', "[redacted]")
    trace_id = traces(bench_mock, environment="staging-us")[0]["id"]
    again = api.call("evaluate_span", path={"id": trace_id, "spanID": redacted["span_id"]}, body=question)
    assert again["evaluation"]["verdict"] == "unknown"


@covers("tracer:Bench(sample_rate=)", "tracer:Bench.record_external_span")
def test_sampling_keeps_whole_traces_or_none(bench_mock: Mock):
    """sample_rate 0 sends nothing; external spans are sampled by their trace id's first 32 bits, so a trace
    id below the rate is kept whole and one above is dropped whole."""
    silent = tracer(bench_mock, sample_rate=0)
    _traced_app(silent)
    silent.flush()
    assert traces(bench_mock, environment="staging-eu") == [] and silent.stats == {"queued": 0, "dropped": 0}

    half = tracer(bench_mock, sample_rate=0.5)
    for trace_id in ("10000000" + "a" * 24, "f0000000" + "b" * 24):
        for i, parent in enumerate((None, "0000000000000001")):
            half.record_external_span(
                trace_id=trace_id,
                span_id=f"{i + 1:016x}",
                parent_span_id=parent,
                name=f"step{i}",
                kind="CHAIN",
                started_at="2026-01-01T00:00:00Z",
                ended_at="2026-01-01T00:00:01Z",
            )
    half.flush()
    kept = only_trace(bench_mock)
    assert kept["id"] == "10000000" + "a" * 24 and len(kept["spans"]) == 2
    assert parents(kept) == {"step0": None, "step1": "step0"}


@covers(
    "tracer:Bench.stats",
    "tracer:Bench.shutdown",
    "tracer:Bench(max_queue_size=)",
    "tracer:Bench.__enter__/__exit__",
    "tracer:Bench.aflush",
)
def test_flush_and_shutdown(bench_mock: Mock):
    """Spans wait in a bounded queue until flush; a full queue drops; shutdown flushes and closes (later spans
    are dropped); the context manager shuts down; aflush delivers without blocking a loop."""
    bench = tracer(bench_mock, max_queue_size=3)
    for name in ("a", "b", "c", "d"):
        with bench.trace(name, kind="TOOL"):
            pass
    assert bench.stats == {"queued": 3, "dropped": 1}
    assert traces(bench_mock, environment="staging-eu") == []  # nothing sent before a flush
    bench.shutdown()
    with bench.trace("after", kind="TOOL"):
        pass
    assert bench.stats == {"queued": 0, "dropped": 2}
    names = sorted(s["name"] for t in traces(bench_mock, environment="staging-eu") for s in t["spans"])
    assert names == ["a", "b", "c"]  # three single-span traces: separate root spans are separate traces

    with tracer(bench_mock, environment="ctx-env") as scoped, scoped.trace("inside", kind="AGENT"):
        pass
    assert [s["name"] for s in only_trace(bench_mock, "ctx-env")["spans"]] == ["inside"]

    later = tracer(bench_mock, environment="async-env")
    with later.trace("awaited", kind="AGENT"):
        pass
    asyncio.run(later.aflush())
    assert [s["name"] for s in only_trace(bench_mock, "async-env")["spans"]] == ["awaited"]


@covers("tracer:Bench(on_error=)", "tracer:Bench(timeout=)", "tracer:Bench(transport=)")
def test_delivery_failures_are_retried_once_then_dropped(bench_mock: Mock):
    """A 503 is retried once and the batch dropped (reported to on_error, never raised); a 400 is not
    retried; a custom transport carries the same request the mock stores."""
    errors: list[str] = []
    bench = tracer(bench_mock, on_error=errors.append, timeout=2)
    bench_mock.control.add_fault(operation_id="ingest_traces", status=503)
    with bench.trace("lost", kind="AGENT"):
        pass
    bench.flush()
    sent = [e for e in bench_mock.control.journal() if e["operation_id"] == "ingest_traces"]
    assert [e["status"] for e in sent] == [503, 503]
    assert bench.stats["dropped"] == 1 and errors == ["Bench trace delivery failed; batch dropped."]
    bench_mock.control.clear_faults()

    calls: list[int] = []

    def transport(url: str, headers: dict[str, str], body: bytes, timeout: float) -> int:
        status = Bench._http(url, headers, body, timeout)
        calls.append(status)
        return status

    via = tracer(bench_mock, transport=transport)
    with via.trace("carried", kind="AGENT"):
        pass
    via.flush()
    assert calls == [201] and [s["name"] for s in only_trace(bench_mock)["spans"]] == ["carried"]

    bench_mock.control.add_fault(operation_id="ingest_traces", status=400)
    refused = tracer(bench_mock, on_error=errors.append)
    with refused.trace("bad", kind="AGENT"):
        pass
    bench_mock.control.clear_journal()
    refused.flush()
    assert [e["status"] for e in bench_mock.control.journal() if e["operation_id"] == "ingest_traces"] == [400]


def test_the_mock_refuses_a_trace_id_of_another_account(bench_mock: Mock):
    """Spans accumulate per account: another account's trace id is 409 trace_conflict, and nothing of the
    request is stored (documented in the spec's x-errors)."""
    bench = tracer(bench_mock)
    with bench.trace("mine", kind="AGENT"):
        pass
    bench.flush()
    mine = only_trace(bench_mock)
    other = bench_mock.control.create_account("growth")
    key = bench_mock.control.mint_token("sdk_key", account_id=other.id).token
    assert key.startswith("bench_sk_dev_")
    intruder = Bench(api_key=key, repository=REPO, branch=BRANCH, endpoint=bench_mock.url, environment="x")
    sent = {"trace_id": mine["id"], "span_id": "00000000000000aa", "name": "theirs"}
    intruder.record_external_span(**sent, started_at="2026-01-01T00:00:00Z", ended_at="2026-01-01T00:00:01Z")
    bench_mock.control.clear_journal()
    intruder.flush()
    (entry,) = [e for e in bench_mock.control.journal() if e["operation_id"] == "ingest_traces"]
    assert entry["status"] == 409
    assert [s["name"] for s in only_trace(bench_mock)["spans"]] == ["mine"]
