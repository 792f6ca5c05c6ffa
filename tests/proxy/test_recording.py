"""Recordings: credentials never reach a log or a recording, and a recording seeds a fresh mock
through its own HTTP surface (docs/proxy.md, record -> replay)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from contracts.proxy.recording import read_recording
from contracts.proxy.seed import seed_app
from mock_server.app import create_app

from .conftest import proxied

pytestmark = pytest.mark.http

DEMO_TOKEN = "bgn_demo_0123456789abcdef0123456789abcdef"  # BenchGen's seeded demo token (docs/benchgen.md)
SECRET = "sk-contract-endpoint-key-0042"  # an external endpoint's key (B-31)
GSM, MODEL = 123, 456
SCOPES = ["benchmark:read", "benchmark:run"]


def benchgen_session(url: str) -> dict[str, Any]:
    """A client's BenchGen session: a user and token minted, a competition made, join, queue two runs
    (a platform model and an external endpoint with its key), poll at `check_again_seconds`, results."""
    with httpx.Client(base_url=url, timeout=10) as http:
        user = http.post("/__mock/users", json={"credits": 50}).json()["id"]
        token = http.post("/__mock/tokens", json={"user_id": user, "scopes": SCOPES}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        arena = http.post("/__mock/competitions", json={"name": "Proxy Arena"}).json()["id"]
        listed = http.get("/api/competitions/public/", params={"search": "proxy"})
        assert listed.status_code == 200 and arena in [c["id"] for c in listed.json()["results"]]
        assert http.post(f"/api/competitions/{arena}/register/", headers=auth).status_code == 201
        queued = http.post(
            "/models/api/queue_benchmark_run", json={"competition_id": arena, "model_id": MODEL}, headers=auth
        )
        assert queued.status_code == 201, queued.text
        submission = queued.json()["submission_id"]
        external = {
            "competition_id": arena,
            "model_source": "external",
            "model_url": "https://llm.example.test/v1/chat/completions",
            "model_name": "m",
            "model_token": SECRET,
        }
        assert http.post("/models/api/queue_benchmark_run", json=external, headers=auth).status_code == 201
        status: dict[str, Any] = {}
        for _ in range(100):
            status = http.get(f"/api/submissions/{submission}/run_status/", headers=auth).json()
            if status["done"]:
                break
            http.post("/__mock/clock", json={"advance_seconds": status["check_again_seconds"]})
        assert status["done"], status
        items = http.get(f"/api/submissions/{submission}/item_results/", headers=auth)
        assert items.status_code == 200 and items.json()["results"]
        demo = {"Authorization": f"Bearer {DEMO_TOKEN}"}
        assert http.get("/api/user_llm_models/", headers=demo).status_code == 200
    return {"user": user, "token": token, "arena": arena, "submission": submission, "status": status}


def _scan(paths: list[Path], secrets: list[str]) -> None:
    for path in paths:
        text = path.read_text()
        for secret in secrets:
            assert secret not in text, f"{path.name} carries a credential"


def test_logs_and_recordings_never_carry_a_credential(tmp_path):
    """docs/proxy.md, "Credentials": `Authorization`, a minted token, the demo token and an
    endpoint key appear in requests, responses and a violation's curl line, and in no file the proxy
    writes. The drift log does hold a curl line with a `[credential #n]` placeholder (so the scan
    looks at a line that would carry one), and a client error is named (`client.request`)."""
    with proxied("benchgen", tmp_path, record=True) as (_proxy, url, _):
        session = benchgen_session(url)
        bad = httpx.post(
            f"{url}/models/api/queue_benchmark_run",
            json={"competition_id": GSM, "model_source": "external", "model_token": SECRET},
            headers={"Authorization": f"Bearer {session['token']}"},
        )
        assert bad.status_code == 400
        assert "client.request" in bad.headers["x-contract-violations"].split(",")
    files = [tmp_path / "drift.md", tmp_path / "drift.jsonl", tmp_path / "recording.jsonl"]
    _scan(files, [session["token"], DEMO_TOKEN, SECRET])
    log = (tmp_path / "drift.md").read_text()
    assert "Authorization: Bearer [credential #" in log and "client.request" in log
    recording = (tmp_path / "recording.jsonl").read_text()
    assert "/__mock/tokens" in recording and recording.count("[credential #") >= 3


def test_a_recording_seeds_a_fresh_mock_that_stays_stateful(tmp_path):
    """Record -> replay: a session recorded through the proxy in front of mock A seeds mock B through
    B's own API and control routes. B then serves what A held (the competition, the user's
    participation, the finished run, its score and item results) and a new write lands on top
    (a third run is queued and spends the recorded user's remaining credits)."""
    with proxied("benchgen", tmp_path, record=True) as (_, url, _):
        session = benchgen_session(url)
    exchanges = read_recording(tmp_path / "recording.jsonl")
    minted = next(e for e in exchanges if e["path"] == "/__mock/tokens")["response"]["body"]["token"]
    assert minted.startswith("[credential #")

    fresh = create_app(api="benchgen")
    result = seed_app("benchgen", fresh, exchanges)
    assert not result.failures, result.failures
    assert result.replayed >= 6
    token = result.credentials[minted]
    assert token != session["token"]  # re-minted, not carried
    arena = result.map("competition", session["arena"])
    submission = result.map("submission", session["submission"])
    with TestClient(fresh) as b:
        auth = {"Authorization": f"Bearer {token}"}
        listed = b.get("/api/competitions/public/", params={"search": "proxy"}).json()["results"]
        assert [c["name"] for c in listed if c["id"] == arena] == ["Proxy Arena"]
        status = b.get(f"/api/submissions/{submission}/run_status/", headers=auth).json()
        assert status["done"] and status["score"] == session["status"]["score"]
        assert b.get(f"/api/submissions/{submission}/item_results/", headers=auth).json()["results"]
        again = b.post(f"/api/competitions/{arena}/register/", headers=auth)
        assert again.status_code == 400 and again.json()["code"] == "already_applied"  # the row is there
        third = b.post(
            "/models/api/queue_benchmark_run", json={"competition_id": arena, "model_id": MODEL}, headers=auth
        )
        assert third.status_code == 201, third.text
        assert third.json()["submission_id"] > submission
        broke = None
        for _ in range(10):  # the recorded user had 50 credits and spent two runs' worth: it runs out
            response = b.post(
                "/models/api/queue_benchmark_run", json={"competition_id": arena, "model_id": MODEL}, headers=auth
            )
            if response.status_code == 402:
                broke = response.json()
                break
        assert broke is not None and broke["code"] == "insufficient_credits"


def test_rows_the_recorded_server_already_held_are_created_from_what_it_listed(tmp_path):
    """Record -> replay from a server whose competition existed before the session (a staging
    server, no `/__mock/competitions` call recorded): the competition seen in the recorded
    listing becomes a row of the fresh mock, and the recorded join and runs land on it."""
    with proxied("benchgen", tmp_path, record=True) as (_, url, _):
        session = benchgen_session(url)
    exchanges = [e for e in read_recording(tmp_path / "recording.jsonl") if e["path"] != "/__mock/competitions"]
    fresh = create_app(api="benchgen")
    result = seed_app("benchgen", fresh, exchanges)
    assert not result.failures, result.failures
    assert result.created == 1
    arena = result.map("competition", session["arena"])
    submission = result.map("submission", session["submission"])
    with TestClient(fresh) as b:
        listed = b.get("/api/competitions/public/", params={"search": "proxy"}).json()["results"]
        assert [c["id"] for c in listed] == [arena]
        token = next(iter(result.credentials.values()))
        status = b.get(f"/api/submissions/{submission}/run_status/", headers={"Authorization": f"Bearer {token}"})
        assert status.json()["competition_id"] == arena and status.json()["done"]
