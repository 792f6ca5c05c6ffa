"""Runs (§4) and the cross-cutting semantics they exercise (§3.4–§3.9), in process.

Every response is validated against the spec by the `api` fixture.
"""

from __future__ import annotations

from datetime import datetime

from starlette.testclient import TestClient

from mock_server.app import create_app
from mock_server.benchwright.fixtures import RUN_IDS
from mock_server.benchwright.model.rows import Secret
from tests.benchwright.conftest import SpecCheckedClient

OK_RUN = RUN_IDS["ok_public"]
MODEL = {"model": "qwen/qwen3-32b", "provider": "openrouter"}


def vault_key(api, user_id, secret_id):
    """Put an `OPENROUTER_API_KEY` straight into a user's vault (no host policy)."""
    now = api.mock.store.clock.now()
    api.mock.store.secrets[secret_id] = Secret(
        id=secret_id,
        user_id=user_id,
        name="OPENROUTER_API_KEY",
        description=None,
        value_sha256="0" * 64,
        injections=[],
        created_at=now,
        updated_at=now,
    )


def launch(api, **body):
    body = {"request": "Run MMLU Abstract Algebra via OpenRouter", "model": MODEL, **body}
    response = api.post("/v1/runs", json=body)
    assert response.status_code == 202, response.text
    return response.json()["id"]


def run_of(api, run_id):
    response = api.get(f"/v1/runs/{run_id}")
    assert response.status_code == 200, response.text
    return response.json()


# -- §1 headers, §3.9 problems -----------------------------------------------


def test_every_response_carries_request_id_and_api_version(api):
    """§1: X-Benchwright-Request-Id and X-Benchwright-Api-Version on every response."""
    for response in (api.get("/v1/runs"), api.get("/v1/runs/00000000-0000-4000-8000-000000000000")):
        assert response.headers["X-Benchwright-Api-Version"] == "1"
        assert response.headers["X-Benchwright-Request-Id"].startswith("req_")
    assert "cache-control" not in api.get("/v1/runs").headers  # §1: ordinary responses say nothing


def test_problem_json_shape_and_bad_uuid(api):
    """§3.1: UUID-shaped ids are validated for shape; §3.9 problem+json fields."""
    response = api.get("/v1/runs/not-a-uuid")
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["code"] == "invalid_argument" and "id" in body["detail"]
    assert body["request_id"] == response.headers["X-Benchwright-Request-Id"]
    assert set(body) >= {"type", "title", "status", "code", "detail", "request_id", "retryable"}


def test_integers_beyond_64_bits_are_a_400(api):
    """§14: bad values are 400 invalid_argument; a declared integer is `format: int64` in the
    spec (docs/interpretations.md), so one the API cannot hold is refused (never a later 500)."""
    response = api.patch("/v1/billing/controls", json={"monthly_cap_cents": 2**70})
    assert response.status_code == 400 and response.json()["code"] == "invalid_argument"
    assert "monthly_cap_cents" in response.json()["detail"]


def test_numbers_the_spec_does_not_declare_are_not_bounded(api):
    """The 64-bit bound is the spec's, on declared integers only: a huge number in a
    property the schema leaves open (a run's free-form `metadata`) is accepted."""
    response = api.post(
        "/v1/runs", json={"benchmark": "MMLU", "model": MODEL, "metadata": {"big": 4.6e249, "huge": 2**70}}
    )
    assert response.status_code == 202, response.text


