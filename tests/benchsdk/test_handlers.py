"""Handlers through the app: auth, routing, refusals in the error envelope with documented codes,
limits, sequencing, fencing, lease expiry (only a reclaim fences), clipped task ranges, the client's optional inputs,
presigned uploads, listings, control surface."""

from __future__ import annotations

import gzip
from datetime import UTC, date, datetime, time, timedelta
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from mock_server.benchsdk.fixtures import SEED_API_KEY, SEED_BENCHMARK, SEED_OAUTH_TOKEN

from .client import BASE, Platform, enc

SLUG = "handlers-bench"


@pytest.fixture
def spec_errors(client):
    """operationId → x-errors, from the served spec."""
    spec = client.get("/__mock/openapi.json").json()
    return {
        op["operationId"]: op["x-errors"]
        for item in spec["paths"].values()
        for op in item.values()
        if isinstance(op, dict) and "operationId" in op
    }


def refused(response, status: int, code: str, spec_errors=None, operation_id: str | None = None) -> dict:
    """A refusal is the error envelope with that status and code (A-07), documented for the op."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code and body["error"]["message"]
    if spec_errors is not None:
        assert code in spec_errors[operation_id][str(status)], (operation_id, status, code)
    return body["error"]


def claimed(p: Platform, tasks: int = 3, participant: str = "e2b"):
    p.upsert_benchmark(SLUG, {"name": "Handlers"})
    run = p.create_run(SLUG, {"totalTasks": tasks, "participants": [participant]})["run"]
    p.plan(SLUG, run["id"], participant, 1, tasks)
    return run["id"], p.claim(SLUG, run["id"], participant)


# ---- auth (A-02..A-04) ------------------------------------------------------------------------


def test_no_token_unknown_token_and_bad_scheme_are_401(client, spec_errors):
    """A-02: every call authenticates with a bearer token."""
    refused(client.get(BASE + "/benchmarks"), 401, "unauthenticated", spec_errors, "listBenchmarks")
    refused(client.get(BASE + "/benchmarks", headers={"Authorization": "Bearer bp_nope"}), 401, "unauthenticated")
    refused(
        client.get(BASE + "/benchmarks", headers={"Authorization": f"Basic {SEED_API_KEY}"}), 401, "unauthenticated"
    )


def test_oauth_needs_an_org_header_of_its_own_org(client, spec_errors):
    """A-03, A-04 (A.3-28): OAuth names its org in X-Org-Slug or X-Organization-Id."""
    auth = {"Authorization": f"Bearer {SEED_OAUTH_TOKEN}"}
    refused(client.get(BASE + "/benchmarks", headers=auth), 400, "org_required", spec_errors, "listBenchmarks")
    assert client.get(BASE + "/benchmarks", headers={**auth, "X-Org-Slug": "acme"}).status_code == 200
    org_id = client.post("/__mock/tokens", json={}).json()["org_id"]
    assert client.get(BASE + "/benchmarks", headers={**auth, "X-Organization-Id": org_id}).status_code == 200
    refused(
        client.get(BASE + "/benchmarks", headers={**auth, "X-Org-Slug": "computesdk"}),
        403,
        "org_forbidden",
        spec_errors,
        "listBenchmarks",
    )
    # an API key implies its org: a header naming another one is ignored
    key = {"Authorization": f"Bearer {SEED_API_KEY}", "X-Org-Slug": "computesdk"}
    created = client.put(BASE + "/benchmarks/mine", json={"name": "Mine"}, headers=key).json()
    assert created["benchmark"]["organizationSlug"] == "acme"


def test_control_mints_orgs_and_tokens(client):
    """Control surface: POST /__mock/orgs and /__mock/tokens (201)."""
    org = client.post("/__mock/orgs", json={"slug": "beta", "name": "Beta"})
    assert org.status_code == 201 and org.json()["slug"] == "beta"
    tok = client.post("/__mock/tokens", json={"org_id": org.json()["id"], "kind": "oauth"})
    assert tok.status_code == 201
    body = tok.json()
    assert set(body) == {"id", "token", "kind", "org_id", "org_slug"} and body["org_slug"] == "beta"
    beta = Platform(client, body["token"], {"X-Org-Slug": "beta"})
    beta.upsert_benchmark("beta-bench", {"name": "B"})
    default = client.post("/__mock/tokens", json={}).json()
    assert default["kind"] == "api_key" and default["org_slug"] == "acme" and default["token"].startswith("bp_")
    assert client.post("/__mock/orgs", json={"slug": "beta"}).status_code == 409
    assert client.post("/__mock/tokens", json={"kind": "cookie"}).status_code == 400


def test_reset_restores_the_seed_and_keeps_the_documented_key(client, platform):
    """Fixtures: the seed key is the same after reset; created state is gone."""
    platform.upsert_benchmark("temp", {"name": "T"})
    assert client.post("/__mock/reset").status_code == 204
    assert "temp" not in [b["slug"] for b in platform.get("/benchmarks")["items"]]
    assert SEED_BENCHMARK in [b["slug"] for b in platform.get("/benchmarks")["items"]]


# ---- benchmarks and routing (A-17, A-18, A-27, A-82) ----------------------------------------------


def test_benchmarks_runs_is_not_a_slug_and_slugs_are_lowercase(client, platform, spec_errors):
    """Routing: /benchmarks/runs is a literal; A-17 lowercase slugs."""
    assert client.put(BASE + "/benchmarks/runs", json={"name": "x"}, headers=platform.headers).status_code == 405
    refused(
        client.put(BASE + "/benchmarks/Sandbox", json={"name": "x"}, headers=platform.headers),
        400,
        "invalid_argument",
        spec_errors,
        "upsertBenchmark",
    )
    refused(
        client.get(BASE + "/benchmarks/nope", headers=platform.headers),
        404,
        "benchmark_not_found",
        spec_errors,
        "getBenchmark",
    )
    refused(
        client.post(BASE + "/benchmarks/nope/runs", json={}, headers=platform.headers),
        404,
        "benchmark_not_found",
        spec_errors,
        "createRun",
    )


def test_patch_benchmark_and_foreign_owner(client, platform, spec_errors):
    """A-82: PATCH updates name/status/config; A-27: a non-owner is refused."""
    platform.upsert_benchmark(SLUG, {"name": "Before", "config": {"display": {"a": 1}}})
    patched = platform.call("PATCH", f"/benchmarks/{SLUG}", {"status": "archived"}).json()["benchmark"]
    assert (patched["name"], patched["status"], patched["config"]) == ("Before", "archived", {"display": {"a": 1}})
    org = client.post("/__mock/orgs", json={"slug": "other"}).json()
    other = Platform(client, client.post("/__mock/tokens", json={"org_id": org["id"]}).json()["token"])
    refused(
        other.call("PATCH", f"/benchmarks/{SLUG}", {"name": "Mine now"}, expect=None),
        403,
        "not_benchmark_owner",
        spec_errors,
        "updateBenchmark",
    )
    refused(
        other.call("PUT", f"/benchmarks/{SLUG}", {"name": "Mine now"}, expect=None),
        403,
        "not_benchmark_owner",
        spec_errors,
        "upsertBenchmark",
    )
    # a foreign slug still takes runs of another org, invisible to the owner
    theirs = other.create_run(SLUG, {"totalTasks": 1, "participants": ["e2b"]}, expect=201)["run"]
    refused(
        platform.call("GET", f"/benchmarks/{SLUG}/runs/{theirs['id']}", expect=None),
        404,
        "run_not_found",
        spec_errors,
        "getRun",
    )


def test_list_benchmarks_pages_with_limit_offset(platform):
    """A-81."""
    for i in range(3):
        platform.upsert_benchmark(f"page-{i}", {"name": f"P{i}"})
    everything = [b["slug"] for b in platform.get("/benchmarks")["items"]]
    assert [b["slug"] for b in platform.get("/benchmarks", limit=2, offset=1)["items"]] == everything[1:3]


# ---- runs and listings (A-28..A-36, A-84, A-93..A-95) -----------------------------------------------


def test_create_run_201_then_200_for_the_same_key(platform):
    """A-12, A.3-3: 201 when created, 200 when get-or-create found it."""
    platform.upsert_benchmark(SLUG, {"name": "H"})
    first = platform.create_run(SLUG, {"runKey": "k"}, expect=201)
    again = platform.create_run(SLUG, {"runKey": "k", "totalTasks": 5}, expect=200)
    assert first["run"]["id"] == again["run"]["id"] and again["run"]["totalTasks"] == 0


def test_patch_run_status_and_config(platform):
    """A-84."""
    platform.upsert_benchmark(SLUG, {"name": "H"})
    run = platform.create_run(SLUG, {"totalTasks": 1, "participants": ["e2b"]})["run"]
    patched = platform.call(
        "PATCH", f"/benchmarks/{SLUG}/runs/{run['id']}", {"status": "completed", "config": {"x": 1}}
    ).json()["run"]
    assert (patched["status"], patched["config"]) == ("completed", {"x": 1})
    assert (
        platform.call("PATCH", f"/benchmarks/{SLUG}/runs/{run['id']}", {"status": "done"}, expect=400).json()["error"][
            "code"
        ]
        == "invalid_argument"
    )


def test_unfiltered_run_list_is_unbounded_filtered_defaults_to_100(platform):
    """A-95: more than 100 runs."""
    platform.upsert_benchmark(SLUG, {"name": "H"})
    for _ in range(105):
        platform.create_run(SLUG, {"totalTasks": 1, "participants": ["e2b"]})
    assert len(platform.get(f"/benchmarks/{SLUG}/runs")["items"]) == 105
    assert len(platform.get(f"/benchmarks/{SLUG}/runs", participant="e2b")["items"]) == 100
    assert len(platform.get(f"/benchmarks/{SLUG}/runs", participant="e2b", limit=103)["items"]) == 103
    assert platform.get(f"/benchmarks/{SLUG}/runs", participant="modal")["items"] == []
    # A.3-20: benchmarkSlug picks the benchmark and filters nothing, so both listings agree on all 105
    per_benchmark = [r["id"] for r in platform.get(f"/benchmarks/{SLUG}/runs")["items"]]
    across = [r["id"] for r in platform.get("/benchmarks/runs", benchmarkSlug=SLUG)["items"]]
    assert across == per_benchmark and len(across) == 105
    assert len(platform.get("/benchmarks/runs", benchmarkSlug=SLUG, participant="e2b")["items"]) == 100


def test_since_until_across_midnight_in_a_time_zone(client, platform, advance, spec_errors):
    """A-93 (A.3-19): a run at 23:30Z is on the previous day in New York."""
    now = datetime.fromisoformat(client.post("/__mock/clock", json={"advance_seconds": 0}).json()["now"])
    day = now.date().isoformat()
    late = datetime.combine(now.date(), time(23, 30), tzinfo=UTC)
    if now >= late:
        pytest.skip("the mock's clock is already past 23:30 of its day")
    advance((late - now).total_seconds())  # 23:30Z of that day
    platform.upsert_benchmark(SLUG, {"name": "H"})
    run_id = platform.create_run(SLUG, {"totalTasks": 1, "participants": ["e2b"]})["run"]["id"]
    path = f"/benchmarks/{SLUG}/runs"
    nxt = (date.fromisoformat(day) + timedelta(days=1)).isoformat()
    assert [r["id"] for r in platform.get(path, since=day, until=day)["items"]] == [run_id]
    assert platform.get(path, since=nxt)["items"] == []
    assert [r["id"] for r in platform.get(path, since=day, until=day, timeZone="America/New_York")["items"]] == [run_id]
    assert platform.get(path, since=nxt, timeZone="Asia/Tokyo")["items"] != []  # 08:30 next day in Tokyo
    assert platform.get(path, until=f"{day}T23:29:59Z")["items"] == []
    refused(
        platform.call("GET", path, params={"since": "last week"}, expect=None),
        400,
        "invalid_date",
        spec_errors,
        "listRuns",
    )
    refused(
        platform.call("GET", path, params={"since": day, "timeZone": "Nowhere/City"}, expect=None),
        400,
        "invalid_time_zone",
        spec_errors,
        "listRuns",
    )


def test_seeded_data_is_readable_everywhere(platform):
    """Fixtures: the seeded finished run gives every read endpoint data at once."""
    (run,) = platform.get(f"/benchmarks/{SEED_BENCHMARK}/runs")["items"]
    base = f"/benchmarks/{SEED_BENCHMARK}/runs/{run['id']}"
    assert run["summary"]["results"] and run["status"] == "failed"
    assert platform.get(base + "/results")["overall"]["taskCount"] == 8
    assert platform.get(base + "/results/tasks")["failures"]
    assert platform.get(base + "/results/timeline")["concurrency"]["points"]
    assert {i["batchStatus"] for i in platform.get(base + "/results/imports")["items"]} == {"persisted", "failed"}
    assert platform.get(base + "/iterations", type="steps")["steps"]
    assert len(platform.get(base + "/artifacts")["items"]) == 4
    assert platform.get(base + "/participants/modal/logs", maxLines=2)["items"]
    assert platform.get(base + "/progress")["participants"][0]["tasks"]["done"] == 4
    feed = platform.get("/benchmarks/runs")["items"]
    assert {r["benchmarkSlug"] for r in feed} == {SEED_BENCHMARK, "daily"}  # the subscribed Daily feed


# ---- workers: plan, claim, lease, fence (A-14, A-15, A-39..A-45, A-71) --------------------------------


def test_claim_answers_assignment_then_null(platform):
    """A-41, A-42 (A.3-1, A.3-2): `{assignment}` with the documented fields, then `{assignment: null}`."""
    run_id, a = claimed(platform)
    assert {"workerId", "attemptId", "attemptNumber", "participantSlug", "taskRange", "targetConcurrency"} <= set(a)
    assert a["attemptNumber"] == 1 and a["participantSlug"] == "e2b"
    assert platform.claim(SLUG, run_id, "e2b") is None


def test_unknown_participant_worker_artifact_are_404(platform, spec_errors):
    run_id, a = claimed(platform)
    refused(
        platform.call("POST", f"/benchmarks/{SLUG}/runs/{run_id}/participants/ghost/workers/claim", {}, expect=None),
        404,
        "participant_not_found",
        spec_errors,
        "claimWorker",
    )
    refused(
        platform.call(
            "POST",
            f"/benchmarks/{SLUG}/runs/{run_id}/workers/ghost/heartbeat",
            {"attemptId": a["attemptId"]},
            expect=None,
        ),
        404,
        "worker_not_found",
        spec_errors,
        "heartbeatWorker",
    )
    refused(
        platform.call("GET", platform.worker_path(SLUG, run_id, a["workerId"]) + "/artifacts/ghost", expect=None),
        404,
        "artifact_not_found",
        spec_errors,
        "getWorkerArtifact",
    )
    refused(platform.call("GET", f"/benchmarks/{SLUG}/runs/ghost", expect=None), 404, "run_not_found")


def test_percent_encoded_participant_slug_round_trips(platform):
    """A-06: path params arrive percent-encoded and are decoded before lookup."""
    name = "e2b us-east:1+α"
    platform.upsert_benchmark(SLUG, {"name": "H"})
    run_id = platform.create_run(SLUG, {"totalTasks": 2, "participants": [name]})["run"]["id"]
    part = platform.register(SLUG, run_id, name, 2)
    assert part["slug"] == name
    assert platform.claim(SLUG, run_id, name) is None  # not planned yet
    platform.plan(SLUG, run_id, name, 1, 2)
    assert platform.claim(SLUG, run_id, name)["participantSlug"] == name


def test_plan_twice_is_ensure_a_different_count_conflicts(platform, spec_errors):
    """A-39 (A.3-7)."""
    platform.upsert_benchmark(SLUG, {"name": "H"})
    run_id = platform.create_run(SLUG, {"totalTasks": 4, "participants": ["e2b"]})["run"]["id"]
    first = platform.plan(SLUG, run_id, "e2b", 2, 2)
    assert [w["id"] for w in platform.plan(SLUG, run_id, "e2b", 2, 2)] == [w["id"] for w in first]
    refused(
        platform.call(
            "POST",
            f"/benchmarks/{SLUG}/runs/{run_id}/participants/e2b/workers",
            {"workerCount": 3, "targetConcurrency": 2},
            expect=None,
        ),
        409,
        "worker_count_mismatch",
        spec_errors,
        "planWorkers",
    )


def _worker_state(p: Platform, run_id: str, a: dict) -> tuple:
    worker = p.get(p.worker_path(SLUG, run_id, a["workerId"]))["worker"]
    imports = p.get(f"/benchmarks/{SLUG}/runs/{run_id}/results/imports")["items"]
    arts = p.get(f"/benchmarks/{SLUG}/runs/{run_id}/artifacts")["items"]
    return worker, len(imports), len(arts)


def test_lease_expiry_reclaim_and_the_stale_attempt_is_fenced_everywhere(platform, advance, spec_errors):
    """A-14, A-15, A-45: past the lease, a claim brings a new attemptId and attemptNumber + 1; every
    worker mutation carrying the old attemptId is refused with 409 and changes nothing."""
    run_id, old = claimed(platform)
    platform.heartbeat(SLUG, run_id, old, progressDone=1)
    advance(89)
    assert platform.claim(SLUG, run_id, "e2b") is None  # still leased
    advance(1)
    new = platform.claim(SLUG, run_id, "e2b")
    assert new["workerId"] == old["workerId"] and new["attemptId"] != old["attemptId"]
    assert new["attemptNumber"] == old["attemptNumber"] + 1 and new["taskRange"] == old["taskRange"]
    platform.heartbeat(SLUG, run_id, new, progressDone=2)
    before = _worker_state(platform, run_id, new)
    wp = platform.worker_path(SLUG, run_id, old["workerId"])
    attempts = [
        ("heartbeatWorker", "/heartbeat", {"progressDone": 3}),
        (
            "postWorkerEvents",
            "/events",
            {"type": "task_results", "sequenceNumber": 0, "records": [{"taskIndex": 0, "status": "success"}]},
        ),
        (
            "createWorkerArtifact",
            "/artifacts",
            {"kind": "coordinator.log", "contentType": "text/plain", "name": "worker.log"},
        ),
        ("completeWorker", "/complete", {}),
        ("failWorker", "/fail", {"errorCode": "X"}),
        ("releaseWorker", "/release", {}),
    ]
    for op_id, suffix, extra in attempts:
        response = platform.call("POST", wp + suffix, {"attemptId": old["attemptId"], **extra}, expect=None)
        err = refused(response, 409, "stale_attempt", spec_errors, op_id)
        assert err["reason"] == "superseded" and err["currentAttemptNumber"] == 2
    assert _worker_state(platform, run_id, new) == before


def test_a_lone_slow_worker_past_its_lease_reports_and_completes(platform, advance):
    """A-15: with nobody reclaiming it, a worker silent for longer than the lease is stale (claimable,
    counted stale) but its attempt is still current: its heartbeat, batch and complete are accepted."""
    run_id, a = claimed(platform)
    lease = platform.client.get("/__mock/openapi.json").json()["x-timing"]["leaseSeconds"]
    advance(lease + 10)
    wp = platform.worker_path(SLUG, run_id, a["workerId"])
    assert platform.get(wp)["worker"]["stale"] is True
    assert platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/progress")["participants"][0]["workers"]["stale"] == 1
    platform.heartbeat(SLUG, run_id, a, progressDone=3)
    assert platform.get(wp)["worker"]["stale"] is False  # the accepted heartbeat renewed the lease
    advance(lease + 10)
    records = [{"taskIndex": i, "status": "success"} for i in range(3)]
    answer = platform.events(SLUG, run_id, a, 0, records, final=True).json()
    assert (answer["accepted"], answer["duplicate"]) == (3, False)
    advance(lease + 10)
    closed = platform.close(SLUG, run_id, a, "complete").json()
    assert closed["attempt"]["status"] == "completed" and closed["worker"]["attemptNumber"] == 1


def test_claimed_ranges_stop_at_the_participant_extent(platform):
    """A-43, A-44: totalTasks 5, two workers of targetConcurrency 3 → [0,2] and [3,4]; the worker rows agree."""
    platform.upsert_benchmark(SLUG, {"name": "H"})
    run_id = platform.create_run(SLUG, {"totalTasks": 5, "participants": ["e2b"]})["run"]["id"]
    planned = platform.plan(SLUG, run_id, "e2b", 2, 3)
    assert [(w["taskIndexStart"], w["taskIndexEnd"], w["progressTotal"]) for w in planned] == [(0, 2, 3), (3, 4, 2)]
    ranges = [platform.claim(SLUG, run_id, "e2b")["taskRange"] for _ in range(2)]
    assert ranges == [{"start": 0, "end": 2, "count": 3}, {"start": 3, "end": 4, "count": 2}]


def test_the_client_optional_inputs_may_be_omitted(platform, client):
    """PlanWorkersInput and CreateWorkerArtifactInput mark these fields optional: `{}` plans the participant's
    extent on its declared workers; an artifact without contentType or name takes its upload's type."""
    platform.upsert_benchmark(SLUG, {"name": "H"})
    run_id = platform.create_run(SLUG, {"totalTasks": 4, "participants": ["e2b"]})["run"]["id"]
    path = f"/benchmarks/{SLUG}/runs/{run_id}/participants/e2b/workers"
    (worker,) = platform.call("POST", path, {}).json()["items"]
    assert (worker["workerCount"], worker["taskIndexStart"], worker["taskIndexEnd"]) == (1, 0, 3)
    a = platform.claim(SLUG, run_id, "e2b")
    wp = platform.worker_path(SLUG, run_id, a["workerId"])
    created = platform.call("POST", wp + "/artifacts", {"attemptId": a["attemptId"], "kind": "custom"}).json()
    assert (created["artifact"]["contentType"], created["artifact"]["name"]) == (None, None)
    put = client.put(created["uploadUrl"], content=b"{}", headers={"Content-Type": "application/json"})
    assert put.status_code == 200
    got = platform.get(wp + f"/artifacts/{created['artifactId']}")
    assert got["artifact"]["contentType"] == "application/json"
    body = client.get(got["downloadUrl"])
    assert body.content == b"{}" and body.headers["content-type"] == "application/json"


