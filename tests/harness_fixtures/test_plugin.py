"""The pytest plugin (docs/pytest-plugin.md): one fixture per API, a real HTTP mock per session, reset per test.

The fixtures are what a client author's suite gets from `pip install benchmark-api-harness`; each test
here drives one API's mock through its fixture with plain `httpx` and checks a claim of the reference
(§N.N for Benchwright, A-nn, B-nn, C-nn for the others) through the typed control client.
"""

from __future__ import annotations

import textwrap

import httpx
import pytest
from bench_sdk import BenchPlatform

from harness_fixtures import (
    BenchControl,
    BenchgenControl,
    BenchsdkControl,
    BenchwrightControl,
    ControlError,
    ServedMock,
)

pytestmark = pytest.mark.http
pytest_plugins = ["pytester"]
LAUNCH = {"request": "Run MMLU", "model": {"model": "qwen/qwen3-32b", "provider": "openrouter"}}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_benchwright_fixture(benchwright_mock: ServedMock[BenchwrightControl]):
    """§4.2 a launch answers 202; §4.1.1 a finished run reads `ok`; §2.4 a PAT without the write scope is
    refused `scope_insufficient`; §2.2, §11 a browser session reads settings; a forced 503 is answered."""
    mock, control = benchwright_mock, benchwright_mock.control
    assert mock.env["BW_API_URL"] == mock.url and mock.env["BW_PAT"] == mock.credential
    assert {"BW_PAT_READONLY", "BW_PAT_WRITEONLY", "BW_PAT_EXPIRED"} <= set(mock.env)  # the narrower PATs too
    api = httpx.Client(base_url=mock.url, headers=bearer(mock.credential))
    run = api.post("/v1/runs", json=LAUNCH)
    assert run.status_code == 202, run.text
    assert control.finish_run(run.json()["id"], "ok", score=0.75)["status"] == "ok"
    assert api.get(f"/v1/runs/{run.json()['id']}").json()["status"] == "ok"
    user = control.create_user(tier="growth", balance_cents=500)
    reader = control.mint_token(["runs:read"], user_id=user.id)
    refused = httpx.post(f"{mock.url}/v1/runs", json=LAUNCH, headers=bearer(reader.token))
    assert refused.status_code == 403 and refused.json()["code"] == "scope_insufficient"
    session = control.create_session(user.id)
    settings = httpx.get(f"{mock.url}/v1/settings", cookies={session.cookie_name: session.cookie})
    assert settings.status_code == 200, settings.text
    control.add_fault(operation_id="listRuns", status=503)
    assert api.get("/v1/runs").status_code == 503
    control.clear_faults()
    assert api.get("/v1/runs").status_code == 200
    assert [e["operation_id"] for e in control.journal()][:2] == ["launchRun", "getRun"]


def test_benchsdk_fixture(benchsdk_mock: ServedMock[BenchsdkControl]):
    """A-01 the API is under `/api/v1` of the root URL; A-03 an OAuth token acts for the organization the
    request names; an unknown organization is refused by the control surface in the API's error format."""
    mock, control = benchsdk_mock, benchsdk_mock.control
    listed = httpx.get(f"{mock.url}/api/v1/benchmarks", headers=bearer(mock.credential))
    assert listed.status_code == 200 and "sandbox-tti" in {b["slug"] for b in listed.json()["items"]}
    org = control.create_org("globex")
    token = control.mint_token("oauth", org_id=org.id)
    assert token.kind == "oauth" and token.token != mock.credential
    created = httpx.put(
        f"{mock.url}/api/v1/benchmarks/globex-tti",
        json={"name": "Globex TTI"},
        headers={**bearer(token.token), "X-Org-Slug": "globex"},
    )
    assert created.status_code in (200, 201), created.text
    assert created.json()["benchmark"]["organizationSlug"] == "globex"
    with pytest.raises(ControlError) as refused:
        control.mint_token(org_id="no-such-org")
    assert refused.value.status == 404 and refused.value.body["error"]["code"] == "not_found"


