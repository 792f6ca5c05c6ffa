"""Flows across operations that the reference examples do not cover: login, scans to components, simulated
summaries and jobs, connectors, traces. Every response is checked against the spec by the client fixture."""

from __future__ import annotations

import base64
import hashlib
import json

from mock_server.bench.model.context import bounded_sources
from mock_server.bench.store import ContextSource

from .conftest import KEY, OAUTH, auth


def test_login_with_pkce_and_the_session_it_gives(client):
    """C-22: get_login_url and complete_login need no credential; the verifier must match the challenge."""
    verifier = "v" * 43
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    start = client.get("/api/auth/login-url", params={"challenge": challenge}).json()
    bad = client.post("/api/auth/callback", json={"state": start["state"], "code": "idp-code-growth", "verifier": "x"})
    assert bad.json()["error"]["code"] == "invalid_verifier"
    ok = client.post(
        "/api/auth/callback", json={"state": start["state"], "code": "idp-code-growth", "verifier": verifier}
    )
    session = ok.json()["session_token"]
    assert (
        client.get("/api/account/api-keys", headers=auth(session)).status_code == 200
    )  # a session has account authority
    assert client.post("/api/auth/logout", headers=auth(session)).json() == {"logged_out": True}
    assert client.get("/api/auth/me", headers=auth(session)).json()["error"]["code"] == "credential_revoked"


def test_password_login_and_email_verification(client):
    assert client.post("/api/auth/password", json={"email": "free@example.test", "password": "no"}).status_code == 401
    pending = client.post("/api/auth/password", json={"email": "pending@example.test", "password": "pending-password"})
    token = pending.json()["error"]["pending_authentication_token"]
    assert pending.status_code == 403
    wrong = client.post("/api/auth/verify-email", json={"pending_authentication_token": token, "code": "000000"})
    assert wrong.json()["error"]["code"] == "invalid_code"
    ok = client.post("/api/auth/verify-email", json={"pending_authentication_token": token, "code": "246810"})
    assert ok.json()["user"]["email_verified"] is True


def test_expired_authkit_token_and_onboarding_generation(client):
    """C-20; complete_onboarding refuses a stale generation."""
    r = client.post("/api/auth/mcp-token", json={"token": "authkit_growth_expired"})
    assert r.json()["error"]["code"] == "token_expired"
    tok = client.post("/__mock/tokens", json={"account_id": "acct_free", "kind": "oauth"}).json()["token"]
    gen = client.get("/api/auth/me", headers=auth(tok)).json()["user"]["onboarding_generation"]
    assert (
        client.post("/api/auth/onboarding/complete", headers=auth(tok), json={"generation": gen + 1}).status_code == 409
    )
    done = client.post("/api/auth/onboarding/complete", headers=auth(tok), json={"generation": gen}).json()
    assert done["user"]["onboarded"] is True


def test_scan_then_attach_a_component_then_connect_it(client):
    """A scan completes over simulated time; its call sites become components joined by an edge."""
    q = {"branch": "main"}
    queued = client.post("/api/repos/acme/checkout/scan", headers=auth(), params=q).json()["scan"]
    assert queued["status"] == "queued"
    client.post("/__mock/clock", json={"advance_seconds": 5})
    scan = client.get("/api/repos/acme/checkout/scan/latest", headers=auth(), params=q).json()["scan"]
    assert scan["status"] == "completed" and scan["call_sites"][0]["id"] == "checkout/agent.py:7"
    comp = client.post(
        "/api/ai-systems/123/components",
        headers=auth(),
        json={"repo_full_name": "acme/checkout", "branch": "main", "call_site_id": "checkout/agent.py:7"},
    )
    cid = comp.json()["component"]["id"]
    again = client.post(
        "/api/ai-systems/123/components",
        headers=auth(),
        json={"repo_full_name": "acme/checkout", "branch": "main", "call_site_id": "checkout/agent.py:7"},
    )
    assert again.json()["error"]["code"] == "component_exists"
    edge = client.post(
        "/api/ai-systems/123/edges", headers=auth(), json={"from_component_id": 456, "to_component_id": cid}
    )
    assert edge.status_code == 201
    assert (
        client.post(
            "/api/ai-systems/123/edges", headers=auth(), json={"from_component_id": cid, "to_component_id": cid}
        ).json()["error"]["code"]
        == "self_edge"
    )
    client.delete(f"/api/ai-systems/123/components/{cid}", headers=auth())
    edges = client.get("/api/ai-systems/123", headers=auth()).json()["system"]["edges"]
    assert [e["id"] for e in edges] == [1]


def test_summary_completes_over_simulated_time(client):
    """summarize_system_context queues; get_system_context shows it completed after summary_seconds."""
    assert client.post("/api/ai-systems/123/context/summarize", headers=auth()).status_code == 202
    assert client.get("/api/ai-systems/123/context", headers=auth()).json()["context"]["summary"]["status"] == "queued"
    client.post("/__mock/clock", json={"advance_seconds": 10})
    summary = client.get("/api/ai-systems/123/context", headers=auth()).json()["context"]["summary"]
    assert summary["status"] == "completed" and "3 sources" in summary["text"]