def test_foreign_attempt_is_refused(platform, spec_errors):
    """A-14: an attemptId that is not this worker's."""
    platform.upsert_benchmark(SLUG, {"name": "H"})
    run_id = platform.create_run(SLUG, {"totalTasks": 2, "participants": ["e2b"]})["run"]["id"]
    platform.plan(SLUG, run_id, "e2b", 2, 1)
    a1, a2 = platform.claim(SLUG, run_id, "e2b"), platform.claim(SLUG, run_id, "e2b")
    response = platform.heartbeat(SLUG, run_id, {**a1, "attemptId": a2["attemptId"]}, expect=409)
    refused(response, 409, "foreign_attempt", spec_errors, "heartbeatWorker")


def test_release_then_reclaim_and_close_is_final(platform, spec_errors):
    """A-69, A-71: release → claimable again; after complete, other closes are refused."""
    run_id, a1 = claimed(platform)
    platform.close(SLUG, run_id, a1, "release")
    a2 = platform.claim(SLUG, run_id, "e2b")
    assert a2["workerId"] == a1["workerId"] and a2["attemptNumber"] == 2
    assert platform.close(SLUG, run_id, a2, "complete").json()["worker"]["status"] == "completed"
    assert platform.close(SLUG, run_id, a2, "complete").json()["attempt"]["status"] == "completed"  # repeat
    refused(platform.close(SLUG, run_id, a2, "fail", expect=409), 409, "attempt_closed", spec_errors, "failWorker")
    refused(
        platform.events(SLUG, run_id, a2, 0, [{"taskIndex": 0, "status": "success"}], expect=409),
        409,
        "attempt_closed",
        spec_errors,
        "postWorkerEvents",
    )


