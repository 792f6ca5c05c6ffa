"""The proxy in front of a drifted mock: each deliberate drift is named by its claim, in the
response's `X-Contract-Violations` header and in the drift log (grouped by claim, a redacted curl
line each). Every test asserts the claim is absent from the clean exchanges before the drift, so
a check that always fired (or never) fails here."""

from __future__ import annotations

import httpx
import orjson
import pytest

from mock_server.app import create_app

from .conftest import proxied
from .drifted import Drifted, set_header

pytestmark = pytest.mark.http

OK_RUN = "608721fe-54f1-43e3-ab9b-7e0269783f70"
RUN = f"/v1/runs/{OK_RUN}"
MODEL = {"model": "qwen/qwen3-32b", "provider": "openrouter"}
SDK_KEY = "bp_mock_acme_0000000000000000000000000000"


def claims(response: httpx.Response) -> set[str]:
    return set(filter(None, response.headers.get("x-contract-violations", "").split(",")))


def _token(url: str) -> dict[str, str]:
    token = httpx.post(f"{url}/__mock/tokens", json={"scopes": ["full"]}).json()["token"]
    return {"Authorization": f"Bearer {token}"}


def _json_rewrite(method: str, path: str, status: int, edit):
    def answer(scope, sent, got, headers, body):
        if scope["method"] == method and scope["path"] == path and got == status:
            data = orjson.loads(body)
            edit(data)
            return got, headers, orjson.dumps(data)
        return None

    return answer


def test_a_dropped_required_field_is_spec_schema_with_a_curl_line(tmp_path):
    """spec.schema: getRun's 200 lacks the required `status`; the log groups it under its claim."""

    def edit(data):
        data.pop("status")

    app = Drifted(create_app(), _json_rewrite("GET", RUN, 200, edit))
    with proxied("benchwright", tmp_path, app=app) as (_proxy, url, _):
        auth = _token(url)
        assert "spec.schema" not in claims(httpx.get(f"{url}/v1/runs", headers=auth))
        response = httpx.get(f"{url}{RUN}", headers=auth)
    assert "spec.schema" in claims(response)
    log = (tmp_path / "drift.md").read_text()
    assert "(`spec.schema`)" in log and "getRun" in log and "curl -sS http://127.0.0.1:" in log
    assert "Authorization: Bearer [credential #" in log and auth["Authorization"][7:] not in log
    lines = [orjson.loads(line) for line in (tmp_path / "drift.jsonl").read_text().splitlines()]
    assert {"spec.schema"} <= {line["claim"] for line in lines}


def test_an_undocumented_error_code_is_named(tmp_path):
    """spec.errors (and Benchwright's §14 `errors.code_documented`): a 404 carrying a code getRun does not document."""

    def edit(data):
        data["code"] = "run_vanished"

    missing = "/v1/runs/00000000-0000-4000-8000-000000000000"
    app = Drifted(create_app(), _json_rewrite("GET", missing, 404, edit))
    with proxied("benchwright", tmp_path, app=app) as (_, url, _):
        auth = _token(url)
        response = httpx.get(f"{url}{missing}", headers=auth)
    assert response.status_code == 404 and {"spec.errors", "errors.code_documented"} <= claims(response)


def test_a_stripped_replay_marker_is_idempotency_replay(tmp_path):
    """§3.7 `idempotency.replay`: the retry answers the first answer but without `Idempotent-Replayed`."""

    def answer(scope, sent, status, headers, body):
        return status, set_header(headers, b"idempotent-replayed", None), body

    with proxied("benchwright", tmp_path, app=Drifted(create_app(), answer)) as (_, url, _):
        auth = {**_token(url), "Idempotency-Key": "drift-1"}
        first = httpx.post(f"{url}/v1/runs", json={"request": "Run MMLU", "model": MODEL}, headers=auth)
        again = httpx.post(f"{url}/v1/runs", json={"request": "Run MMLU", "model": MODEL}, headers=auth)
    assert first.status_code == again.status_code == 202
    assert "idempotency.replay" not in claims(first) and "idempotency.replay" in claims(again)