def test_invalid_json_body_is_a_400_not_a_500(api):
    response = api.post("/v1/runs", content=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 400 and response.json()["code"] == "invalid_argument"


def test_unknown_method_is_405_with_allow(api):
    response = api.http.request("PUT", "/v1/runs")
    assert response.status_code == 405
    assert set(response.headers["Allow"].split(", ")) == {"GET", "POST"}


# -- §4.2 launch --------------------------------------------------------------


def test_launch_requires_exactly_one_mode(api):
    """§4.2.5: multiple launch modes, or none, is 400 invalid_argument."""
    both = api.post("/v1/runs", json={"request": "Run MMLU", "benchmark": "MMLU"})
    none = api.post("/v1/runs", json={"model": MODEL})
    for response in (both, none):
        assert response.status_code == 400 and response.json()["code"] == "invalid_argument"
    assert "request" in none.json()["detail"] and "replay" in none.json()["detail"]


def test_launch_preflight_codes(api):
    """§4.2.1/§4.2.5 validations, each with its documented code."""
    cases = [
        ({"driver": "openai/gpt-5"}, 403, "admin_required"),
        ({"phase_models": {"analyze": "anthropic/claude"}}, 403, "admin_required"),
        ({"harness": "pytest"}, 400, "unknown_harness"),
        ({"bridge": "inspect"}, 400, "bridge_renamed_to_harness"),
        ({"trials": {"plan": {"k": 2}, "aggregator": {"name": "median"}}}, 400, "unknown_aggregator"),
        ({"model": {"model": "x/y", "provider": "azure"}}, 400, "unknown_provider"),
        ({"model": None, "metadata": {"autonomous": True}}, 400, "autonomous_model_required"),
        ({"limits": {"attempt": {"cost": 1.0}}}, 400, "invalid_argument"),
        ({"compute": "lambda"}, 400, "invalid_argument"),
    ]
    for extra, status, code in cases:
        body = {"request": "Run MMLU", "model": MODEL, **extra}
        if body.get("model") is None:
            body.pop("model")
        response = api.post("/v1/runs", json=body)
        assert (response.status_code, response.json()["code"]) == (status, code), extra


def test_launch_accepts_harness_synonyms_and_explicit_gemini_driver(api):
    run_id = launch(api, harness="lm-eval", driver="gemini-3-flash-preview")
    run = run_of(api, run_id)
    assert run["harness"] == "lmeval" and run["driver"] == "gemini-3-flash-preview"


def test_launch_floor_and_no_provider_secret(api):
    """§4.2.5: 402 under the $1 floor; 400 with no vault key; 412 without the pinned provider's key."""
    poor = api.user(balance_cents=50)
    client = api.as_token(["full"], user_id=poor["id"])
    response = client.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL})
    assert response.status_code == 400 and response.json()["code"] == "no_provider_secret"
    own = api.as_token(["full"])
    together = own.post("/v1/runs", json={"request": "Run MMLU", "model": {"model": "m", "provider": "together"}})
    assert together.status_code == 412 and together.json()["code"] == "no_provider_secret"
    vault_key(api, poor["id"], "poor-key")
    response = client.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL})
    assert response.status_code == 402 and response.json()["code"] == "insufficient_balance"


def test_tier_concurrency_cap(api):
    """§13: free accounts run one run at a time (429 tier_concurrency_exceeded)."""
    free = api.user(tier="free")
    vault_key(api, free["id"], "free-key")
    client = api.as_token(["full"], user_id=free["id"])
    launch(client)
    second = client.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL})
    assert second.status_code == 429 and second.json()["code"] == "tier_concurrency_exceeded"


def test_a_run_moves_through_its_phases_to_ok(api):
    """§4.1/§15: the simulated pipeline emits phases in order and finalizes with a score."""
    run_id = launch(api)
    first = run_of(api, run_id)
    assert first["status"] == "running" and "benchmark_id" not in first  # §3.10: absent, not null
    api.advance(15)
    middle = run_of(api, run_id)
    assert middle["status"] == "running" and middle["current_phase"] in ("analyze", "setup", "atomize")
    assert middle["cost"]["billed"]["amount_cents"] >= 1
    api.advance(600)
    done = run_of(api, run_id)
    assert done["status"] == "ok" and done["display_status"] == "ok" and done["finished_at"]
    assert done["benchmark_id"].startswith("bm_") and done["subset_id"].startswith("sub_")
    assert 0 <= done["score"] <= 1
    cost = done["cost"]
    assert (
        abs(
            cost["incurred"]["amount_usd"]
            - (cost["driver"]["amount_usd"] + cost["model"]["amount_usd"] + cost["sandbox"]["amount_usd"])
        )
        < 1e-6
    )
    assert cost["billed"]["amount_usd"] < cost["incurred"]["amount_usd"]  # the SUT's spend is not billed


def test_mock_finish_controls_the_outcome(api):
    run_id = launch(api)
    response = api.http.post(f"/__mock/runs/{run_id}/finish", json={"status": "error"})
    assert response.status_code == 200 and response.json()["status"] == "error"
    assert run_of(api, run_id)["error"]