def test_fail_records_error_code_and_message(platform):
    """A-69: errorCode/errorMessage on fail."""
    run_id, a = claimed(platform)
    worker = platform.close(SLUG, run_id, a, "fail", errorCode="STORAGE_ERROR", errorMessage="disk").json()["worker"]
    assert (worker["status"], worker["errorCode"], worker["errorMessage"]) == ("failed", "STORAGE_ERROR", "disk")


# ---- heartbeats and batches: limits and sequencing (A-08..A-10, A-16, A-51, A-52) -----------------


@pytest.mark.parametrize(
    ("count", "unique", "status", "code"),
    [
        (20, True, 200, None),
        (21, True, 400, "too_many_concurrency_samples"),
        (2, False, 400, "duplicate_concurrency_step"),
    ],
)
def test_heartbeat_limits(platform, spec_errors, count, unique, status, code):
    """A-10: ≤ 20 unique-step samples; the refusal names the limit."""
    run_id, a = claimed(platform)
    samples = [{"step": f"s{i}" if unique else "same", "active": 1, "target": 2} for i in range(count)]
    response = platform.heartbeat(SLUG, run_id, a, expect=status, concurrency=samples)
    if code:
        err = refused(response, 400, code, spec_errors, "heartbeatWorker")
        assert err["limit"] in ("maxConcurrencySamples", "uniqueConcurrencySteps")
    else:
        assert response.json()["worker"]["concurrency"] == samples