def test_an_etag_that_does_not_move_on_a_write_is_etag_moves(tmp_path):
    """§3.8 `etag.moves`: a successful PATCH leaves the run's ETag where it was."""
    frozen = f'W/"{OK_RUN}:1"'.encode()

    def answer(scope, sent, status, headers, body):
        if scope["path"] == RUN and any(k == b"etag" for k, _ in headers):
            return status, set_header(headers, b"etag", frozen), body
        return None

    with proxied("benchwright", tmp_path, app=Drifted(create_app(), answer)) as (_, url, _):
        auth = _token(url)
        read = httpx.get(f"{url}{RUN}", headers=auth)
        httpx.post(f"{url}/__mock/clock", json={"advance_seconds": 1})
        write = httpx.patch(f"{url}{RUN}", json={"visibility": "unlisted"}, headers=auth)
        after = httpx.get(f"{url}{RUN}", headers=auth)
    assert read.status_code == write.status_code == 200
    assert "etag.moves" not in claims(read)
    assert "etag.moves" in claims(write) | claims(after)


def test_a_malformed_etag_is_etag_shape(tmp_path):
    """RFC 9110 entity-tag (`etag.shape`) and Benchwright's weak form (§3.8 `etag.weak`)."""

    def answer(scope, sent, status, headers, body):
        if scope["path"] == RUN:
            return status, set_header(headers, b"etag", b"v42"), body
        return None

    with proxied("benchwright", tmp_path, app=Drifted(create_app(), answer)) as (_, url, _):
        response = httpx.get(f"{url}{RUN}", headers=_token(url))
    assert {"etag.shape", "etag.weak"} <= claims(response)


def test_a_rate_limit_counter_that_does_not_fall_is_ratelimit_remaining(tmp_path):
    """§13 `ratelimit.remaining`: X-RateLimit-Remaining stays put across counted requests in one window."""

    def answer(scope, sent, status, headers, body):
        if any(k == b"x-ratelimit-remaining" for k, _ in headers):
            return status, set_header(headers, b"x-ratelimit-remaining", b"50"), body
        return None

    with proxied("benchwright", tmp_path, app=Drifted(create_app(), answer)) as (_, url, _):
        auth = _token(url)
        first = httpx.get(f"{url}/v1/runs", headers=auth)
        second = httpx.get(f"{url}/v1/runs", headers=auth)
    assert "ratelimit.remaining" not in claims(first) and "ratelimit.remaining" in claims(second)


def _drop_last_event_id(scope):
    scope["headers"] = [(k, v) for k, v in scope["headers"] if k.lower() != b"last-event-id"]


def test_a_resume_that_restarts_is_sse_resume_read_incrementally(tmp_path):
    """§5.2 `sse.resume`: the upstream ignores Last-Event-ID and replays from the start; the stream is
    read event by event through the proxy, and the violation lands in the drift log when it closes."""
    with proxied("benchwright", tmp_path, app=Drifted(create_app(), request=_drop_last_event_id)) as (proxy, url, _):
        auth = _token(url)
        ids = []
        with httpx.stream("GET", f"{url}{RUN}/events:stream", headers={**auth, "Last-Event-ID": "40"}) as stream:
            for line in stream.iter_lines():
                if line.startswith("id:"):
                    ids.append(int(line[3:]))
    assert ids[0] <= 40
    streamed = [e for e in proxy.exchanges if e.stream == "sse"]
    assert [v.claim for v in streamed[0].violations] == ["sse.resume"]
    assert "(`sse.resume`)" in (tmp_path / "drift.md").read_text()


def test_a_repeated_event_id_is_sse_dedupe(tmp_path):
    """§5.3 `sse.dedupe`: an event with an id already sent arrives at the end of the stream."""
    tail = b"id: 1\nevent: run.finished\ndata: {}\n\n"
    with (
        proxied("benchwright", tmp_path, app=Drifted(create_app(), stream_tail=tail)) as (proxy, url, _),
        httpx.stream("GET", f"{url}{RUN}/events:stream", headers=_token(url)) as stream,
    ):
        for _ in stream.iter_lines():
            pass
    streamed = [e for e in proxy.exchanges if e.stream == "sse"]
    assert "sse.dedupe" in {v.claim for v in streamed[0].violations}