def test_run_limit_halts_between_phases(api):
    """§4.2.1: reaching run.cost halts with limit_exceeded:run.cost; display_status halted."""
    run_id = launch(api, limits={"run": {"cost": 0.02}})
    api.advance(600)
    run = run_of(api, run_id)
    assert run["status"] == "error" and run["halted"] is True
    assert run["halt_reason"] == "limit_exceeded:run.cost" and run["display_status"] == "halted"


def test_legacy_constraints_become_limits(api):
    """§4.2.1: constraints.max_cost_cents still works and means run.cost."""
    run_id = launch(api, constraints={"max_cost_cents": 2})
    api.advance(600)
    assert run_of(api, run_id)["halt_reason"] == "limit_exceeded:run.cost"


def test_a_task_ceiling_fails_only_the_tasks_over_it(api):
    """§4.2.1: a task ceiling bounds a task's tries together and stops only that task: the try that
    reaches it is recorded failed, cut at the ceiling, and no try follows; the tasks under it pass
    every try and the run finishes unhalted."""
    run_id = launch(api, trials={"plan": {"k": 2}}, limits={"task": {"duration": 1.8}})
    api.advance(600)
    rows = api.get(f"/v1/runs/{run_id}/tasks", params={"include_retries": "true"}).json()["data"]
    tasks = {row["index"]: [] for row in rows}
    for row in rows:
        tasks[row["index"]].append(row)
    stopped = {index for index, tries in tasks.items() if tries[-1]["error_class"] == "timeout"}
    assert stopped and stopped != set(tasks), tasks  # some tasks over the ceiling, some under it
    for index, tries in tasks.items():
        spent = sum(r["duration_ms"] for r in tries)
        assert (spent == 1800) if index in stopped else (spent <= 1800 and len(tries) == 2), tries
        assert all(r["error_class"] == "ok" for r in tries[:-1])
    run = run_of(api, run_id)
    assert run["status"] == "ok" and run["halted"] is False


def test_an_attempt_ceiling_fails_the_try_over_it(api):
    """§4.2.1: `attempt.duration` (and its pre-`limits` spelling `metadata.task_timeout_sec`) bounds one
    try: only a try longer than it is failed."""
    run_id = launch(api, limits={"attempt": {"duration": 0.8}})
    api.advance(600)
    rows = api.get(f"/v1/runs/{run_id}/tasks").json()["data"]
    assert {r["error_class"] for r in rows} == {"ok", "timeout"}
    assert all((r["error_class"] == "timeout") == (r["duration_ms"] == 800) for r in rows)
    assert run_of(api, run_id)["halted"] is False


def _lingered(api, run_id):
    return [e for e in api.get(f"/v1/runs/{run_id}/events").json()["data"] if e["type"] == "ProxySandboxLinger"]


def test_proxy_linger_is_clamped_to_a_day(api):
    """§4.2.1: `metadata.proxy_linger_seconds` keeps the proxy N seconds after the run finishes,
    silently clamped to [0, 86400] (the spec's `x-clamp`); 0 or less tears it down at once."""
    asked = {seconds: launch(api, metadata={"proxy_linger_seconds": seconds}) for seconds in (600, 100000, -5, 0)}
    api.advance(600)
    for seconds, granted in ((600, 600), (100000, 86400)):
        run = run_of(api, asked[seconds])
        finished_ms = int(datetime.fromisoformat(run["finished_at"]).timestamp() * 1000)
        (event,) = _lingered(api, asked[seconds])
        assert event["data"]["requested_seconds"] == seconds
        assert event["data"]["granted_expires_at_ms"] - finished_ms == granted * 1000
    assert not _lingered(api, asked[-5]) and not _lingered(api, asked[0])


def test_balance_floor_halts_mid_run(api):
    """§3.9/§4.1.1: a debit that drops balance under $1 halts with insufficient_balance."""
    user = api.user(balance_cents=105)
    vault_key(api, user["id"], "k")
    client = api.as_token(["full"], user_id=user["id"])
    run_id = launch(client)
    api.advance(600)
    run = run_of(client, run_id)
    assert run["halt_reason"] == "insufficient_balance" and run["display_status"] == "halted"


# -- §4.6–§4.11 transitions -----------------------------------------------------


