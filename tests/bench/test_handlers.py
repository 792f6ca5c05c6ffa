"""Every Bench operation through the app: documented errors only, declared response shapes, auth classes,
upload limits, state across operations. Claims are C-nn of contracts/bench/claims.py."""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile

import jsonschema_rs
import pytest

from mock_server.bench.spec_catalog import load_spec, spec_operations
from mock_server.engine.compile import Compiler

from .conftest import KEY, OAUTH, auth

PATH_VALUES = {
    "id": "123",
    "datasetID": "ds_1",
    "sourceID": "manual-purpose",
    "componentID": "457",
    "edgeID": "1",
    "runID": "1",
    "planID": "plan_1",
    "jobID": "job_done",
    "connectionID": "conn_1",
    "owner": "acme",
    "repo": "support-bot",
    "installationID": "9001",
    "userID": "usr_growth",
    "spanID": "sp_1",
    "linkID": "lnk_1",
    "action": "events",
}
ID_BY_PREFIX = {
    "/api/evaluation-runs/": "789",
    "/api/traces/": "tr_seed",
    "/api/golden-cases/": "gc_1",
    "/api/account/api-keys/": "cred_key_builder",
}


SPEC = load_spec()
COMPILER = Compiler(SPEC)
OPS = list(spec_operations(SPEC))


def _path(template: str) -> str:
    def value(m: re.Match) -> str:
        name = m.group(1)
        if name == "id":
            for prefix, v in ID_BY_PREFIX.items():
                if template.startswith(prefix):
                    return v
        if template.startswith("/api/traces/checks/"):
            return "chk_failed"
        return PATH_VALUES[name]

    return re.sub(r"\{([^}]+)\}", value, template)


@pytest.mark.parametrize(("method", "template", "op"), OPS, ids=[o["operationId"] for _, _, o in OPS])
def test_every_operation_answers_what_the_spec_declares(client, method, template, op):
    """Issue item 2: every operation has behaviour (no 501 placeholder, no 5xx) and the checked client holds its
    answer to the spec: a documented error code in the envelope, or a declared status whose body validates."""
    kw: dict = {"headers": {**auth(OAUTH), "Idempotency-Key": "sweep-key-0001"}}
    content = (op.get("requestBody") or {}).get("content", {})
    if "application/json" in content:
        kw["json"] = {}
    if "multipart/form-data" in content:
        kw["files"] = {op["x-file-field"]: ("cases.csv", b"question,expected,actual\nq,a,a\n")}
    query = {p["name"]: "main" for p in op.get("parameters", []) if p["in"] == "query" and p["name"] == "branch"}
    r = client.request(method, _path(template), params=query, **kw)
    assert r.status_code != 501


ACCOUNT_OPS = [(m, t, o) for m, t, o in OPS if o["x-auth-class"] == "account"]
CREDENTIAL_OPS = [(m, t, o) for m, t, o in OPS if o["x-auth-class"] == "credential"]
PUBLIC_OPS = [(m, t, o) for m, t, o in OPS if o["x-auth-class"] == "public"]


def test_account_operations_refuse_an_api_key(client):
    """C-18, C-19: every account-class operation answers 403 account_authorization_required to an API key."""
    for method, template, _ in ACCOUNT_OPS:
        r = client.request(method, _path(template), headers=auth(KEY))
        assert (r.status_code, r.json()["error"]["code"]) == (403, "account_authorization_required"), template


def test_credential_operations_need_a_credential(client):
    """C-17: without a credential every non-public operation is 401 unauthorized; a bad one 401 invalid_credential."""
    for method, template, _ in CREDENTIAL_OPS + ACCOUNT_OPS:
        r = client.request(method, _path(template))
        assert (r.status_code, r.json()["error"]["code"]) == (401, "unauthorized"), template
    r = client.get("/api/ai-systems", headers=auth("bench_dev_key_nope"))
    assert (r.status_code, r.json()["error"]["code"]) == (401, "invalid_credential")


def test_public_operations_need_none(client):
    """C-22: public operations never answer 401/403 for a missing credential."""
    for method, template, _ in PUBLIC_OPS:
        r = client.request(method, _path(template), json={} if method == "POST" else None)
        assert r.status_code not in (401, 403) or r.json()["error"]["code"] in ("invalid_login", "invalid_token"), (
            template
        )