@pytest.mark.parametrize(
    ("records", "steps", "status", "code"),
    [
        (5000, 1, 200, None),
        (5001, 1, 400, "too_many_records"),
        (1, 100, 200, None),
        (1, 101, 400, "too_many_steps"),
        (0, 1, 400, "empty_batch"),
    ],
)
def test_batch_limits(platform, spec_errors, records, steps, status, code):
    """A-08, A-09, A-53: ≤ 5000 records, ≤ 100 steps per record; refusals name the limit and store nothing."""
    run_id, a = claimed(platform, tasks=5001)
    step_list = [{"name": f"s{i}", "status": "success"} for i in range(steps)]
    recs = [{"taskIndex": i, "status": "success", "steps": step_list} for i in range(records)]
    response = platform.events(SLUG, run_id, a, 0, recs, expect=status)
    imports = platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/results/imports")["items"]
    if code:
        err = refused(response, 400, code, spec_errors, "postWorkerEvents")
        assert err["limit"] in ("maxRecords", "maxStepsPerRecord", "minRecords")
        assert ("max" in err) or ("min" in err)
        assert imports == []
    else:
        assert [i["eventCount"] for i in imports] == [records]


def test_duplicate_regression_gap_and_final(platform, advance, spec_errors):
    """A-16, A-51, A-52 (A.3-13, A.3-14)."""
    run_id, a = claimed(platform)
    rec = [{"taskIndex": 0, "status": "success", "latencyMs": 5}]
    first = platform.events(SLUG, run_id, a, 0, rec).json()
    again = platform.events(SLUG, run_id, a, 0, rec).json()
    assert (first["duplicate"], again["duplicate"]) == (False, True)
    assert again["eventBatchId"] == first["eventBatchId"]
    platform.events(SLUG, run_id, a, 4, [{"taskIndex": 1, "status": "success"}])  # a gap: allowed
    err = refused(
        platform.events(SLUG, run_id, a, 2, rec, expect=409),
        409,
        "sequence_regression",
        spec_errors,
        "postWorkerEvents",
    )
    assert err["highestSequenceNumber"] == 4
    platform.events(SLUG, run_id, a, 5, [{"taskIndex": 2, "status": "error", "errorCode": "E"}], final=True)
    refused(
        platform.events(SLUG, run_id, a, 6, rec, expect=409), 409, "attempt_finalized", spec_errors, "postWorkerEvents"
    )
    advance(5)
    imports = platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/results/imports")
    assert [i["sequenceNumber"] for i in imports["items"]] == [0, 4, 5]
    assert imports["summary"]["imports"]["missing"] == 3  # 1, 2, 3 skipped
    assert platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/results")["overall"]["taskCount"] == 3  # counted once