def test_halt_records_the_reason(api):
    """§4.6: operator_kill by <who>: <reason>, whitespace collapsed, 200 characters."""
    run_id = launch(api)
    reason = "superseded   by\n build 8813 " + "x" * 300
    response = api.post(f"/v1/runs/{run_id}/halt", json={"reason": reason})
    assert response.status_code == 200
    run = response.json()
    assert run["halted"] is True and run["display_status"] == "killed" and run["status"] == "error"
    text = run["halt_reason"]
    assert text.startswith("operator_kill by dev@example.test: superseded by build 8813 x")
    assert len(text.split(": ", 1)[1]) == 200


def test_pause_and_resume(api):
    """§4.11: pause -> paused; pause again -> already_halted; resume -> running; resume again -> not_paused."""
    run_id = launch(api)
    paused = api.post(f"/v1/runs/{run_id}/pause").json()
    assert paused["halted"] is True and paused["halt_reason"].startswith("operator_pause")
    assert paused["display_status"] == "paused"
    again = api.post(f"/v1/runs/{run_id}/pause")
    assert again.status_code == 409 and again.json()["code"] == "already_halted"
    api.advance(600)  # the Driver suspends at the next phase boundary and stays there
    held = run_of(api, run_id)
    assert held["status"] == "running" and held["display_status"] == "paused"
    resumed = api.post(f"/v1/runs/{run_id}/resume").json()
    assert resumed["halted"] is False and resumed["display_status"] == "running"
    assert api.post(f"/v1/runs/{run_id}/resume").json()["code"] == "not_paused"
    api.advance(600)
    assert run_of(api, run_id)["status"] == "ok"


def test_pause_needs_a_running_run_and_resume_refuses_a_review(api):
    """§4.11: invalid_state when not running; a review is not resumed with /resume."""
    response = api.post(f"/v1/runs/{OK_RUN}/pause")
    assert response.status_code == 409 and response.json()["code"] == "invalid_state"
    review = RUN_IDS["review"]
    assert api.post(f"/v1/runs/{review}/pause").json()["code"] == "already_halted"
    assert api.post(f"/v1/runs/{review}/resume").json()["code"] == "not_paused"


def test_review_resolution_clears_the_halt_and_resumes(api):
    """§4.8: review_resolution clears halted/halt_reason and the run carries on."""
    review = RUN_IDS["review"]
    assert run_of(api, review)["display_status"] == "waiting"
    response = api.patch(f"/v1/runs/{review}", json={"review_resolution": "Shift them by one."})
    assert response.status_code == 200
    assert response.json()["halted"] is False and response.json()["review_resolution"] == "Shift them by one."
    api.advance(600)
    assert run_of(api, review)["status"] == "ok"


def test_visibility_rules(api):
    """§4.8: public requires status ok (409 otherwise); unlisted is readable anonymously."""
    failed = RUN_IDS["error"]
    response = api.patch(f"/v1/runs/{failed}", json={"visibility": "public"})
    assert response.status_code == 409 and response.json()["code"] == "visibility_constraint_violated"
    anon = api.anonymous()
    assert anon.get(f"/v1/runs/{failed}").status_code == 404
    assert api.patch(f"/v1/runs/{failed}", json={"visibility": "unlisted"}).status_code == 200
    assert anon.get(f"/v1/runs/{failed}").status_code == 200


def test_anonymous_reads_of_public_runs_only(api, anon):
    """§2.2: public/unlisted run detail without credentials; lists still need a token."""
    assert anon.get(f"/v1/runs/{OK_RUN}").status_code == 200
    assert anon.get(f"/v1/runs/{RUN_IDS['killed']}").status_code == 404
    assert anon.get("/v1/runs").json()["code"] == "auth_required"
    assert "X-RateLimit-Limit" not in anon.get(f"/v1/runs/{OK_RUN}").headers  # §13


def test_other_accounts_cannot_see_private_runs(api):
    assert api.get(f"/v1/runs/{RUN_IDS['other_private']}").status_code == 404


def test_delete_adopts_fork_children(api):
    """§4.7: the children are re-pointed at the deleted run's parent and keep its work."""
    child = RUN_IDS["fork_child"]
    response = api.delete(f"/v1/runs/{child}")
    assert response.status_code == 200
    body = response.json()
    assert body["deleted"] is True and body["forks_adopted"] == [RUN_IDS["fork_grandchild"]]
    assert body["reparented_to"] == RUN_IDS["fork_root"] and body["events_adopted"] > 0
    grandchild = run_of(api, RUN_IDS["fork_grandchild"])
    assert grandchild["forked_from"] == RUN_IDS["fork_root"] and grandchild["forked_from_deleted"] == child
    assert api.get(f"/v1/runs/{child}").status_code == 404