def test_revoked_and_other_environment_credentials(client):
    """C-02: revoked keys and production keys are refused."""
    r = client.get("/api/ai-systems", headers=auth("bench_dev_key_revoked"))
    assert r.json()["error"]["code"] == "credential_revoked"
    r = client.get("/api/ai-systems", headers=auth("bench_live_key_growth"))
    assert (r.status_code, r.json()["error"]["code"]) == (401, "wrong_environment")


def test_no_redirects(client):
    """C-59: a trailing slash is a 404, never a 3xx."""
    r = client.get("/api/ai-systems/", headers=auth(), follow_redirects=False)
    assert r.status_code == 404


def _upload(client, path: str, field: str, name: str, data: bytes, form: dict | None = None, token: str = KEY):
    files = [(field, (name, data, "application/octet-stream"))]
    return client.post(path, headers=auth(token), files=files, data=form or {})


def test_context_document_limit_is_enforced_by_the_server(client):
    """C-30: 60 000 bytes pass, 60 001 are 413 file_too_large; the limit is spec data."""
    ok = _upload(
        client,
        "/api/ai-systems/123/context/upload",
        "file",
        "policy.md",
        b"x" * 60000,
        {"category": "rules_constraints", "expected_version": "3"},
    )
    assert ok.status_code == 201 and ok.json()["context"]["version"] == 4
    big = _upload(
        client,
        "/api/ai-systems/123/context/upload",
        "file",
        "policy.md",
        b"x" * 60001,
        {"category": "rules_constraints", "expected_version": "4"},
    )
    assert (big.status_code, big.json()["error"]["code"]) == (413, "file_too_large")
    assert client.get("/api/ai-systems/123/context", headers=auth()).json()["context"]["version"] == 4


def test_dataset_limit_is_enforced_by_the_server(client):
    """C-31: 4 194 304 bytes is the most a dataset may hold."""
    header = b"question,expected,actual\n"
    exact = header + b"q" * (4194304 - len(header) - 5) + b",a,a\n"
    assert len(exact) == 4194304
    ok = _upload(client, "/api/ai-systems/123/datasets/preview", "file", "cases.csv", exact)
    assert ok.status_code == 200, ok.text
    big = _upload(client, "/api/ai-systems/123/datasets/preview", "file", "cases.csv", exact + b"x")
    assert big.json()["error"]["code"] == "file_too_large"