def test_failed_import_shows_in_imports_and_not_in_results(platform, advance):
    """A-100: queued → failed, with the reason."""
    run_id, a = claimed(platform)
    platform.events(
        SLUG,
        run_id,
        a,
        0,
        [
            {
                "taskIndex": 0,
                "status": "success",
                "startedAt": "2026-04-23T14:00:02Z",
                "completedAt": "2026-04-23T14:00:01Z",
            }
        ],
    )
    advance(5)
    (item,) = platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/results/imports")["items"]
    assert (item["batchStatus"], item["importStatus"]) == ("failed", "failed")
    assert "completedAt precedes startedAt" in item["importErrorMessage"]
    assert platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/results")["overall"]["taskCount"] == 0


def test_iterations_type_is_strict(platform, spec_errors):
    """A-101 (A.3-22): type is tasks or steps."""
    (run,) = platform.get(f"/benchmarks/{SEED_BENCHMARK}/runs")["items"]
    response = platform.call(
        "GET",
        f"/benchmarks/{SEED_BENCHMARK}/runs/{run['id']}/iterations",
        params={"type": "tasks?participant=e2b"},
        expect=None,
    )
    refused(response, 400, "invalid_argument", spec_errors, "listRunIterations")


# ---- presigned uploads (A-61, A-64, A-90; A.3-23) --------------------------------------------------