def test_fork_and_replay_preconditions(api):
    """§4.3: description required; benchwright harness refused; §4.2.3 replay walks to the root."""
    missing = api.post(f"/v1/runs/{RUN_IDS['fork_root']}/fork", json={})
    assert missing.status_code == 400
    refused = api.post(f"/v1/runs/{OK_RUN}/fork", json={"description": "retry"})
    assert refused.status_code == 409 and refused.json()["code"] == "fork_unsupported"
    replay = api.post("/v1/runs", json={"replay": {"from_run": OK_RUN}})
    assert replay.status_code == 409 and replay.json()["code"] == "replay_unsupported"
    other = api.post(f"/v1/runs/{RUN_IDS['other_private']}/fork", json={"description": "x"})
    assert other.status_code == 404 and other.json()["code"] == "parent_not_found"
    response = api.post("/v1/runs", json={"replay": {"from_run": RUN_IDS["fork_grandchild"]}})
    assert response.status_code == 202 and response.json()["mode"] == "replay"
    assert run_of(api, response.json()["id"])["forked_from"] == RUN_IDS["fork_root"]
    fork = api.post(f"/v1/runs/{RUN_IDS['fork_root']}/fork", json={"description": "stricter scoring"})
    assert fork.status_code == 202
    assert run_of(api, fork.json()["id"])["fork_description"] == "stricter scoring"


def test_expand_phase_breakdown_and_child_forks(api):
    """§4.4: ?expand=phase_breakdown,child_forks."""
    run = api.get(f"/v1/runs/{RUN_IDS['fork_root']}?expand=phase_breakdown,child_forks").json()
    assert [row["phase"] for row in run["phase_breakdown"]][:2] == ["find", "analyze"]
    assert [child["id"] for child in run["child_forks"]] == [RUN_IDS["fork_child"]]
    assert "phase_breakdown" not in run_of(api, RUN_IDS["fork_root"])


def test_phase_stats(api):
    """§4.10: keyed by phase, from finalized runs; {} when none."""
    stats = api.get("/v1/runs:phase-stats").json()
    assert stats["find"]["attempts"] >= stats["find"]["success"] > 0
    fresh = api.user()
    assert api.as_token(["runs:read"], user_id=fresh["id"]).get("/v1/runs:phase-stats").json() == {}


def test_publish(api):
    """§8.4: empty body publishes; a run that did not finish ok is refused."""
    unlisted = RUN_IDS["ok_unlisted"]
    body = api.post(f"/v1/runs/{unlisted}/publish").json()
    assert body["visibility"] == "public" and body["fingerprint_hash"]
    refused = api.post(f"/v1/runs/{RUN_IDS['error']}/publish", json={"visibility": "public"})
    assert refused.json()["code"] == "visibility_constraint_violated"


def test_publish_on_complete(api):
    """§4.2.1: metadata.publish_on_complete flips a run that finalizes ok to public."""
    run_id = launch(api, metadata={"publish_on_complete": True})
    api.advance(600)
    assert run_of(api, run_id)["visibility"] == "public"


# -- §3.4 pagination, §3.5 filters ------------------------------------------------


def test_pagination_clamps_and_traverses_each_item_once(api):
    """§3.4: limit clamps at 100 (not rejected); following cursors yields each run once."""
    for _ in range(3):
        launch(api)
    big = api.get("/v1/runs?limit=500")
    assert big.status_code == 200 and len(big.json()["data"]) <= 100
    seen = []
    url = "/v1/runs?limit=2"
    while True:
        page = api.get(url).json()
        seen += [run["id"] for run in page["data"]]
        assert "total" not in page["pagination"]
        if not page["pagination"]["has_more"]:
            break
        url = f"/v1/runs?limit=2&page_token={page['pagination']['next_page_token']}"
    assert len(seen) == len(set(seen)) == len(api.get("/v1/runs?limit=100").json()["data"])


def test_bad_page_token_is_a_400(api):
    assert api.get("/v1/runs?page_token=garbage").json()["code"] == "invalid_argument"