def test_prompt_uploads_are_limited_in_total(client):
    """C-32: 2 MiB summed over the files."""
    half = b"p" * (2097152 // 2)
    files = [("files", ("a.txt", half, "text/plain")), ("files", ("b.txt", half, "text/plain"))]
    assert client.post("/api/prompt-scans", headers=auth(), files=files).status_code == 201
    files.append(("files", ("c.txt", b"p", "text/plain")))
    r = client.post("/api/prompt-scans", headers=auth(), files=files)
    assert (r.status_code, r.json()["error"]["code"]) == (413, "file_too_large")


def _xlsx() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(
            "xl/workbook.xml",
            '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r='
            '"http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" '
            'r:id="rId1"/></sheets></workbook>',
        )
        z.writestr(
            "xl/_rels/workbook.xml.rels",
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            'relationships"><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>',
        )
        rows = [["question", "expected"], ["q1", "yes"]]
        cells = "".join(
            f'<row r="{i + 1}">'
            + "".join(f'<c r="{chr(65 + j)}{i + 1}" t="inlineStr"><is><t>{v}</t></is></c>' for j, v in enumerate(r))
            + "</row>"
            for i, r in enumerate(rows)
        )
        z.writestr(
            "xl/worksheets/sheet1.xml",
            '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            f"<sheetData>{cells}</sheetData></worksheet>",
        )
    return buf.getvalue()


def test_dataset_lifecycle(client):
    """C-26–C-29: preview (mapping_error, nothing stored), upload (bytes kept), remap, compare, import as cases."""
    data = _xlsx()
    preview = _upload(
        client, "/api/ai-systems/123/datasets/preview", "file", "cases.xlsx", data, {"mode": "recorded_outputs"}
    )
    assert "actual" in preview.json()["preview"]["mapping_error"]
    assert len(client.get("/api/ai-systems/123/datasets", headers=auth()).json()["items"]) == 1
    up = _upload(
        client,
        "/api/ai-systems/123/datasets",
        "file",
        "cases.xlsx",
        data,
        {
            "mode": "classifier",
            "content_consent": "true",
            "mapping": json.dumps({"input": "question", "expected": "expected"}),
        },
    )
    ds = up.json()["dataset"]
    assert up.status_code == 201 and ds["sha256"] == hashlib.sha256(data).hexdigest() and ds["sheet"] == "S"
    stale = client.put(
        f"/api/ai-systems/123/datasets/{ds['id']}/mapping",
        headers=auth(),
        json={"expected_version": 0, "mode": "classifier", "mapping": {"input": "question", "expected": "expected"}},
    )
    assert stale.json()["error"]["code"] == "dataset_changed"
    remap = client.put(
        f"/api/ai-systems/123/datasets/{ds['id']}/mapping",
        headers=auth(),
        json={"expected_version": 1, "mode": "replay", "mapping": {"input": "question"}},
    )
    assert remap.json()["dataset"]["version"] == 2
    assert (
        client.get(f"/api/ai-systems/123/datasets/{ds['id']}?version=1", headers=auth()).json()["dataset"]["mode"]
        == "classifier"
    )
    cmp_ = client.post("/api/ai-systems/123/datasets/ds_1/compare", headers=auth(), json={})
    assert cmp_.json()["report"]["passed"] == 1 and cmp_.json()["report"]["failed"] == 1
    assert len(client.get("/api/ai-systems/123/datasets/ds_1/reports", headers=auth()).json()["items"]) == 1
    imp = client.post(
        "/api/ai-systems/123/test-library/import",
        headers=auth(),
        json={"dataset_id": "ds_1", "component_id": 456, "expected_version": 3},
    )
    assert imp.status_code == 201 and imp.json()["imported"] == 2 and imp.json()["context"]["version"] == 4
    lib = client.get("/api/ai-systems/123/test-library?kind=case", headers=auth()).json()
    assert lib["total"] == 3
    assert client.delete(f"/api/ai-systems/123/datasets/{ds['id']}", headers=auth()).status_code == 204


def test_historical_report_keeps_its_context_version(client):
    """C-45, C-46: artifacts of run 789 stay at version 3 after the context changes."""
    client.delete("/api/ai-systems/123/context/sources/manual-purpose", headers=auth())
    art = client.get("/api/evaluation-runs/789/artifacts", headers=auth()).json()["artifacts"]
    assert art["context_version"] == 3 and "manual-purpose" in {e["id"] for e in art["evidence"]}
    old = client.get("/api/ai-systems/123/context?version=3", headers=auth()).json()["context"]
    assert "manual-purpose" in {s["id"] for s in old["sources"]}


def test_evaluation_lifecycle_and_control(client):
    """C-50: start, finish through the control surface, archive, unarchive, rerun (spends again)."""
    run = client.post("/api/evaluation-runs/system", headers=auth(), json={"ai_system_id": 123}).json()["runs"][0]
    art = client.get(f"/api/evaluation-runs/{run['id']}/artifacts", headers=auth())
    assert art.json()["error"]["code"] == "evaluation_not_finished"
    assert client.post(f"/__mock/evaluations/{run['id']}/finish", json={"status": "failed"}).status_code == 200
    assert client.get(f"/api/evaluation-runs/{run['id']}", headers=auth()).json()["run"]["status"] == "failed"
    assert client.post(f"/api/evaluation-runs/{run['id']}/archive", headers=auth()).json()["run"]["archived"] is True
    ids = [r["id"] for r in client.get("/api/evaluation-runs", headers=auth()).json()["items"]]
    assert run["id"] not in ids
    client.post(f"/api/evaluation-runs/{run['id']}/unarchive", headers=auth())
    used = client.get("/api/evaluation-allowance", headers=auth()).json()["allowance"]["used"]
    rerun = client.post(f"/api/evaluation-runs/{run['id']}/rerun", headers=auth(), json={}).json()["runs"][0]
    assert rerun["rerun_of"] == run["id"]
    assert client.get("/api/evaluation-allowance", headers=auth()).json()["allowance"]["used"] == used + 1
    assert client.get("/api/evaluation-runs/789/fix-brief", headers=auth()).json()["fix_brief"]["run_id"] == 789


def test_reset_restores_fixtures_and_fixed_tokens(client):
    """Issue item 2: seeded keys are the same after reset; state written before is gone."""
    client.post("/api/ai-systems", headers=auth(OAUTH), json={"name": "New"})
    assert client.post("/__mock/reset").status_code == 204
    assert [s["id"] for s in client.get("/api/ai-systems", headers=auth()).json()["items"]] == [123]


def test_control_accounts_and_tokens(client):
    """Control surface: POST /__mock/accounts and /__mock/tokens."""
    acct = client.post("/__mock/accounts", json={"plan": "enterprise"})
    assert acct.status_code == 201 and acct.json()["plan"] == "enterprise"
    tok = client.post("/__mock/tokens", json={"account_id": acct.json()["id"], "kind": "session"}).json()
    assert tok["kind"] == "session"
    who = client.get("/api/auth/me", headers=auth(tok["token"])).json()
    assert who["account"] == {"id": acct.json()["id"], "plan": "enterprise"} and who["credential"]["kind"] == "session"
    assert client.post("/__mock/tokens", json={"kind": "root"}).status_code == 400


def test_github_headless_connection(client):
    """connect_github -> GitHub's callback -> finish_github_connection (pending, then connected) -> list_repos."""
    tok = client.post("/__mock/tokens", json={"account_id": "acct_free", "kind": "oauth"}).json()["token"]
    started = client.get("/api/github/install-url?headless=true", headers=auth(tok)).json()
    pending = client.post("/api/github/connection", headers=auth(tok), json={"state": started["state"]}).json()
    assert pending["status"] == "pending"
    assert client.get("/api/github/repos", headers=auth(tok)).json()["error"]["code"] == "github_not_connected"
    client.post("/api/github/headless-callback", json={"state": started["state"], "installation_id": 9002})
    done = client.post("/api/github/connection", headers=auth(tok), json={"state": started["state"]}).json()
    assert done["status"] == "connected" and done["installation"]["id"] == 9002
    assert [r["full_name"] for r in client.get("/api/github/repos", headers=auth(tok)).json()["items"]] == [
        "globex/agents"
    ]


def test_repository_allowlist(client):
    """C-57: the capped key may use acme/support-bot only."""
    capped = auth("bench_dev_key_growth_capped")
    assert client.get("/api/github/repos/acme/support-bot/branches", headers=capped).status_code == 200
    r = client.get("/api/github/repos/acme/checkout/branches", headers=capped)
    assert (r.status_code, r.json()["error"]["code"]) == (403, "repository_not_allowed")


def test_stage_streams_over_a_reviewed_benchmark(client):
    """C-61, C-62: generate, review, baseline (spends one), search-optimize; the last line is the result."""
    q = "?branch=main"
    gen = client.post(f"/api/repos/acme/support-bot/eval-benchmark{q}", headers=auth())
    assert gen.headers["content-type"].startswith("application/x-ndjson")
    events = [json.loads(line) for line in gen.text.splitlines()]
    cases = events[-1]["result"]["benchmark"]["test_cases"]
    client.post(f"/api/repos/acme/support-bot/eval-benchmark/review{q}", headers=auth(), json={"test_cases": cases})
    before = client.get("/api/evaluation-allowance", headers=auth()).json()["allowance"]["used"]
    base = client.post(f"/api/repos/acme/support-bot/baseline{q}", headers=auth(), json={})
    assert json.loads(base.text.splitlines()[-1])["type"] == "result"
    assert client.get("/api/evaluation-allowance", headers=auth()).json()["allowance"]["used"] == before + 1
    opt = client.post(f"/api/repos/acme/support-bot/search-optimize{q}", headers=auth(), json={"variant_count": 4})
    assert len(json.loads(opt.text.splitlines()[-1])["result"]["search_optimize"]["variants"]) == 4
    assert len(client.get(f"/api/repos/acme/support-bot/golden-cases{q}", headers=auth()).json()["items"]) == len(cases)


def test_workspace_shares_the_billing_holders_plan(client):
    """set_workspace_billing_holder: every member uses the holder's plan and balance."""
    free = client.post("/__mock/tokens", json={"account_id": "acct_free", "kind": "oauth"}).json()["token"]
    ws = client.post("/api/org", headers=auth(OAUTH), json={"name": "Acme"})
    assert ws.status_code == 201
    inv = client.post("/api/org/invites", headers=auth(OAUTH), json={"email": "free@example.test"}).json()["invite"]
    joined = client.post("/api/org/invites/accept", headers=auth(free), json={"token": inv["token"]})
    assert len(joined.json()["workspace"]["members"]) == 2
    assert client.get("/api/auth/me", headers=auth(free)).json()["account"]["plan"] == "growth"
    r = client.patch("/api/org", headers=auth(free), json={"name": "Mine"})
    assert r.json()["error"]["code"] == "workspace_admin_required"


def test_change_plan_moves_the_allowance(client):
    """x-plans: builder -> growth raises the limit and issues an invoice."""
    tok = client.post("/__mock/tokens", json={"account_id": "acct_builder", "kind": "oauth"}).json()["token"]
    assert client.get("/api/evaluation-allowance", headers=auth(tok)).json()["allowance"]["limit"] == 25
    r = client.post("/api/billing/change-plan", headers=auth(tok), json={"price_id": "price_growth_monthly"})
    assert r.json()["subscription"]["plan"] == "growth"
    assert client.get("/api/evaluation-allowance", headers=auth(tok)).json()["allowance"]["limit"] == 150
    assert len(client.get("/api/billing/invoices", headers=auth(tok)).json()["items"]) == 1


def test_runtime_plan_run_is_idempotent_and_pauses_at_its_budget(client):
    """runtime_eval_run: Idempotency-Key required; a duplicate returns the original run; a run pauses at its
    budget and continue resumes it."""
    plan = {
        "cases": [{"id": f"c{i}", "input": i, "split": "development" if i < 3 else "confirmation"} for i in range(5)],
        "configurations": [{"id": "current", "model": "gpt-4.1"}],
        "budget": {"max_trials": 2},
    }
    p = client.post("/api/ai-systems/123/evaluation-plans", headers=auth(), json=plan).json()["plan"]
    assert p["counts"]["confirmation"] == 2 and "cases" not in p
    assert (
        len(client.get(f"/api/ai-systems/123/evaluation-plans/{p['id']}/review", headers=auth()).json()["items"]) == 3
    )
    no_key = client.post("/api/ai-systems/123/evaluation-runs", headers=auth(), json={"plan_id": p["id"]})
    assert no_key.json()["error"]["code"] == "idempotency_key_required"
    h = {**auth(), "Idempotency-Key": "start-0001"}
    first = client.post("/api/ai-systems/123/evaluation-runs", headers=h, json={"plan_id": p["id"]})
    again = client.post("/api/ai-systems/123/evaluation-runs", headers=h, json={"plan_id": p["id"]})
    assert (
        first.status_code == 201 and again.status_code == 200 and again.json()["run"]["id"] == first.json()["run"]["id"]
    )
    rid = first.json()["run"]["id"]
    client.post("/__mock/clock", json={"advance_seconds": 60})
    assert client.get(f"/api/ai-systems/123/evaluation-runs/{rid}", headers=auth()).json()["run"]["status"] == "paused"
    cont = client.post(
        f"/api/ai-systems/123/evaluation-runs/{rid}/continue", headers=h, json={"extend_budget": {"max_trials": 10}}
    )
    assert cont.json()["run"]["status"] == "running"
    client.post("/__mock/clock", json={"advance_seconds": 60})
    events = client.get(f"/api/ai-systems/123/evaluation-runs/{rid}/events?after=0", headers=auth()).json()["events"]
    assert [e["type"] for e in events] == ["queued", "started", "paused", "continued", "completed"]


def test_no_response_comes_near_16_mb(client):
    """C-58: pages stop at the byte budget; next_offset continues."""
    version = 3
    for i in range(40):
        r = client.put(
            "/api/ai-systems/123/context/sources",
            headers=auth(),
            json={
                "expected_version": version,
                "source": {
                    "id": f"manual-big-{i}",
                    "kind": "user",
                    "category": "c",
                    "scope": "system",
                    "text": "x" * 59000,
                },
            },
        )
        version = r.json()["context"]["version"]
    got = client.get("/api/ai-systems/123/context/sources?limit=100", headers=auth()).json()
    assert got["next_offset"] is not None and len(got["items"]) < 43
    rest = client.get(
        f"/api/ai-systems/123/context/sources?limit=100&offset={got['next_offset']}", headers=auth()
    ).json()
    assert len(got["items"]) + len(rest["items"]) <= got["total"]


def test_schemas_compile():
    """The spec's response schemas compile (jsonschema-rs, the engine's validator)."""
    for _, _, op in OPS:
        for resp in op["responses"].values():
            schema = (resp.get("content") or {}).get("application/json", {}).get("schema")
            if schema:
                assert COMPILER.validator(schema) is not None
    assert jsonschema_rs


def test_an_api_key_cannot_mint_or_gain_account_authority(client):
    """C-19: exchanging an API key mints nothing; its capabilities say so; the OAuth credential's say otherwise."""
    r = client.post("/api/auth/mcp-token", json={"token": KEY})
    assert (r.status_code, r.json()["error"]["code"]) == (401, "invalid_token")
    assert client.post("/api/account/api-keys/setup", headers=auth(), json={}).status_code == 403
    key = client.get("/api/headless/capabilities", headers=auth()).json()["credential"]
    assert key == {
        "kind": "api_key",
        "id": "cred_key_growth",
        "account_authority": False,
        "can_mint_credentials": False,
    }
    oauth = client.get("/api/headless/capabilities", headers=auth(OAUTH)).json()["credential"]
    assert oauth["account_authority"] is True


PAGED_OPS = [
    (m, t, o)
    for m, t, o in OPS
    if m == "GET" and {p["name"] for p in o.get("parameters", []) if p["in"] == "query"} & {"offset", "limit"}
]


@pytest.mark.parametrize(("method", "template", "op"), PAGED_OPS, ids=[o["operationId"] for _, _, o in PAGED_OPS])
@pytest.mark.parametrize("value", ["T", "-1", "1.5", "0x10"])
def test_a_bad_page_value_is_a_400_the_operation_documents(client, method, template, op, value):
    """C-58 (pages): an unparsable or negative `offset`/`limit` is a clear 400 whose code the operation's own
    `x-errors` lists, on every paged operation (the contract suite's `documented_error_code` finds any other)."""
    names = [p["name"] for p in op.get("parameters", []) if p["in"] == "query" and p["name"] in ("offset", "limit")]
    for name in names:
        r = client.get(_path(template), params={name: value}, headers=auth(OAUTH))
        assert r.status_code == 400, (name, r.text)
        assert r.json()["error"]["code"] in op["x-errors"]["400"], (name, r.json()["error"])


def test_a_limit_is_read_only_where_the_operation_declares_one(client):
    """C-58: `limit` belongs to the operations that declare it; elsewhere a page has the default size."""
    r = client.get("/api/ai-systems/123/test-library", params={"limit": "T"}, headers=auth(OAUTH))
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("blank", [b"\r", b" ", b"\n\t "])
def test_a_whitespace_body_is_malformed_json_not_an_absent_body(client, blank):
    """C-53 (errors): an optional JSON body may be left out (zero bytes), but whitespace alone is not a JSON
    text (RFC 8259) and is refused as malformed with a 400, as schemathesis's negative cases expect."""
    headers = {**auth(OAUTH), "Content-Type": "application/json"}
    r = client.post("/api/account/api-keys/setup", content=blank, headers=headers)
    assert (r.status_code, r.json()["error"]["code"]) == (400, "invalid_argument"), r.text
    assert client.post("/api/account/api-keys/setup", content=b"", headers=headers).status_code == 200