def _announce(p: Platform, run_id: str, a: dict, content_type: str, **meta) -> dict:
    return p.call(
        "POST",
        p.worker_path(SLUG, run_id, a["workerId"]) + "/artifacts",
        {
            "attemptId": a["attemptId"],
            "kind": "coordinator.log",
            "contentType": content_type,
            "name": "worker.log",
            "metadata": meta,
        },
    ).json()


def test_two_step_upload_byte_for_byte_gzip_included(client, platform):
    """A-61, A-64, A-90: POST → absolute presigned uploadUrl; PUT without bearer; downloadUrl serves the bytes."""
    run_id, a = claimed(platform)
    payload = gzip.compress(b"".join(b"line %d\n" % i for i in range(500)), mtime=0)
    created = _announce(platform, run_id, a, "application/gzip")
    url = urlsplit(created["uploadUrl"])
    assert url.scheme == "http" and url.netloc == "testserver" and not url.path.startswith(BASE)
    assert {"exp", "sig"} <= set(parse_qs(url.query))
    put = client.put(created["uploadUrl"], content=payload, headers={"Content-Type": "application/gzip"})
    assert put.status_code == 200
    detail = platform.get(platform.worker_path(SLUG, run_id, a["workerId"]) + f"/artifacts/{created['artifactId']}")
    assert detail["artifact"]["metadata"]["sizeBytes"] == len(payload) and detail["artifact"]["status"] == "uploaded"
    got = client.get(detail["downloadUrl"])
    assert got.status_code == 200 and got.content == payload and "content-encoding" not in got.headers
    assert gzip.decompress(got.content).splitlines()[-1] == b"line 499"
    logs = platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/participants/e2b/logs", maxLines=3)
    assert [x["line"] for x in logs["items"]] == ["line 497", "line 498", "line 499"] and logs["totalLines"] == 500