def test_filters_and_sorts(api):
    """§3.5/§4.5: in:, gte:, like:, unknown keys ignored, comma sorts with '-'."""
    statuses = {run["status"] for run in api.get("/v1/runs?status=in:error&limit=100").json()["data"]}
    assert statuses == {"error"}
    assert api.get("/v1/runs?model.identifier=x&limit=100").status_code == 200
    rows = api.get("/v1/runs?benchmark=like:GSM%25&limit=100").json()["data"]
    assert [row["benchmark_name"] for row in rows] == ["GSM8K"]
    rows = api.get("/v1/runs?sort=-started_at&limit=100").json()["data"]
    started = [row["started_at"] for row in rows if row["started_at"]]
    assert started == sorted(started, reverse=True)
    assert api.get("/v1/runs?sort=model").json()["code"] == "invalid_argument"


# -- §3.7 idempotency -----------------------------------------------------------


def test_idempotent_replay_and_conflict(api):
    key = {"Idempotency-Key": "ci-build-8812"}
    body = {"request": "Run MMLU", "model": MODEL}
    first = api.post("/v1/runs", json=body, headers=key)
    second = api.post("/v1/runs", json=body, headers=key)
    assert first.status_code == second.status_code == 202
    assert second.json()["id"] == first.json()["id"]
    assert second.headers["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first.headers
    assert second.headers["content-type"] == first.headers["content-type"] == "application/json"
    assert second.content == first.content
    conflict = api.post("/v1/runs", json={**body, "request": "Run GSM8K"}, headers=key)
    assert conflict.status_code == 409 and conflict.json()["code"] == "idempotency_conflict"
    too_long = api.post("/v1/runs", json=body, headers={"Idempotency-Key": "k" * 257})
    assert too_long.status_code == 400


def test_replay_of_a_launch_that_later_failed_still_replays(api):
    """§3.7 launch caveat: the cached 202 replays even once the run errored."""
    key = {"Idempotency-Key": "caveat"}
    first = api.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL}, headers=key).json()
    api.http.post(f"/__mock/runs/{first['id']}/finish", json={"status": "error"})
    again = api.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL}, headers=key)
    assert again.json()["id"] == first["id"] and again.headers["Idempotent-Replayed"] == "true"


def test_keys_are_per_token(api):
    """§3.7: keyed by (token, key): another token's same key is a new request."""
    other = api.as_token(["full"])
    key = {"Idempotency-Key": "shared-key"}
    a = api.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL}, headers=key).json()["id"]
    b = other.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL}, headers=key).json()["id"]
    assert a != b


def test_a_retry_while_the_first_is_in_flight_is_409(app, api):
    """§3.7: "a retry that arrives while the first request is still in flight also 409s rather
    than risk running the handler twice". A latency fault on the launch holds the first copy
    after its key is taken (docs/benchwright.md, `/__mock/faults`); the retry sent meanwhile is refused, the
    launch runs once, and a retry after it finished replays it."""
    import asyncio

    import httpx

    assert api.http.post("/__mock/faults", json={"operation_id": "launchRun", "latency_ms": 300}).status_code == 201
    body, key = {"request": "Run MMLU", "model": MODEL}, {**api.headers, "Idempotency-Key": "held"}

    async def first_and_retry():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://mock") as client:
            first = asyncio.create_task(client.post("/v1/runs", json=body, headers=key))
            await asyncio.sleep(0.1)
            retry = await client.post("/v1/runs", json=body, headers=key)
            return await first, retry

    first, retry = asyncio.run(first_and_retry())
    assert first.status_code == 202 and "Idempotent-Replayed" not in first.headers
    assert retry.status_code == 409 and retry.json()["code"] == "idempotency_conflict"
    assert "in flight" in retry.json()["detail"]
    api.http.delete("/__mock/faults")
    again = api.post("/v1/runs", json=body, headers={"Idempotency-Key": "held"})
    assert again.headers["Idempotent-Replayed"] == "true" and again.json()["id"] == first.json()["id"]


def test_idempotency_expires_after_24_hours(api):
    key = {"Idempotency-Key": "day-old"}
    a = api.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL}, headers=key).json()["id"]
    api.advance(24 * 3600 + 1)
    b = api.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL}, headers=key).json()["id"]
    assert a != b