def test_benchgen_fixture(benchgen_mock: ServedMock[BenchgenControl]):
    """B-26 a queued run answers 201 with a submission_id; B-29 it spends credits; B-13, B-14 a join to a
    competition without auto-approval is pending until approved; a revoked token is 401 once 60
    simulated seconds have passed (docs/interpretations.md, BenchGen)."""
    mock, control = benchgen_mock, benchgen_mock.control
    queued = httpx.post(
        f"{mock.url}/models/api/queue_benchmark_run",
        json={"competition_id": 121, "model_id": 456},
        headers=bearer(mock.credential),
    )
    assert queued.status_code == 201 and queued.json()["credits_charged"] > 0
    finished = control.finish_submission(queued.json()["submission_id"], score=0.5)
    assert (finished["status"], finished["score"]) == ("completed", 0.5)
    user = control.create_user(credits=50)
    token = control.mint_token(["benchmark:read", "benchmark:run"], user_id=user.id)
    competition = control.create_competition("Trivia", auto_approve=False)
    joined = httpx.post(f"{mock.url}/api/competitions/{competition}/register/", headers=bearer(token.token))
    assert joined.json()["participant_status"] == "pending"
    assert control.approve_participant(competition, user.id)["participant_status"] == "approved"
    control.revoke_token(token.id)
    control.advance_clock(60)
    assert httpx.get(f"{mock.url}/api/user_llm_models/", headers=bearer(token.token)).status_code == 401


def test_bench_fixture(bench_mock: ServedMock[BenchControl]):
    """With the published client (`trybench-sdk`): C-17 an API key reads the account's systems; an
    evaluation ends when the control surface says (here: failed) and cannot end twice; C-18 an
    account-class OAuth credential of a new account lists its keys."""
    mock, control = bench_mock, bench_mock.control
    assert set(mock.credentials) == {"BENCH_API_KEY", "BENCH_OAUTH_TOKEN", "BENCH_SDK_KEY"}
    platform = BenchPlatform(mock.credential, endpoint=mock.url)
    assert [s["id"] for s in platform.call("list_systems")["items"]] == [123]
    run_id = platform.call("start_system_evaluation", body={"ai_system_id": 123})["runs"][0]["id"]
    assert control.finish_evaluation(run_id, "failed")["status"] == "failed"
    assert platform.call("get_evaluation", path={"id": run_id})["run"]["status"] == "failed"
    with pytest.raises(ControlError) as refused:
        control.finish_evaluation(run_id)
    assert refused.value.status == 409 and refused.value.body["error"]["code"] == "evaluation_finished"
    account = control.create_account("builder")
    oauth = control.mint_token("oauth", account_id=account.id)
    assert BenchPlatform(oauth.token, endpoint=mock.url).call("list_api_keys")["items"] == []


def test_latency_faults_and_the_clock(benchgen_mock: ServedMock[BenchgenControl]):
    """The control surface's clock and latency faults, as docs/pytest-plugin.md lists them: the clock moves
    by exactly what was asked, and a latency fault on one operation delays its answer by at least that."""
    mock, control = benchgen_mock, benchgen_mock.control
    before = control.now()
    assert (control.advance_clock(30) - before).total_seconds() == 30
    control.add_fault(operation_id="listUserLlmModels", latency_ms=300)
    response = httpx.get(f"{mock.url}/api/user_llm_models/", headers=bearer(mock.credential))
    assert response.status_code == 200 and response.elapsed.total_seconds() >= 0.3


CLIENT_SUITE = """
import sys

import httpx

URLS = []


def test_nothing_is_served_for_a_test_that_asks_for_no_mock():
    assert "mock_server.app" not in sys.modules


def test_a_write(benchgen_mock):
    URLS.append(benchgen_mock.url)
    user = benchgen_mock.control.create_user(credits=7)
    headers = {"Authorization": f"Bearer {benchgen_mock.credential}"}
    assert httpx.get(f"{benchgen_mock.url}/api/user_llm_models/", headers=headers).status_code == 200
    assert user.id > 0 and len(benchgen_mock.control.journal()) == 1


def test_the_next_test_starts_from_the_fixtures(benchgen_mock):
    URLS.append(benchgen_mock.url)
    assert URLS[0] == URLS[1]  # one server for the session
    assert benchgen_mock.control.journal() == []  # the previous test's request is not this test's
    token = benchgen_mock.control.mint_token(["benchmark:read"])
    assert token.id == 1000  # the seed's next id: the user the previous test made is gone
"""


def test_one_server_per_session_reset_before_each_test(pytester: pytest.Pytester):
    """The fixture's lifecycle, in a client's own suite run in a fresh process: nothing started until a
    test asks, one server for the session, state and journal back to the seed before each test."""
    pytester.makepyfile(test_client=textwrap.dedent(CLIENT_SUITE))
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:xdist", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