def test_upload_refusals(client, platform, advance):
    """A.3-23: wrong Content-Type, altered signature or expired URL → 403; a download before upload → 404."""
    run_id, a = claimed(platform)
    created = _announce(platform, run_id, a, "text/plain")
    url = created["uploadUrl"]
    detail = platform.get(platform.worker_path(SLUG, run_id, a["workerId"]) + f"/artifacts/{created['artifactId']}")
    assert client.get(detail["downloadUrl"]).status_code == 404
    wrong = client.put(url, content=b"x", headers={"Content-Type": "application/json"})
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "content_type_mismatch"
    split = urlsplit(url)
    q = {k: v[0] for k, v in parse_qs(split.query).items()}
    tampered = f"{split.scheme}://{split.netloc}{split.path}?{urlencode({**q, 'exp': int(q['exp']) + 1})}"
    bad = client.put(tampered, content=b"x", headers={"Content-Type": "text/plain"})
    assert bad.status_code == 403 and bad.json()["error"]["code"] == "signature_mismatch"
    advance(901)
    late = client.put(url, content=b"x", headers={"Content-Type": "text/plain"})
    assert late.status_code == 403 and late.json()["error"]["code"] == "url_expired"
    again = platform.get(platform.worker_path(SLUG, run_id, a["workerId"]) + f"/artifacts/{created['artifactId']}")
    assert again["artifact"]["status"] == "pending_upload"