# -- §3.8 ETags -----------------------------------------------------------------------


def test_weak_etag_and_if_match(api):
    """§3.8: W/"<id>:<updated_at ms>"; stale If-Match -> 412 with the current ETag; * matches."""
    response = api.get(f"/v1/runs/{OK_RUN}")
    etag = response.headers["ETag"]
    assert etag.startswith(f'W/"{OK_RUN}:') and etag.endswith('"')
    stale = 'W/"' + OK_RUN + ':1"'
    refused = api.patch(f"/v1/runs/{OK_RUN}", json={"visibility": "unlisted"}, headers={"If-Match": stale})
    assert refused.status_code == 412 and refused.json()["code"] == "precondition_failed"
    assert refused.headers["ETag"] == etag
    ok = api.patch(f"/v1/runs/{OK_RUN}", json={"visibility": "unlisted"}, headers={"If-Match": etag})
    assert ok.status_code == 200
    star = api.patch(f"/v1/runs/{OK_RUN}", json={"visibility": "public"}, headers={"If-Match": "*"})
    assert star.status_code == 200


def test_lost_update_is_prevented(api):
    """§3.8: two writers with the same ETag: the second is refused."""
    etag = api.get(f"/v1/runs/{OK_RUN}").headers["ETag"]
    api.advance(1)
    assert (
        api.patch(f"/v1/runs/{OK_RUN}", json={"visibility": "unlisted"}, headers={"If-Match": etag}).status_code == 200
    )
    second = api.patch(f"/v1/runs/{OK_RUN}", json={"visibility": "public"}, headers={"If-Match": etag})
    assert second.status_code == 412


# -- control surface --------------------------------------------------------------------


def test_control_surface(api):
    api.get("/v1/runs")
    assert api.http.post("/__mock/clock", json={"advance_seconds": 0}).json()["now"].endswith("+00:00")
    journal = api.http.get("/__mock/requests").json()["data"]
    assert journal and all(e["headers"].get("authorization") in (None, "[redacted]") for e in journal)
    fault = api.http.post("/__mock/faults", json={"operation_id": "listRuns", "status": 503})
    assert fault.status_code == 201
    assert api.http.get("/v1/runs").status_code == 503
    assert api.http.delete("/__mock/faults").status_code == 204
    launch(api)
    assert api.http.post("/__mock/reset").status_code == 204
    assert len(api.http.get("/v1/runs?limit=100", headers=api.headers).json().get("data", [])) in (0, 10)


def test_control_surface_can_be_disabled():
    client = TestClient(create_app(control=False))
    assert client.post("/__mock/reset").status_code == 404


def test_unconfigured_compute_backends():
    """§4.2.5: 501 e2b_not_configured / 400 compute_not_configured when the deploy lacks the backend."""
    api = SpecCheckedClient(create_app(compute_backends=("e2b",))).as_token(["full"])
    e2b_ok = api.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL, "compute": "e2b"})
    assert e2b_ok.status_code == 202
    default = api.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL})
    assert default.status_code == 400 and default.json()["code"] == "compute_not_configured"
    api = SpecCheckedClient(create_app(compute_backends=("sandbox0",))).as_token(["full"])
    e2b = api.post("/v1/runs", json={"request": "Run MMLU", "model": MODEL, "compute": "e2b"})
    assert e2b.status_code == 501 and e2b.json()["code"] == "e2b_not_configured"


def test_pinned_subset_without_a_recipe_fails_at_once(api):
    """§8.6: a run pinned to a subset with no grader fails immediately with product_benchmark_no_recipe."""
    bench = api.post("/v1/benchmarks", json={"name": "No Recipe Bench"}).json()
    tasks = [{"task_id": "t0", "input": {"q": "1+1"}, "expected": "2"}]
    subset = api.post(f"/v1/benchmarks/{bench['id']}/subsets", json={"slug": "s", "name": "S", "tasks": tasks}).json()
    assert subset["runnable"] is False
    response = api.post("/v1/runs", json={"benchmark": bench["id"], "subset": subset["id"], "model": MODEL})
    assert response.status_code == 202, response.text
    run_id = response.json()["id"]
    run = run_of(api, run_id)
    assert run["status"] == "error" and run["error_type"] == "product_benchmark_no_recipe"
    assert run["display_status"] == "error" and run["halted"] is False
