"""`make bench`'s yardstick (issue item 7): the bare app answers the mock's whole response,
and the targets are read against it, with the body-only ratio beside them."""

from __future__ import annotations

import importlib
import json

import httpx
from starlette.testclient import TestClient

from mock_server import benchmark, benchmark_bare


def test_header_lines_keep_the_apis_own_lines_only():
    response = httpx.Response(
        202,
        headers=[
            ("date", "Tue, 01 Dec 2026 19:13:30 GMT"),
            ("content-length", "331"),
            ("content-type", "application/json"),
            ("x-benchwright-api-version", "1"),
            ("x-benchwright-request-id", "req_9f5ea02fb274d499b312"),
            ("x-ratelimit-remaining", "999999988"),
        ],
    )
    assert benchmark.header_lines(response) == [
        ("x-benchwright-api-version", "1"),
        ("x-benchwright-request-id", "req_9f5ea02fb274d499b312"),
        ("x-ratelimit-remaining", "999999988"),
    ]


def test_bare_app_answers_the_captured_response(tmp_path, monkeypatch):
    body = tmp_path / "body.json"
    body.write_bytes(b'{"id":"r1"}')
    lines = [["x-benchwright-api-version", "1"], ["x-ratelimit-limit", "60"]]
    monkeypatch.setenv("BENCH_BODY", str(body))
    monkeypatch.setenv("BENCH_STATUS", "202")
    monkeypatch.setenv("BENCH_HEADERS", json.dumps(lines))
    try:
        app = importlib.reload(benchmark_bare).app
        with TestClient(app) as client:
            answer = client.post("/v1/runs", content=b"{}")
        assert answer.status_code == 202
        assert answer.content == b'{"id":"r1"}'
        assert answer.headers["content-type"] == "application/json"
        assert [(k, v) for k, v in answer.headers.items() if k.startswith("x-")] == [tuple(pair) for pair in lines]
    finally:
        monkeypatch.undo()
        importlib.reload(benchmark_bare)


def _row(endpoint: str, ratios: list[float], body_ratios: list[float], p99: float = 2.0) -> dict[str, object]:
    side = {"rps": 1000.0, "p50": 1.0, "p99": p99, "errors": 0, "requests": 3000}
    return {
        "endpoint": endpoint,
        "server": "uvicorn",
        "bytes": 331,
        "ratios": ratios,
        "body_ratios": body_ratios,
        "load": [0.1, 0.2],
        "mock": side,
        "bare": side,
        "body": side,
    }


def test_targets_are_read_against_the_same_response_with_body_only_beside():
    text = benchmark.report(
        [
            _row("POST /v1/runs", [0.33, 0.34, 0.32], [0.27, 0.28, 0.28]),
            _row("GET /v1/runs", [0.49, 0.48, 0.47], [0.45, 0.44, 0.46]),
            _row("GET /v1/runs/{id}", [0.6, 0.6, 0.6], [0.5, 0.5, 0.5], p99=12.0),
        ],
        3,
        16,
        3,
    )
    assert (
        "- POST /v1/runs (uvicorn): 0.33x (target >= 0.3); p99 2.00 ms (target < 10 ms): met (body only: 0.28x)" in text
    )
    assert "- GET /v1/runs (uvicorn): 0.48x (target >= 0.5): NOT met (body only: 0.45x)" in text
    assert "- GET /v1/runs/{id} (uvicorn): 0.60x (target >= 0.5): met (body only: 0.50x)" in text  # p99 is the launch's
    assert "| 1000 (0.28x) |" in text
