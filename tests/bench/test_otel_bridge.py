"""trybench-sdk's OpenTelemetry bridge (`bench_sdk.otel`), unmodified, with the real `opentelemetry-sdk`: spans
of an instrumented application reach the mock through a `Bench` tracer and are read back whole (C-03: the
tracing client apart from the platform client; the wire is the client's, docs/interpretations.md)."""

from __future__ import annotations

import pytest
from bench_sdk import BenchSpanExporter, infer_span_kind
from bench_sdk.otel import attach, span_to_bench
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import Status, StatusCode

from .sdk_helpers import Mock, by_name, covers, only_trace, parents, platform, tracer

pytestmark = pytest.mark.http


def _agent_run(provider: TracerProvider) -> int:
    """An agent framework's spans, GenAI semantic conventions only: five spans in three levels, one failing
    tool. The OTel trace id."""
    otel = provider.get_tracer("shop-agent")
    with otel.start_as_current_span("invoke_agent shop", attributes={"gen_ai.operation.name": "invoke_agent"}) as root:
        with (
            otel.start_as_current_span("chat gpt-4.1", attributes={"gen_ai.request.model": "gpt-4.1"}),
            otel.start_as_current_span("embeddings", attributes={"gen_ai.operation.name": "embeddings"}),
        ):
            pass
        with otel.start_as_current_span("execute_tool refund", attributes={"gen_ai.tool.name": "refund"}) as tool:
            tool.record_exception(PermissionError("refund window closed"))
            tool.set_status(Status(StatusCode.ERROR, "refund window closed"))
        with otel.start_as_current_span("search docs", attributes={"bench.kind": "RETRIEVER"}):
            pass
        return root.get_span_context().trace_id


@covers("otel:attach", "otel:BenchSpanExporter.export", "tracer:infer_span_kind")
def test_attached_exporter_forwards_an_agent_tree(bench_mock: Mock):
    """Five spans in three levels, with the OTel ids, parents, inferred kinds, the model, the error and the
    environment; list_traces and sdk_status find the trace by its environment. `attach` adds a
    SimpleSpanProcessor, whose force_flush does not reach the exporter: the spans wait in the Bench tracer
    until it flushes."""
    bench = tracer(bench_mock, environment="otel-env", capture_content=True)
    provider = TracerProvider()
    assert attach(bench, provider) is provider
    trace_id = _agent_run(provider)
    assert provider.force_flush() and bench.stats == {"queued": 5, "dropped": 0}
    assert platform(bench_mock).call("list_traces", query={"environment": "otel-env"})["items"] == []
    bench.flush()
    trace = only_trace(bench_mock, "otel-env")
    assert trace["id"] == format(trace_id, "032x") and trace["environment"] == "otel-env"
    spans = by_name(trace)
    assert {n: s["kind"] for n, s in spans.items()} == {
        "invoke_agent shop": "AGENT",
        "chat gpt-4.1": "LLM",
        "embeddings": "EMBEDDING",
        "execute_tool refund": "TOOL",
        "search docs": "RETRIEVER",
    }
    assert parents(trace) == {
        "invoke_agent shop": None,
        "chat gpt-4.1": "invoke_agent shop",
        "embeddings": "chat gpt-4.1",
        "execute_tool refund": "invoke_agent shop",
        "search docs": "invoke_agent shop",
    }
    assert [n for n, s in spans.items() if s["status"] == "error"] == ["execute_tool refund"]
    failed = spans["execute_tool refund"]["attributes"]
    assert (failed["error.message"], failed["exception.type"]) == ("refund window closed", "PermissionError")
    assert spans["chat gpt-4.1"]["model_name"] == "gpt-4.1"
    # the kinds the mock stored are the client's own inference, not a default
    assert infer_span_kind({"gen_ai.operation.name": "execute_tool"}) == "TOOL" and infer_span_kind({}) == "UNKNOWN"
    status = platform(bench_mock).call("sdk_status", query={"environment": "otel-env"})
    assert (status["reporting"], status["trace_count"]) == (True, 1)


@covers("otel:BenchSpanExporter.force_flush", "otel:BenchSpanExporter.shutdown", "otel:span_to_bench")
def test_exporter_flushes_metadata_only_spans(bench_mock: Mock):
    """A processor added by hand: the exporter's force_flush delivers one run, the provider's shutdown (the
    exporter's shutdown) the next; without capture_content only metadata attributes leave."""
    bench = tracer(bench_mock, environment="otel-quiet")
    exporter, provider = BenchSpanExporter(bench), TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    seen: list[dict] = []
    provider.add_span_processor(SimpleSpanProcessor(_Recorder(seen)))
    first = _agent_run(provider)
    assert platform(bench_mock).call("list_traces", query={"environment": "otel-quiet"})["items"] == []
    assert exporter.force_flush() is True
    trace = only_trace(bench_mock, "otel-quiet")
    assert trace["id"] == format(first, "032x") and len(trace["spans"]) == 5 == len(seen)
    assert sorted(s["span_id"] for s in trace["spans"]) == sorted(s["span_id"] for s in seen)
    tool = by_name(trace)["execute_tool refund"]
    assert tool["status"] == "error" and "error.message" not in tool["attributes"]  # not metadata: kept home
    assert tool["attributes"]["gen_ai.tool.name"] == "refund"
    second = _agent_run(provider)
    provider.shutdown()
    got = platform(bench_mock).call("list_traces", query={"environment": "otel-quiet"})["items"]
    assert sorted(t["id"] for t in got) == sorted(format(t, "032x") for t in (first, second))


class _Recorder:
    """A second exporter: what `span_to_bench` makes of each span, to compare with what the mock stored."""

    def __init__(self, seen: list[dict]) -> None:
        self.seen = seen

    def export(self, spans):
        self.seen.extend(span_to_bench(s) for s in spans)
        return 0

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True