def test_a_mutation_with_a_superseded_attempt_accepted_is_fencing(tmp_path):
    """benchsdk A-15 (spec `x-fence`, `fencing.superseded`): after a reclaim, a heartbeat carrying the
    first attempt's id is answered 200 by the drifted server (the real one says 409 stale_attempt)."""

    def answer(scope, sent, status, headers, body):
        if status == 409 and b"stale_attempt" in body:
            return 200, headers, orjson.dumps({"worker": {}, "attempt": {}})
        return None

    base = "/api/v1/benchmarks/fence"
    app = Drifted(create_app(api="benchsdk"), answer)
    with (
        proxied("benchsdk", tmp_path, app=app) as (_, url, _),
        httpx.Client(base_url=url, headers={"Authorization": f"Bearer {SDK_KEY}"}, timeout=10) as http,
    ):
        http.put(base, json={"name": "Fence"})
        run = http.post(f"{base}/runs", json={"totalTasks": 2, "participants": ["e2b"]}).json()["run"]["id"]
        http.post(f"{base}/runs/{run}/participants/e2b/workers", json={"workerCount": 1, "targetConcurrency": 2})
        claim = f"{base}/runs/{run}/participants/e2b/workers/claim"
        first = http.post(claim, json={"processKind": "process", "processKey": "a"}).json()["assignment"]
        http.post("/__mock/clock", json={"advance_seconds": 120})
        second = http.post(claim, json={"processKind": "process", "processKey": "b"}).json()["assignment"]
        assert second["attemptNumber"] == 2
        worker = f"{base}/runs/{run}/workers/{first['workerId']}/heartbeat"
        current = http.post(worker, json={"attemptId": second["attemptId"]})
        stale = http.post(worker, json={"attemptId": first["attemptId"]})
    assert current.status_code == 200 and "fencing.superseded" not in claims(current)
    assert stale.status_code == 200 and "fencing.superseded" in claims(stale)


def test_a_stale_expected_version_accepted_is_context_version(tmp_path):
    """Bench C-35 (`context.version`): the drifted server accepts a write naming a superseded version."""

    def answer(scope, sent, status, headers, body):
        if status == 409 and b"context_changed" in body:
            return 200, headers, orjson.dumps({"context": {"version": orjson.loads(sent)["expected_version"]}})
        return None

    source = {"id": "manual-purpose", "kind": "note", "category": "purpose", "scope": "system", "text": "x"}
    with (
        proxied("bench", tmp_path, app=Drifted(create_app(api="bench"), answer)) as (_, url, _),
        httpx.Client(base_url=url, headers={"Authorization": "Bearer bench_dev_key_growth"}) as http,
    ):
        system = http.get("/api/ai-systems").json()["items"][0]["id"]
        version = http.get(f"/api/ai-systems/{system}/context").json()["context"]["version"]
        path = f"/api/ai-systems/{system}/context/sources"
        ok = http.put(path, json={"expected_version": version, "source": source})
        stale = http.put(path, json={"expected_version": version, "source": source})
    assert ok.status_code == 200 and "context.version" not in claims(ok)
    assert stale.status_code == 200 and "context.version" in claims(stale)


def test_ndjson_lines_after_the_terminal_error_are_named(tmp_path):
    """Bench C-61/C-62 (`ndjson.lines`, `ndjson.terminal`): a line that is not JSON, and an event after
    the terminal error event."""
    tail = b'{"type":"progress","stage":"late","message":"after the error"}\nnot json\n'
    with proxied("bench", tmp_path, app=Drifted(create_app(api="bench"), stream_tail=tail)) as (proxy, url, _):
        headers = {"Authorization": "Bearer bench_dev_key_growth"}
        with httpx.stream(
            "POST", f"{url}/api/repos/acme/support-bot/baseline", params={"branch": "main"}, json={}, headers=headers
        ) as stream:
            lines = list(stream.iter_lines())
    assert lines[-1] == "not json"
    streamed = [e for e in proxy.exchanges if e.stream == "ndjson"]
    assert {"ndjson.lines", "ndjson.terminal"} <= {v.claim for v in streamed[0].violations}


def test_an_undocumented_status_and_a_missing_challenge_are_named(tmp_path):
    """BenchGen: `spec.status` for a status the operation does not document, and B-03 for a 401
    without `WWW-Authenticate: Bearer` (the API's conventions check, through the registry)."""

    def answer(scope, sent, status, headers, body):
        if status == 401:
            return status, set_header(headers, b"www-authenticate", None), body
        if scope["path"] == "/api/user_llm_models/":
            return 418, headers, body
        return None

    with proxied("benchgen", tmp_path, app=Drifted(create_app(api="benchgen"), answer)) as (_, url, _):
        listed = httpx.get(f"{url}/api/competitions/public/")
        teapot = httpx.get(
            f"{url}/api/user_llm_models/", headers={"Authorization": "Bearer bgn_demo_0123456789abcdef0123456789abcdef"}
        )
        refused = httpx.get(f"{url}/api/submissions/789/run_status/")
    assert not claims(listed)
    assert "spec.status" in claims(teapot)
    assert refused.status_code == 401 and "B-03" in claims(refused)
