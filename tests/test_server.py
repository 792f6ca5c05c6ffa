"""The HTTP server every mock runs under (`mock_server/server.py`): a request's head is bounded.

DESIGN.md and the stress issue's item 2 ("oversized headers and query strings ... each gets the
API's documented 4xx in its error format: no 500, no hang, and the process's memory stays
bounded"): past `max_head_bytes` a head is refused with 431 (headers) or 414 (request target)
in the API's own error format, with its standard headers, and the connection closes; heads under
the bound, one after another on one connection, are served as usual.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time

import httpx
import orjson
import pytest

from contracts.runner.target import LiveServer
from mock_server.app import create_app
from mock_server.server import MAX_HEAD_BYTES, granian_available
from mock_server.stress.process import free_port
from mock_server.stress.rawhttp import exchange, request_head

pytestmark = pytest.mark.http


@pytest.fixture(scope="module")
def benchwright():
    with LiveServer(create_app(api="benchwright")) as server:
        yield server


@pytest.fixture(scope="module")
def benchgen():
    with LiveServer(create_app(api="benchgen")) as server:
        yield server


def test_oversized_headers_get_431_as_problem_json(benchwright):
    """§3.9 (problem+json with a `code`) and §1 (every response carries the request id and version)."""
    headers = {f"X-Filler-{i}": "y" * 1000 for i in range(MAX_HEAD_BYTES // 1000 + 8)}
    response = exchange(benchwright.port, request_head("GET", "/v1/registry/benchmarks", headers), timeout=10)
    assert response.status == 431
    assert response.headers["content-type"] == "application/problem+json"
    body = orjson.loads(response.body)
    assert body["status"] == 431 and body["code"] == "request_header_fields_too_large"
    assert response.headers["x-benchwright-request-id"] == body["request_id"]
    assert response.headers["x-benchwright-api-version"] == "1"
    assert response.headers["connection"] == "close"


def test_an_oversized_request_target_gets_414(benchwright):
    """A 1 MiB query string: 414, in the API's format (§3.9)."""
    target = "/v1/registry/benchmarks?q=" + "z" * (1024 * 1024)
    response = exchange(benchwright.port, request_head("GET", target, {}), timeout=10)
    assert response.status == 414
    assert orjson.loads(response.body)["code"] == "uri_too_long"


def test_one_huge_header_line_is_refused_before_it_is_read_whole(benchgen):
    """A single 64 MiB header value: answered long before it has all been sent, in BenchGen's
    DRF format (`{"detail", "code"}`, benchgen-api.md "Errors")."""
    head = b"GET /api/competitions/public/ HTTP/1.1\r\nHost: x\r\nX-Huge: "
    response = exchange(benchgen.port, head, (b"y" * 65536 for _ in range(1024)), timeout=10, pause=0.0005)
    assert response.status == 431
    assert response.sent < 8 * 1024 * 1024, "the server answered only after most of the header had arrived"
    body = orjson.loads(response.body)
    assert set(body) == {"detail", "code"}


def test_no_server_header(benchgen):
    """docs/interpretations.md, "No `Server` header": a mock answers for the API's own server and no reference
    names one, so uvicorn's `Server: uvicorn` is not sent; `Date` still is (RFC 9110 §6.6.1)."""
    response = httpx.get(f"{benchgen.url}/api/competitions/public/")
    assert response.status_code == 200
    assert "server" not in response.headers and "date" in response.headers


def test_heads_under_the_bound_are_served_one_after_another_on_one_connection(benchgen):
    """The bound is per request: three requests, each with a head of three quarters of the limit,
    pipelined on one keep-alive connection, are all answered 200."""
    filler = "y" * (MAX_HEAD_BYTES * 3 // 4)
    one = f"GET /api/competitions/public/ HTTP/1.1\r\nHost: x\r\nX-Filler: {filler}\r\n\r\n".encode()
    with socket.create_connection(("127.0.0.1", benchgen.port), timeout=10) as sock:
        sock.sendall(one * 3)
        received = b""
        while received.count(b"HTTP/1.1 ") < 3 or not received.endswith(b"}"):  # the third JSON body, whole
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
    statuses = re.findall(rb"HTTP/1\.1 (\d{3}) ", received)  # each answer's body runs into the next status line
    assert statuses == [b"200", b"200", b"200"]


@pytest.mark.skipif(not granian_available(), reason="the granian extra is not installed")
def test_granian_serves_the_mock_and_bounds_heads_itself(tmp_path):
    """`python -m mock_server --server granian`: the app is built in Granian's worker from the same
    command line (banner and ready credential included), answers as under uvicorn, and an oversized
    head is refused by Granian's own HTTP/1 buffer (431, plain) before it is read whole."""
    port = free_port()
    log = tmp_path / "granian.log"
    argv = [sys.executable, "-m", "mock_server", "--api", "benchgen", "--server", "granian", "--port", str(port)]
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while "BENCHGEN_TOKEN=" not in log.read_text() or not _listening(port):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.1)
        token = log.read_text().split("BENCHGEN_TOKEN=", 1)[1].split()[0]
        ok = httpx.get(f"http://127.0.0.1:{port}/api/user_llm_models/", headers={"Authorization": f"Bearer {token}"})
        assert ok.status_code == 200, ok.text
        head = b"GET /api/competitions/public/ HTTP/1.1\r\nHost: x\r\nX-Huge: "
        refused = exchange(port, head, (b"y" * 65536 for _ in range(1024)), timeout=10, pause=0.0005)
        assert refused.status == 431
        assert refused.sent < 8 * 1024 * 1024
    finally:
        proc.terminate()
        proc.wait(15)


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0
