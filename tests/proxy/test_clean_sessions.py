"""The proxy in front of each registered API's embedded mock, driven by a representative client
session (the calls the tests in `tests/<api>/` make): a mock that keeps its contract shows zero
violations, every exchange reaches the upstream, and nothing is buffered or rewritten.

Each test would fail if any check misjudged correct traffic (a false positive names its claim in
the assertion message), or if the proxy dropped, altered or reordered an exchange (the
upstream's own journal, `GET /__mock/requests`, is compared with what the client sent)."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from .conftest import proxied, violations

pytestmark = pytest.mark.http

OK_RUN = "608721fe-54f1-43e3-ab9b-7e0269783f70"  # Benchwright's seeded public run with 3 trials
MODEL = {"model": "qwen/qwen3-32b", "provider": "openrouter"}


def _clean(proxy, minimum: int) -> None:
    found = violations(proxy)
    assert not found, "violations on a conforming mock:\n" + "\n".join(map(str, found))
    assert len(proxy.exchanges) >= minimum
    assert all(e.operation is not None or e.path.startswith("/__mock") for e in proxy.exchanges)


def test_benchwright_session_has_no_violations(tmp_path):
    """docs/proxy.md; §1, §3.7, §3.8, §3.9, §5.2, §5.3, §13 on a clean mock.

    Covers a launch replayed with the same `Idempotency-Key` (`idempotency.replay`), a PATCH under
    `If-Match` that moves the ETag (`etag.moves`), a refused stale `If-Match` (documented 412 code),
    rate-limit counters across requests, and the run's SSE stream read incrementally through the
    proxy then resumed after `Last-Event-ID` (`sse.dedupe`, `sse.resume`)."""
    with proxied("benchwright", tmp_path, sse_ping_seconds=0.2) as (proxy, url, upstream):
        token = httpx.post(f"{url}/__mock/tokens", json={"scopes": ["full"]}).json()["token"]
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=10) as http:
            assert http.get("/v1/runs").status_code == 200
            run = http.get(f"/v1/runs/{OK_RUN}")
            etag = run.headers["etag"]
            stale = http.patch(
                f"/v1/runs/{OK_RUN}", json={"visibility": "unlisted"}, headers={"If-Match": f'W/"{OK_RUN}:1"'}
            )
            assert stale.status_code == 412
            http.post("/__mock/clock", json={"advance_seconds": 1})
            moved = http.patch(f"/v1/runs/{OK_RUN}", json={"visibility": "unlisted"}, headers={"If-Match": etag})
            assert moved.status_code == 200
            assert http.get(f"/v1/runs/{OK_RUN}").headers["etag"] != etag
            missing = http.get("/v1/runs/00000000-0000-4000-8000-000000000000")
            assert missing.status_code == 404
            key = {"Idempotency-Key": "proxy-session-1"}
            body = {"request": "Run MMLU", "model": MODEL}
            first = http.post("/v1/runs", json=body, headers=key)
            again = http.post("/v1/runs", json=body, headers=key)
            assert first.status_code == again.status_code == 202
            assert again.headers["idempotent-replayed"] == "true"
            ids = []
            with http.stream("GET", f"/v1/runs/{OK_RUN}/events:stream") as stream:
                assert stream.headers["content-type"].startswith("text/event-stream")
                for line in stream.iter_lines():
                    if line.startswith("id:"):
                        ids.append(int(line[3:]))
                        if len(ids) == 5:
                            break
            assert ids == sorted(set(ids)) and len(ids) == 5
            resumed = []
            with http.stream("GET", f"/v1/runs/{OK_RUN}/events:stream", headers={"Last-Event-ID": str(ids[-1])}) as s:
                for line in s.iter_lines():
                    if line.startswith("id:"):
                        resumed.append(int(line[3:]))
            assert resumed and resumed[0] > ids[-1]
        time.sleep(0.1)  # the abandoned first stream is finished off by the proxy
        journal = httpx.get(f"{upstream.url}/__mock/requests").json()["data"]
    _clean(proxy, 12)
    assert proxy.checker.replays and proxy.checker.windows and proxy.checker.etags  # the sequence checks ran
    streams = [e for e in proxy.exchanges if e.stream == "sse"]
    assert len(streams) == 2 and all(e.sse.events for e in streams)
    assert sum(1 for e in journal if "/events:stream" in str(e)) == 2
    assert (tmp_path / "drift.md").read_text().count("No violations") == 1


def test_benchsdk_session_has_no_violations(tmp_path):
    """docs/benchsdk.md; A-11 (runKey get-or-create), A-14/A-15 (attempt fencing), A-16 (batches):
    a `bench run` (benchmark, run, participant, plan, claim, heartbeat, events, a resent batch,
    complete) through the proxy, with the fencing tracker fed by the claim."""
    base = "/api/v1"
    with proxied("benchsdk", tmp_path) as (proxy, url, _):
        headers = {"Authorization": "Bearer bp_mock_acme_0000000000000000000000000000"}
        with httpx.Client(base_url=url + base, headers=headers, timeout=10) as http:
            bench = http.put("/benchmarks/proxy-demo", json={"name": "Proxy demo"})
            assert bench.status_code in (200, 201), bench.text
            body = {"runKey": "proxy-1", "totalTasks": 2, "participants": ["e2b"]}
            run = http.post("/benchmarks/proxy-demo/runs", json=body)
            assert run.status_code == 201, run.text
            run_id = run.json()["run"]["id"]
            again = http.post("/benchmarks/proxy-demo/runs", json=body)
            assert again.status_code == 200 and again.json()["run"]["id"] == run_id
            runs = f"/benchmarks/proxy-demo/runs/{run_id}"
            part = http.put(f"{runs}/participants/e2b", json={"totalTasks": 2})
            assert part.status_code in (200, 201), part.text
            plan = http.post(f"{runs}/participants/e2b/workers", json={"workerCount": 1, "targetConcurrency": 2})
            assert plan.status_code in (200, 201), plan.text
            claim = http.post(
                f"{runs}/participants/e2b/workers/claim", json={"processKind": "process", "processKey": "ci-1"}
            )
            assert claim.status_code == 200, claim.text
            a = claim.json()["assignment"]
            worker = f"{runs}/workers/{a['workerId']}"
            assert http.post(f"{worker}/heartbeat", json={"attemptId": a["attemptId"]}).status_code == 200
            batch = {
                "type": "task_results",
                "attemptId": a["attemptId"],
                "sequenceNumber": 0,
                "isFinal": True,
                "records": [{"taskIndex": 0, "status": "success"}, {"taskIndex": 1, "status": "success"}],
            }
            first = http.post(f"{worker}/events", json=batch)
            assert first.status_code == 200, first.text
            assert http.post(f"{worker}/events", json=batch).json()["duplicate"] is True
            done = http.post(f"{worker}/complete", json={"attemptId": a["attemptId"]})
            assert done.status_code == 200, done.text
            assert http.get(runs).status_code == 200
    _clean(proxy, 10)
    assert proxy.checker.attempts  # the claim fed the fencing tracker


def test_benchgen_session_has_no_violations(tmp_path):
    """docs/benchgen.md, B-09…B-41: list, join, queue, poll at `check_again_seconds`, read results."""
    from .test_recording import benchgen_session

    with proxied("benchgen", tmp_path) as (proxy, url, _):
        benchgen_session(url)
    _clean(proxy, 10)


def test_bench_session_has_no_violations(tmp_path):
    """C-33…C-36 (context versions), C-53 (errors), C-61/C-62 (NDJSON): systems, context reads, a
    versioned write at the version just read, a stale one refused with `context_changed`, and two
    NDJSON stage streams, one ending in a documented terminal error event."""
    headers = {"Authorization": "Bearer bench_dev_key_growth"}
    with (
        proxied("bench", tmp_path) as (proxy, url, _),
        httpx.Client(base_url=url, headers=headers, timeout=10) as http,
    ):
        systems = http.get("/api/ai-systems")
        assert systems.status_code == 200, systems.text
        system = systems.json()["items"][0]["id"]
        context = http.get(f"/api/ai-systems/{system}/context")
        assert context.status_code == 200, context.text
        version = context.json()["context"]["version"]
        source = {"id": "manual-purpose", "kind": "note", "category": "purpose", "scope": "system", "text": "x"}
        put = http.put(
            f"/api/ai-systems/{system}/context/sources", json={"expected_version": version, "source": source}
        )
        assert put.status_code == 200, put.text
        stale = http.put(
            f"/api/ai-systems/{system}/context/sources", json={"expected_version": version, "source": source}
        )
        assert stale.status_code == 409 and stale.json()["error"]["code"] == "context_changed"
        repo = "/api/repos/acme/support-bot"
        for stage, last in (("eval-benchmark", "result"), ("baseline", "error")):
            with http.stream("POST", f"{repo}/{stage}", params={"branch": "main"}, json={}) as stream:
                lines = [json.loads(line) for line in stream.iter_lines() if line]
            assert lines[-1]["type"] == last  # a terminal error event ends the stream (C-62)
    _clean(proxy, 6)
    assert [e.stream for e in proxy.exchanges[-2:]] == ["ndjson", "ndjson"]
    assert proxy.checker.versions
