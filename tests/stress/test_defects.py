"""Defects the stress suite found, each with a test that failed until its fix landed (a
defect still open is a strict xfail here: its fix turns it into an unexpected pass, so the
marker comes off with the fix)."""

from __future__ import annotations

import dataclasses
import time

import pytest

from mock_server.stress.process import MockProcess
from mock_server.stress.rawhttp import exchange, request_head

from .conftest import APIS

MB = 1024 * 1024
pytestmark = pytest.mark.http


@pytest.mark.skipif("benchsdk" not in APIS, reason="benchsdk's app does not build")
def test_presigned_upload_refuses_a_100mb_body_before_reading_it():
    """Item 2: "a 100 MB body (refused early with 413, never read whole)", for the upload step of
    the two-step artifact upload (docs/benchsdk.md: presigned URLs on the same process)."""
    with MockProcess("benchsdk") as mock:
        before = mock.rss_kb()
        head = request_head(
            "PUT", "/__uploads/stress/object.bin?exp=1&sig=bad",
            {"Content-Type": "application/octet-stream", "Content-Length": str(100 * MB)},
        )  # fmt: skip
        response = exchange(mock.port, head, (b"\0" * 65536 for _ in range(1600)), timeout=30, pause=0.0005)
        grown = mock.rss_kb() - before
    assert 400 <= response.status < 500
    assert response.sent < 100 * MB, "the server answered only once the whole body had arrived"
    assert grown < 32 * 1024, f"RSS grew by {grown // 1024} MiB"


@pytest.mark.skipif("benchgen" not in APIS, reason="BenchGen's app does not build")
def test_oversized_headers_are_refused_and_not_held():
    """Item 2: "oversized headers": a 4xx (431 or 400), and memory bounded. Any API shows it (the
    server is shared); BenchGen is the cheapest to start."""
    with MockProcess("benchgen") as mock:
        before = mock.rss_kb()
        headers = {f"X-H{i}": "y" * 8000 for i in range(64 * 128)}
        response = exchange(mock.port, request_head("GET", "/api/competitions/public/", headers), timeout=30)
        grown = mock.rss_kb() - before
    assert response.status == 431, response.body[:200]
    assert grown < 16 * 1024, f"RSS grew by {grown // 1024} MiB"


@pytest.mark.skipif("benchwright" not in APIS, reason="Benchwright's app does not build")
@pytest.mark.parametrize("operation_id", ["streamRunEvents", "streamOperatorEvents"])
def test_sse_response_schemas_describe_one_event(operation_id):
    """Item 1: "0 responses that break the spec" (§5.2): the fuzzer reads each SSE event as
    `{event, id, data}` and validates it against the media type's schema."""
    import jsonschema

    from mock_server.apis import bundle

    spec = bundle("benchwright")
    media = next(
        op["responses"]["200"]["content"]["text/event-stream"]
        for item in spec["paths"].values()
        for op in item.values()
        if isinstance(op, dict) and op.get("operationId") == operation_id
    )
    schema = media.get("itemSchema", media.get("schema"))
    event = {"event": "RunLaunched", "id": "0", "data": '{"type":"RunLaunched","sandbox_id":"sbx_1"}'}
    jsonschema.validate(event, {**schema, "components": spec["components"]})  # its $refs resolve in the bundle


@pytest.mark.skipif("benchwright" not in APIS, reason="Benchwright's app does not build")
def test_a_ledger_post_costs_the_same_with_a_long_ledger():
    """Item 6: "p99 latency stable from the first thousand requests to the last": a debit must not
    cost more as the ledger grows (a ratio measured in the same run, 300 posts each)."""
    from mock_server.app import create_app
    from mock_server.benchwright.model import ledger

    api = create_app().state.api
    store = api.store
    account = next(iter(store.ledger.values())).account_id

    def cost() -> float:
        started = time.perf_counter()
        for _ in range(300):
            ledger.post(store, account, "trace_debit", -1)
        return time.perf_counter() - started

    short = min(cost() for _ in range(3))
    template = next(iter(store.ledger.values()))
    for i in range(50_000):  # another account's history
        row = dataclasses.replace(template, id=f"txn_fill_{i}", account_id="acct_other")
        store.ledger[row.id] = row
    long = min(cost() for _ in range(3))
    assert long / short < 5, f"300 posts: {short * 1000:.1f} ms, then {long * 1000:.1f} ms with 50,000 more rows"


def test_expired_idempotency_entries_are_dropped():
    """Item 6: "memory growth bounded by a documented retention rule": §3.7 keeps a key 24 hours;
    past that nothing may still hold it."""
    from mock_server.policies.idempotency import IdempotencyCache

    cache = IdempotencyCache(ttl_seconds=10)
    for i in range(1000):
        cache.begin("token", f"old-{i}", "fp", now=0.0)
        cache.finish("token", f"old-{i}", 202, b"{}", "application/json", {})
    for i in range(1000):
        cache.begin("token", f"new-{i}", "fp", now=20.0)
    assert not any(key.startswith("old-") for _, key in cache.entries), f"{len(cache.entries)} entries held"


@pytest.mark.skipif("benchgen" not in APIS, reason="BenchGen's app does not build")
def test_the_journal_does_not_hold_request_bodies():
    """Item 2 / item 6: "the process's memory stays bounded": 24 bodies of 8 MiB, each refused
    with a 400 (not JSON), must not stay resident once answered."""
    with MockProcess("benchgen") as mock:
        body = b"x" * (8 * MB)
        head = request_head(
            "POST", "/models/api/queue_benchmark_run",
            {"Authorization": "Bearer bgn_demo_0123456789abcdef0123456789abcdef",
             "Content-Type": "application/json", "Content-Length": str(len(body))},
        )  # fmt: skip
        exchange(mock.port, head + body, timeout=30)  # warm-up: allocator arenas
        before = mock.rss_kb()
        statuses = {exchange(mock.port, head + body, timeout=30).status for _ in range(24)}
        grown = mock.rss_kb() - before
    assert statuses == {400}
    assert grown < 48 * 1024, f"RSS grew by {grown // 1024} MiB after 24 x 8 MiB refused bodies"
