"""Streams pass through the proxy event by event, never buffered (the issue's "Deliver 1"), and the
proxy's own failure modes: an unreachable upstream, and the CLI."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import httpx
import pytest

from contracts.proxy.app import ProxyApp
from contracts.runner.target import LiveServer
from mock_server.app import create_app

from .conftest import ProxyServer, proxied, violations

pytestmark = pytest.mark.http

MODEL = {"model": "qwen/qwen3-32b", "provider": "openrouter"}


def test_a_live_run_streams_through_the_proxy_as_the_clock_moves(tmp_path):
    """§5.2 through the proxy: with the mock's clock frozen the run cannot finish, so events read
    before the first clock move prove the proxy relayed them while the upstream stream was still
    open (a buffering proxy would hold them until the stream closed, and the 5 s read timeout would
    fail this test). The stream then runs to `run.finished` with ids strictly increasing, and the
    whole exchange is checked without a violation."""
    with proxied("benchwright", tmp_path, sse_ping_seconds=0.2) as (proxy, url, _):
        token = httpx.post(f"{url}/__mock/tokens", json={"scopes": ["full"]}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        launched = httpx.post(f"{url}/v1/runs", json={"request": "Run MMLU", "model": MODEL}, headers=auth)
        assert launched.status_code == 202, launched.text
        run_id = launched.json()["id"]
        before_clock: list[str] = []
        events: list[str] = []
        ids: list[int] = []
        moved = False
        timeout = httpx.Timeout(10, read=5)
        with httpx.stream("GET", f"{url}/v1/runs/{run_id}/events:stream", headers=auth, timeout=timeout) as stream:
            for line in stream.iter_lines():
                if line.startswith("event:"):
                    events.append(line[6:].strip())
                    if not moved:
                        before_clock.append(events[-1])
                    if events[-1] == "ping":
                        moved = True
                        httpx.post(f"{url}/__mock/clock", json={"advance_seconds": 3})
                elif line.startswith("id:"):
                    ids.append(int(line[3:]))
                elif line.startswith("data:") and events and events[-1] == "run.finished":
                    assert json.loads(line[5:])["status"] == "ok"
                assert len(events) < 1000
    assert before_clock and before_clock[-1] == "ping"  # relayed while the upstream stream was open
    assert events[-1] == "run.finished" and ids == sorted(set(ids))
    streamed = [e for e in proxy.exchanges if e.stream == "sse"]
    assert streamed and len(streamed[0].sse.events) >= len(ids)
    assert not violations(proxy), violations(proxy)


def test_an_unreachable_upstream_is_a_502_and_nothing_hangs(tmp_path):
    """The proxy answers 502 naming the failure when the upstream refuses the connection."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    proxy = ProxyApp("benchgen", dead, log=tmp_path / "drift")
    with ProxyServer(proxy) as server:
        response = httpx.get(f"{server.url}/api/competitions/public/", timeout=10)
    assert response.status_code == 502 and "upstream" in response.json()["error"]


def test_the_cli_serves_the_proxy_and_writes_the_drift_log(tmp_path):
    """`python -m contracts.proxy --api NAME --upstream URL --port N --record FILE --log STEM`."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with LiveServer(create_app(api="benchgen")) as upstream:
        command = [
            sys.executable, "-m", "contracts.proxy", "--api", "benchgen", "--upstream", upstream.url,
            "--port", str(port), "--record", str(tmp_path / "rec.jsonl"), "--log", str(tmp_path / "drift"),
        ]  # fmt: skip
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 20
            while True:
                try:
                    response = httpx.get(f"http://127.0.0.1:{port}/api/competitions/public/", timeout=2)
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline and process.poll() is None, "the proxy did not start"
                    time.sleep(0.1)
        finally:
            process.terminate()
            process.wait(timeout=15)
    assert response.status_code == 200 and "x-contract-violations" not in response.headers
    assert len(response.headers.get_list("date")) == 1  # the upstream's, relayed; none added by the proxy
    assert "No violations" in (tmp_path / "drift.md").read_text()
    assert '"/api/competitions/public/"' in (tmp_path / "rec.jsonl").read_text()


def test_a_client_that_leaves_mid_stream_releases_the_upstream(tmp_path):
    """A stream the client abandons (a live run's, which would never end by itself on a frozen clock)
    is closed upstream and still logged: the exchange is finished within a few seconds."""
    with proxied("benchwright", tmp_path, sse_ping_seconds=0.2) as (proxy, url, _):
        token = httpx.post(f"{url}/__mock/tokens", json={"scopes": ["full"]}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        run_id = httpx.post(f"{url}/v1/runs", json={"request": "Run MMLU", "model": MODEL}, headers=auth).json()["id"]
        with httpx.stream("GET", f"{url}/v1/runs/{run_id}/events:stream", headers=auth) as stream:
            for line in stream.iter_lines():
                if line.startswith("event:"):
                    break
        deadline = time.monotonic() + 5
        while not any(e.stream == "sse" for e in proxy.exchanges):
            assert time.monotonic() < deadline, "the abandoned stream was never closed"
            time.sleep(0.05)