def test_declared_size_kept_and_listing_per_worker(client, platform):
    """A-64, A-65, A-89: several artifacts per attempt, listed per worker and per run."""
    run_id, a = claimed(platform)
    c1 = _announce(platform, run_id, a, "text/plain", sizeBytes=3)
    c2 = _announce(platform, run_id, a, "application/x-ndjson")
    client.put(c1["uploadUrl"], content=b"abc", headers={"Content-Type": "text/plain"})
    client.put(c2["uploadUrl"], content=b'{"a":1}\n', headers={"Content-Type": "application/x-ndjson"})
    items = platform.get(platform.worker_path(SLUG, run_id, a["workerId"]) + "/artifacts")["items"]
    assert [(i["id"], i["metadata"]["sizeBytes"]) for i in items] == [(c1["artifactId"], 3), (c2["artifactId"], 8)]
    assert (
        platform.get(f"/benchmarks/{SLUG}/runs/{enc(run_id)}/artifacts", limit=1)["items"][0]["id"] == c1["artifactId"]
    )


# ---- summary (A-73..A-77) ------------------------------------------------------------------------


def test_summary_is_stored_with_the_run_and_bounds_are_enforced(platform, spec_errors):
    """A-73, A-75: compositeScore in [0, 100], successRate in [0, 1]."""
    platform.upsert_benchmark(SLUG, {"name": "H"})
    run_id = platform.create_run(SLUG, {"totalTasks": 1, "participants": ["e2b"]})["run"]["id"]
    assert platform.get(f"/benchmarks/{SLUG}/runs/{run_id}")["run"]["summary"] is None
    row = {"provider": "e2b", "dimensions": {}, "metrics": [], "compositeScore": 100, "successRate": 1}
    platform.summary(SLUG, run_id, {"run": {"gitRef": "main"}, "results": [row], "scoring": {"m": 1}})
    stored = platform.get(f"/benchmarks/{SLUG}/runs/{run_id}")["run"]["summary"]
    assert stored["results"] == [row] and stored["scoring"] == {"m": 1} and stored["submittedAt"]
    too_high = platform.call(
        "POST",
        f"/benchmarks/{SLUG}/runs/{run_id}/summary",
        {"results": [{**row, "compositeScore": 100.5}]},
        expect=None,
    )
    refused(too_high, 400, "invalid_argument", spec_errors, "submitRunSummary")


def test_unseeded_mock_mints_for_the_first_org():
    """Control surface with fixtures off: the first organization created is the tokens' default."""
    from starlette.testclient import TestClient

    from .client import make_app

    c = TestClient(make_app(seed=False))
    assert c.post("/__mock/tokens", json={}).status_code == 404
    org = c.post("/__mock/orgs", json={"slug": "solo"}).json()
    token = c.post("/__mock/tokens", json={}).json()
    assert token["org_id"] == org["id"]
    assert Platform(c, token["token"]).get("/benchmarks") == {"items": []}


def test_subscribed_feed_runs_are_read_only(platform, spec_errors):
    """A-83 (A.3-18): a subscribed feed's run is visible; writing to it is 403 not_run_owner."""
    daily = [r for r in platform.get("/benchmarks/runs")["items"] if r["benchmarkSlug"] == "daily"]
    (run,) = daily
    assert platform.get(f"/benchmarks/daily/runs/{run['id']}/results")["overall"]["taskCount"] == 2
    response = platform.call("POST", f"/benchmarks/daily/runs/{run['id']}/summary", {"results": []}, expect=None)
    refused(response, 403, "not_run_owner", spec_errors, "submitRunSummary")
    response = platform.call("PATCH", f"/benchmarks/daily/runs/{run['id']}", {"status": "failed"}, expect=None)
    refused(response, 403, "not_run_owner", spec_errors, "updateRun")


def test_an_empty_participant_slug_is_refused(platform, spec_errors):
    """The participant filter is a comma-separated list of at least one slug, each at least one
    character (spec `participant`: `style: form, explode: false`, `minItems: 1`, items
    `minLength: 1`): `e2b,` and `,` carry an empty slug, and `participant=` is either no slugs
    or one empty slug (the same text serializes both), so all three are `400 invalid_argument`,
    not the unfiltered list; `e2b,modal` is two. The steps filter is read the same way."""
    for raw in ("e2b,", ",", ""):
        response = platform.call("GET", "/benchmarks/runs", params={"participant": raw}, expect=None)
        refused(response, 400, "invalid_argument", spec_errors, "listAllRuns")
        response = platform.call("GET", f"/benchmarks/{SLUG}/results", params={"steps": raw}, expect=None)
        refused(response, 400, "invalid_argument", spec_errors, "getBenchmarkResults")
    assert isinstance(platform.get("/benchmarks/runs", participant="e2b,modal")["items"], list)