def test_connector_sync_imports_connector_sources(client):
    """create_context_connection needs consent; a sync imports non-manual sources and bumps the version."""
    body = {
        "config": {
            "provider": "langfuse",
            "base_url": "https://cloud.langfuse.com",
            "project": "shop",
            "since": "2026-11-01",
            "dataset_ids": ["refunds"],
        },
        "credentials": {"public_key": "pk", "secret_key": "sk"},
        "content_consent": False,
    }
    assert client.post("/api/ai-systems/123/context/connections", headers=auth(), json=body).status_code == 400
    conn = client.post(
        "/api/ai-systems/123/context/connections", headers=auth(), json={**body, "content_consent": True}
    )
    assert "secret_key" not in conn.text
    cid = conn.json()["connection"]["id"]
    synced = client.post(f"/api/ai-systems/123/context/connections/{cid}/sync", headers=auth()).json()
    assert synced["imported"] == 1 and synced["context"]["version"] == 4
    ids = [s["id"] for s in client.get("/api/ai-systems/123/context", headers=auth()).json()["context"]["sources"]]
    assert f"langfuse-{cid}-dataset-refunds" in ids


def test_document_upload_types(client):
    """upload_context_document takes text, Markdown, JSON or JSONL only."""
    files = [("file", ("deck.pdf", b"%PDF", "application/pdf"))]
    r = client.post(
        "/api/ai-systems/123/context/upload",
        headers=auth(),
        files=files,
        data={"category": "purpose", "expected_version": "3"},
    )
    assert (r.status_code, r.json()["error"]["code"]) == (400, "unsupported_document_type")


def test_traces_privacy_links_and_checks(client):
    """Privacy fields are redacted at ingest; links feed production health; failed checks are retried."""
    oauth = auth(OAUTH)
    client.put(
        "/api/traces/privacy",
        headers=oauth,
        params={"repo_full_name": "acme/support-bot"},
        json={"enabled": True, "fields": ["user_email"]},
    )
    ingest = client.post(
        "/api/traces",
        headers=auth(KEY),
        json={
            "repo_full_name": "acme/support-bot",
            "capture_content": True,
            "system_name": "Support assistant",
            "traces": [{"trace_id": "t1", "spans": [{"span_id": "s1", "output": "Yes", "user_email": "a@b.c"}]}],
        },
    )
    assert ingest.json() == {"accepted": 1, "trace_ids": ["t1"]}
    span = client.get("/api/traces/t1", headers=auth()).json()["trace"]["spans"][0]
    assert span["user_email"] == "[redacted]" and span["output"] == "Yes"
    link = client.post(
        "/api/traces/t1/spans/s1/link", headers=auth(), json={"ai_system_id": 123, "ai_system_component_id": 456}
    )
    assert link.status_code == 201
    verdict = client.post(
        "/api/traces/t1/spans/s1/evaluate", headers=auth(), json={"question": "Approved?", "yes": "yes"}
    )
    assert verdict.json()["evaluation"]["verdict"] == "yes"
    health = client.get("/api/ai-systems/123/production-health", headers=auth()).json()["health"]["environments"]
    assert sum(e["traces"] for e in health) == 2
    retried = client.post("/api/traces/checks/chk_failed/retry", headers=auth()).json()["check"]
    assert retried["status"] == "queued" and retried["attempts"] == 2
    client.post("/__mock/clock", json={"advance_seconds": 20})
    assert client.get("/api/traces/checks/chk_failed", headers=auth()).json()["check"]["status"] == "completed"


def test_runtime_jobs(client):
    """retry_runtime_job takes failed jobs only; publish_runtime_fix opens a PR once."""
    oauth = auth(OAUTH)
    assert client.post("/api/ai-systems/123/runtime-jobs/job_done/retry", headers=oauth).status_code == 409
    pr = client.post("/api/ai-systems/123/runtime-jobs/job_done/publish", headers=oauth).json()["job"]
    assert pr["pull_request_url"].startswith("https://github.com/acme/support-bot/pull/")
    assert client.post("/api/ai-systems/123/runtime-jobs/job_done/publish", headers=oauth).status_code == 409
    assert (
        client.post("/api/ai-systems/123/runtime-jobs/job_failed/retry", headers=oauth).json()["job"]["status"]
        == "queued"
    )


def test_processing_notice_acknowledgement(client):
    notice = client.get("/api/legal/processing-notice").json()["notice"]
    oauth = auth(OAUTH)
    stale = client.post(
        "/api/legal/processing-acknowledgements",
        headers=oauth,
        json={"accepted": True, "source": "mcp", "version": "2000-01-01"},
    )
    assert stale.json()["error"]["code"] == "notice_version_mismatch"
    ok = client.post(
        "/api/legal/processing-acknowledgements",
        headers=oauth,
        json={"accepted": True, "source": "mcp", "version": notice["version"]},
    )
    assert ok.status_code == 201
    steps = {s["id"]: s["done"] for s in client.get("/api/getting-started", headers=oauth).json()["steps"]}
    assert steps["processing_notice"] and steps["github"] and steps["system"]


def test_context_responses_are_bounded():
    """C-58: a context's sources stop at the byte budget and say so."""
    sources = [
        ContextSource(id=f"manual-{i}", kind="user", category="c", scope="system", text="x" * 60000) for i in range(10)
    ]
    got, cut = bounded_sources(sources, 250000)
    assert len(got) == 4 and cut is True
    assert json.dumps(got)
