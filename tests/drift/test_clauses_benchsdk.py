"""benchsdk's drift catalogue clause by clause (contracts/benchsdk/clauses.py): for every clause the
suite asserts that no other drift of the catalogue breaks, a drift that breaks that clause alone,
injected around the unmodified mock, and caught by the one suite check that asserts it, under the
clause's id (a claim stated as one clause is its own id, `A-12`). The unmodified mock passes each of
those checks (`test_unmodified_mock_passes_the_benchsdk_clause_checks`).

A drift rewrites the answer (`json_answer`, `refuse`, `accept`), the query (`query_rewrite`), the
request body (`body_rewrite`) or the request (`request`), and serves the drifted app once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import orjson
import pytest

from contracts.benchsdk.suite import test_date_filters, test_lifecycle, test_read_path, test_scenarios
from contracts.benchsdk.suite._client import LIMITS, TIMING
from contracts.runner.claims import clause_claim
from mock_server.app import create_app
from mock_server.benchsdk.fixtures import SEED_API_KEY
from tests.benchwright.drift import drop_query_parameter
from tests.drift.harness import Rewrite, caught, served
from tests.drift.test_benchsdk import _oauth, request
from tests.drift.test_clauses import _benchsdk, _claimed_again, _since_day_shifted, json_answer, query_rewrite
from tests.drifting import Rewrite as SharedRewrite

TARGET = SimpleNamespace(embedded=True, control=True)  # the served mock: its clock and seeded feed

# -- the checks, each called directly against the drifted server --------------------------------------------


def _settle(http) -> Callable[[], None]:
    return lambda: http.post("/__mock/clock", json={"advance_seconds": TIMING["importDelaySeconds"]})


def _limits(which: str):
    return _benchsdk(lambda p, h: test_scenarios.test_limits_at_and_past_the_bound(p, which))


CHECKS: dict[str, Callable[[str], Any]] = {
    "no-token": _benchsdk(lambda p, h: test_scenarios.test_no_token_is_refused(p)),
    "siblings": _benchsdk(lambda p, h: test_scenarios.test_run_key_siblings_converge(p)),
    "claims": _benchsdk(lambda p, h: test_scenarios.test_claim_exhaustion_and_disjoint_ranges(p)),
    "sequencing": _benchsdk(lambda p, h: test_scenarios.test_sequencing_duplicates_regressions_gaps_final(p)),
    "records-limit": _limits("records"),
    "steps-limit": _limits("steps"),
    "samples-limit": _limits("samples"),
    "repeated-step": _limits("repeated-step"),
    "fencing": _benchsdk(lambda p, h: test_scenarios.test_lease_expiry_reclaim_and_fencing(p, TARGET)),
    "upload": _benchsdk(lambda p, h: test_scenarios.test_two_step_upload_round_trips_gzip(p)),
    "all-runs": _benchsdk(lambda p, h: test_scenarios.check_cross_benchmark_run_list(p, feed=True)),
    "run-list-bounds": _benchsdk(lambda p, h: test_scenarios.test_unfiltered_lists_unbounded_filtered_default_100(p)),
    "tree": _benchsdk(lambda p, h: test_read_path.check_tree(p)),
    "shapes": _benchsdk(lambda p, h: test_read_path.check_run_shapes(p)),
    "records": _benchsdk(lambda p, h: test_read_path.check_records_read_back(p, _settle(h))),
    "artifacts": _benchsdk(lambda p, h: test_read_path.check_artifacts_and_closing(p)),
    "oauth": _benchsdk(_oauth),
    "dates": _benchsdk(
        lambda p, h: test_date_filters.test_since_and_until_read_dates_in_the_time_zone_and_timestamps_literally(p)
    ),
    "upsert": _benchsdk(lambda p, h: test_lifecycle.check_benchmark_upsert_and_listing(p)),
    "run": _benchsdk(lambda p, h: test_lifecycle.check_run_and_workers(p)),
    "foreign": _benchsdk(lambda p, h: test_lifecycle.check_foreign_benchmark_takes_runs(p)),
    "run-key-org": _benchsdk(lambda p, h: test_lifecycle.check_run_key_per_org(p, test_lifecycle.other_org(p))),
    "heartbeat": _benchsdk(lambda p, h: test_lifecycle.check_heartbeat_reads(p)),
    "timeline": _benchsdk(lambda p, h: test_lifecycle.check_records_timeline_and_iterations(p, _settle(h))),
    "logs": _benchsdk(lambda p, h: test_lifecycle.check_participant_logs(p)),
    "closing": _benchsdk(lambda p, h: test_lifecycle.check_closing(p)),
    "summary": _benchsdk(lambda p, h: test_lifecycle.check_summary_stored(p)),
}

# -- drift helpers --------------------------------------------------------------------------------------------


def _error(status: int, code: str) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    raw = orjson.dumps({"error": {"code": code, "message": f"drift: {code}"}})
    return status, [(b"content-type", b"application/json")], raw


def _json(raw: bytes) -> Any:
    try:
        return orjson.loads(raw) if raw else None
    except orjson.JSONDecodeError:
        return None


def refuse(pattern: str, when: Callable[[Any], bool], status: int, code: str, method: str = "POST"):
    """A `method` request to a path matching `pattern` whose JSON body satisfies `when`, and that the mock
    answered 2xx, is refused with `status` and the error `code` instead."""
    rx = re.compile(pattern)

    def answer(scope, body, got, headers, raw):
        if scope["method"] == method and rx.search(scope["path"]) and got // 100 == 2 and when(_json(body)):
            return _error(status, code)
        return None

    return lambda app: SharedRewrite(app, answer)


def accept(pattern: str, code: str, body: Any, method: str = "POST"):
    """A refusal with error `code` of a request to a path matching `pattern` is answered 200 with `body`."""
    rx = re.compile(pattern)

    def answer(scope, _body, got, headers, raw):
        found = _json(raw)
        refused = isinstance(found, dict) and (found.get("error") or {}).get("code") == code
        if scope["method"] == method and rx.search(scope["path"]) and got >= 400 and refused:
            return 200, [(b"content-type", b"application/json")], orjson.dumps(body)
        return None

    return lambda app: SharedRewrite(app, answer)


class _BodyRewrite:
    """An ASGI wrapper that edits the JSON body of matching requests before the mock reads it."""

    def __init__(self, app: Any, rx: re.Pattern[str], method: str, fn: Callable[[dict[str, Any]], None]) -> None:
        self.app, self.state, self.rx, self.method, self.fn = app, app.state, rx, method, fn

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != self.method or not self.rx.search(scope["path"]):
            await self.app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        raw = b"".join(chunks)
        body = _json(raw)
        if isinstance(body, dict):
            self.fn(body)
            raw = orjson.dumps(body)
        headers = [(k, str(len(raw)).encode() if k == b"content-length" else v) for k, v in scope["headers"]]
        sent = False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}

        await self.app({**scope, "headers": headers}, replay, send)


def body_rewrite(pattern: str, fn: Callable[[dict[str, Any]], None], method: str = "POST"):
    return lambda app: _BodyRewrite(app, re.compile(pattern), method, fn)


def _query_has(name: str) -> Callable[[dict[str, Any]], bool]:
    return lambda scope: name.encode() + b"=" in scope.get("query_string", b"")


def _rows(key: str, pred: Callable[[dict], bool], change: Callable[[dict], Any]):
    def fn(scope, body):
        for row in body.get(key) or []:
            if pred(row):
                change(row)

    return fn


def _set(key: str, value: Any) -> Callable[[dict], None]:
    return lambda row: row.__setitem__(key, value)


def _drop(key: str) -> Callable[[dict], None]:
    return lambda row: row.pop(key, None)


def _e2b(fn: Callable[[dict], Any]):
    return _rows("participants", lambda r: r.get("slug") == "e2b", fn)


EVENTS = r"/workers/[^/]+/events$"
HEARTBEAT = r"/workers/[^/]+/heartbeat$"
WORKER = r"/workers/[^/]+$"
RUNS = r"^/api/v1/benchmarks/[^/]+/runs$"
RUN = r"^/api/v1/benchmarks/[^/]+/runs/[^/]+$"
PROGRESS = r"/progress$"
BENCHMARK = r"^/api/v1/benchmarks/[^/]+$"
ALL_RUNS = r"^/api/v1/benchmarks/runs$"
WORKER_ROW = {"worker": {}, "attempt": {}}
BATCH_ANSWER = {"duplicate": False, "accepted": 1}

# -- stateful drifts ------------------------------------------------------------------------------------------


def _run_key_global(app):
    """A runKey finds the run it last answered, under whichever benchmark (not scoped per benchmark)."""
    last: dict[str, bytes] = {}

    def answer(scope, body, status, headers, raw):
        sent = _json(body)
        if scope["method"] != "POST" or not re.search(RUNS, scope["path"]) or not isinstance(sent, dict):
            return None
        key = sent.get("runKey")
        if key is None or status not in (200, 201):
            return None
        if status == 200 and key in last:
            return 200, headers, last[key]
        last[key] = raw
        return None

    return SharedRewrite(app, answer)


def _run_key_shared_across_benchmarks(app):
    """The same runKey under another benchmark answers the first benchmark's run."""
    first: dict[str, bytes] = {}

    def answer(scope, body, status, headers, raw):
        sent = _json(body)
        if scope["method"] != "POST" or not re.search(RUNS, scope["path"]) or not isinstance(sent, dict):
            return None
        key = sent.get("runKey")
        if key is None or status not in (200, 201):
            return None
        if key not in first:
            first[key] = raw
            return None
        return status, headers, first[key]

    return SharedRewrite(app, answer)


def _reclaim_keeps_attempt_id(app):
    first: dict[str, str] = {}

    def answer(scope, body, status, headers, raw):
        if scope["method"] != "POST" or not scope["path"].endswith("/workers/claim") or status != 200:
            return None
        got = (_json(raw) or {}).get("assignment")
        if not got:
            return None
        got["attemptId"] = first.setdefault(got["workerId"], got["attemptId"])
        return status, headers, orjson.dumps({"assignment": got})

    return SharedRewrite(app, answer)


def _stale_mutation_leaks(app):
    """A refused heartbeat of a superseded attempt still moves the worker's progress."""
    leaked: set[str] = set()

    def answer(scope, body, status, headers, raw):
        path = scope["path"]
        if scope["method"] == "POST" and path.endswith("/heartbeat") and status == 409:
            leaked.add(path.removesuffix("/heartbeat"))
        if scope["method"] == "GET" and path in leaked and status == 200:
            found = _json(raw)
            found["worker"]["progressDone"] = 9
            return status, headers, orjson.dumps(found)
        return None

    return SharedRewrite(app, answer)


def _released_not_claimable(app):
    """After a release, a claim under the participant answers null."""
    released: set[str] = set()

    def answer(scope, body, status, headers, raw):
        path = scope["path"]
        if scope["method"] == "POST" and path.endswith("/release") and status == 200:
            released.add(path.split("/workers/")[0])
        if (
            scope["method"] == "POST"
            and path.endswith("/workers/claim")
            and path.split("/participants/")[0] in released
        ):
            return 200, headers, orjson.dumps({"assignment": None})
        return None

    return SharedRewrite(app, answer)


def _heartbeats_throttled(app):
    """Past the fifth heartbeat of a worker, heartbeats are refused as too frequent."""
    seen: dict[str, int] = {}

    def answer(scope, body, status, headers, raw):
        if scope["method"] == "POST" and scope["path"].endswith("/heartbeat") and status == 200:
            seen[scope["path"]] = seen.get(scope["path"], 0) + 1
            if seen[scope["path"]] > 5:
                return _error(400, "invalid_argument")
        return None

    return SharedRewrite(app, answer)


def _first_put_refused(app):
    """The first PUT of a benchmark slug (a create) is refused: PUT only updates."""
    known: set[str] = set()

    def answer(scope, body, status, headers, raw):
        first = scope["path"] not in known
        if scope["method"] == "PUT" and re.search(BENCHMARK, scope["path"]) and status == 200 and first:
            known.add(scope["path"])
            return _error(400, "invalid_argument")
        return None

    return SharedRewrite(app, answer)


def _download_altered(app):
    def hook(scope, status, headers, raw):
        if scope["method"] == "GET" and scope["path"].startswith("/__downloads/") and status == 200:
            return status, headers, raw + b"\n"
        return status, headers, raw

    return Rewrite(app, hook)


def _plain_upload_refused(app):
    def hook(scope, status, headers, raw):
        media = dict(scope["headers"]).get(b"content-type", b"")
        if scope["method"] == "PUT" and scope["path"].startswith("/__uploads/") and media.startswith(b"text/plain"):
            return 403, [(b"content-type", b"text/plain")], b"drift: content type refused"
        return status, headers, raw

    return Rewrite(app, hook)


def _add_key(scope):
    if not any(k == b"authorization" for k, _ in scope["headers"]):
        scope["headers"] = [*scope["headers"], (b"authorization", f"Bearer {SEED_API_KEY}".encode())]


def _key_refused_on_listing(scope):
    headers = dict(scope["headers"])
    if scope["path"] == "/api/v1/benchmarks" and headers.get(b"authorization", b"").startswith(b"Bearer bp_"):
        scope["headers"] = [(k, v) for k, v in scope["headers"] if k != b"authorization"]


def _oauth_slug_refused(scope):
    headers = dict(scope["headers"])
    if headers.get(b"authorization", b"").startswith(b"Bearer bpo_") and b"x-org-slug" in headers:
        scope["headers"] = [(k, v) for k, v in scope["headers"] if k != b"authorization"]


def _upper_lowered(scope):
    if scope["method"] == "PUT" and re.search(BENCHMARK, scope["path"]):
        scope["path"] = scope["path"].lower()
        scope["raw_path"] = scope["path"].encode()


def _form_accepted(app):
    def answer(scope, body, status, headers, raw):
        media = dict(scope["headers"]).get(b"content-type", b"")
        if scope["method"] == "PUT" and media.startswith(b"application/x-www-form-urlencoded") and status == 400:
            return 200, [(b"content-type", b"application/json")], orjson.dumps({"benchmark": {}})
        return None

    return SharedRewrite(app, answer)


def _invalid_create_accepted(app):
    def hook(scope, status, headers, raw):
        if scope["method"] == "POST" and re.search(RUNS, scope["path"]) and status == 400:
            return 201, headers, raw
        return status, headers, raw

    return Rewrite(app, hook)


def _unfiltered_cap(scope, body):
    if not scope.get("query_string") and len(body.get("items") or []) > 100:
        body["items"] = body["items"][:100]


def _filtered_unbounded(query):
    if "participant" in query and "limit" not in query:
        query["limit"] = "1000"
    return query


def _other_contract_runs_dropped(scope, body):
    if not scope.get("query_string"):
        mine = [r for r in body["items"] if r["benchmarkSlug"].startswith("contract-")]
        keep = {mine[0]["benchmarkSlug"]} if mine else set()
        body["items"] = [r for r in body["items"] if not r["benchmarkSlug"].startswith("contract-")
                         or r["benchmarkSlug"] in keep]  # fmt: skip


def _timestamp_as_date(query):
    for key in ("since", "until"):
        if "T" in query.get(key, ""):
            query[key] = query[key][:10]
    return query


def _steps_as_participant(query):
    if "steps" in query:
        query["participant"] = query.pop("steps")
    return query


def _listed_twice(scope, body):
    mine = [r for r in body.get("items") or [] if r.get("slug", "").startswith("contract-")]
    if mine:
        body["items"].append(dict(mine[-1]))


def _bucket_p95_low(scope, body):
    for row in body.get("buckets") or []:
        row["latencyMs"]["p95"] = row["latencyMs"]["p50"]


def _groupby_round_refused(body):
    return isinstance(body, dict) and (body.get("config") or {}).get("groupBy") == "round"


def _groupby_made_valid(body):
    if (body.get("config") or {}).get("groupBy") not in (None, "participant", "round"):
        body["config"]["groupBy"] = "participant"


def _dedupe_samples(body):
    steps: dict[str, dict] = {}
    for sample in body.get("concurrency") or []:
        steps.setdefault(sample["step"], sample)
    if "concurrency" in body:
        body["concurrency"] = list(steps.values())


def _one_less_worker(body):
    if body.get("workerCount", 0) > 1:
        body["workerCount"] -= 1


def _range_shifted(scope, body):
    found = body.get("assignment")
    if found and found["taskRange"]["start"] > 0:
        found["taskRange"] = {k: v + (1 if k != "count" else 0) for k, v in found["taskRange"].items()}


def _participant_sum_off(scope, body):
    if body["run"].get("participantSized") and body["run"]["totalTasks"]:
        body["run"]["totalTasks"] += 1


def _completed_with_error(scope, body):
    if body.get("worker", {}).get("status") == "completed":
        body["worker"]["errorCode"] = "CONTRACT_LEAK"


def _run_status_dropped(scope, body):
    body["run"].pop("status", None)


def _sample_target_lost(scope, body):
    for sample in body.get("worker", {}).get("concurrency") or []:
        sample["target"] = 1


def _complete_reads_failed(scope, body):
    if "worker" in body:
        body["worker"]["status"] = "failed"


def _released_reads_running(scope, body):
    if body.get("worker", {}).get("status") == "pending":
        body["worker"]["status"] = "running"


def _summary_without(part: str):
    def fn(scope, body):
        summary = body["run"].get("summary")
        if summary:
            summary.pop(part, None)

    return fn


def _timeline_point_dropped(scope, body):
    body["concurrency"]["points"] = body["concurrency"]["points"][:-1]


def _ready_always_false(row):
    for step in row.get("concurrency") or []:
        step["ready"] = False


def _ready_dropped(row):
    for step in row.get("concurrency") or []:
        step.pop("ready", None)


def _create_sample_dropped(row):
    row["concurrency"] = [s for s in row.get("concurrency") or [] if s["step"] != "create"]


def _failed_uncounted(scope, body):
    for row in body["eventRate"]["buckets"]:
        row["failed"] = 0


def _records(n: int) -> Callable[[Any], bool]:
    return lambda body: isinstance(body, dict) and len(body.get("records") or []) == n


def _steps(n: int) -> Callable[[Any], bool]:
    return lambda body: (
        isinstance(body, dict) and any(len(r.get("steps") or []) == n for r in body.get("records") or [])
    )


def _samples(n: int) -> Callable[[Any], bool]:
    return lambda body: isinstance(body, dict) and len(body.get("concurrency") or []) == n


EV, HB = LIMITS["events"], LIMITS["heartbeat"]

# (name, clause, wrap, check)
DRIFTS = [
    # transport, credentials, the resource tree
    ("unauthenticated-call-answered", "A-02", request(_add_key), "no-token"),
    ("api-key-refused", "A-03.1", request(_key_refused_on_listing), "oauth"),
    ("oauth-org-slug-refused", "A-03.2", request(_oauth_slug_refused), "oauth"),
    ("rejection-answered-201", "A-07.1", _invalid_create_accepted, "tree"),
    # limits
    ("records-refused-at-the-bound", "A-08",
     refuse(EVENTS, _records(EV["maxRecords"]), 400, "too_many_records"), "records-limit"),
    ("steps-refused-at-the-bound", "A-09",
     refuse(EVENTS, _steps(EV["maxStepsPerRecord"]), 400, "too_many_steps"), "steps-limit"),
    ("samples-refused-at-the-bound", "A-10.1",
     refuse(HEARTBEAT, _samples(HB["maxConcurrencySamples"]), 400, "too_many_concurrency_samples"), "samples-limit"),
    ("repeated-step-accepted", "A-10.2", body_rewrite(HEARTBEAT, _dedupe_samples), "repeated-step"),
    # run keys
    ("run-key-global", "A-11", _run_key_global, "siblings"),
    ("run-key-ignored", "A-12", body_rewrite(RUNS, lambda b: b.pop("runKey", None)), "siblings"),
    ("run-key-across-benchmarks", "A-13.1", _run_key_shared_across_benchmarks, "siblings"),
    ("run-key-across-orgs", "A-13.2", _run_key_shared_across_benchmarks, "run-key-org"),
    ("participant-sum-off", "A-30", json_answer(RUN, _participant_sum_off), "siblings"),
    ("shared-participant-refused", "A-37",
     refuse(r"/participants/[^/]+$", lambda b: True, 400, "invalid_argument", "PUT"), "siblings"),
    # attempts and fencing
    ("attempt-id-not-required", "A-14", accept(HEARTBEAT, "invalid_argument", WORKER_ROW), "closing"),
    ("stale-heartbeat-accepted", "A-15.1", accept(HEARTBEAT, "stale_attempt", WORKER_ROW), "fencing"),
    ("stale-heartbeat-leaks", "A-15.2", _stale_mutation_leaks, "fencing"),
    ("reclaim-keeps-attempt-id", "A-45.1", _reclaim_keeps_attempt_id, "fencing"),
    ("reclaim-attempt-number-1", "A-45.2",
     json_answer(r"/workers/claim$", lambda s, b: b["assignment"] and b["assignment"].__setitem__("attemptNumber", 1),
                 "POST"), "fencing"),
    # event batches
    ("resend-not-duplicate", "A-16.1",
     json_answer(EVENTS, lambda s, b: b.__setitem__("duplicate", False), "POST"), "sequencing"),
    ("resend-counted-twice", "A-16.2",
     json_answer(r"/results/imports$", lambda s, b: b["items"].append(dict(b["items"][0])) if b["items"] else None),
     "sequencing"),
    ("batch-shape-refused", "A-50",
     refuse(EVENTS, lambda b: b.get("isFinal") is False, 400, "invalid_argument"), "sequencing"),
    ("sequence-regression-accepted", "A-51", accept(EVENTS, "sequence_regression", BATCH_ANSWER), "sequencing"),
    ("batch-after-final-accepted", "A-52", accept(EVENTS, "attempt_finalized", BATCH_ANSWER), "sequencing"),
    ("empty-batch-accepted", "A-53", accept(EVENTS, "empty_batch", {"duplicate": False, "accepted": 0}), "records"),
    # benchmarks
    ("create-by-put-refused", "A-24", _first_put_refused, "upsert"),
    ("put-listed-twice", "A-25.1", json_answer(r"^/api/v1/benchmarks$", _listed_twice), "upsert"),
    ("repeated-put-ignored", "A-25.2",
     json_answer(BENCHMARK, lambda s, b: b["benchmark"].__setitem__("name", "Contract (draft)")), "upsert"),
    ("offset-ignored", "A-81", request(drop_query_parameter("offset", "/benchmarks")), "upsert"),
    ("form-body-accepted", "A-05", _form_accepted, "upsert"),
    ("uppercase-slug-accepted", "A-17", request(_upper_lowered), "upsert"),
    ("benchmark-name-patch-ignored", "A-82.1", json_answer(BENCHMARK, lambda s, b: b["benchmark"].__setitem__(
        "name", "Contract shapes")), "shapes"),
    ("benchmark-config-patch-ignored", "A-82.3", json_answer(BENCHMARK, lambda s, b: b["benchmark"].__setitem__(
        "config", {})), "shapes"),
    # runs
    ("run-status-missing", "A-20", json_answer(RUN, _run_status_dropped), "run"),
    ("foreign-benchmark-refused", "A-26",
     refuse(r"^/api/v1/benchmarks/daily/runs$", lambda b: True, 403, "org_forbidden"), "foreign"),
    ("self-contained-refused", "A-28.1",
     refuse(RUNS, lambda b: "participants" in (b or {}), 400, "invalid_argument"), "shapes"),
    ("shared-shape-refused", "A-28.2",
     refuse(RUNS, lambda b: "runKey" in (b or {}) and "totalTasks" not in b, 400, "invalid_argument"), "shapes"),
    ("group-by-round-refused", "A-33.1", refuse(RUNS, _groupby_round_refused, 400, "invalid_argument"), "shapes"),
    ("group-by-any-accepted", "A-33.2", body_rewrite(RUNS, _groupby_made_valid), "shapes"),
    ("create-org-slug-other", "A-34",
     json_answer(RUNS, lambda s, b: b.__setitem__("organizationSlug", "someone-else"), "POST"), "run"),
    ("created-participants-trimmed", "A-36",
     json_answer(RUNS, lambda s, b: b.__setitem__("participants", b["participants"][:1]), "POST"), "run"),
    ("participant-put-adds-a-row", "A-38",
     json_answer(PROGRESS, lambda s, b: b["participants"].append(dict(b["participants"][0]))), "run"),
    ("run-config-patch-ignored", "A-84.2", json_answer(RUN, lambda s, b: b["run"]["config"].__setitem__(
        "iterations", 3) if b["run"]["status"] == "completed" else None), "shapes"),
    ("all-runs-one-benchmark", "A-83.1", json_answer(ALL_RUNS, _other_contract_runs_dropped), "all-runs"),
    ("all-runs-without-feeds", "A-83.2", json_answer(ALL_RUNS, lambda s, b: b.__setitem__(
        "items", [r for r in b["items"] if r["benchmarkSlug"] != test_scenarios.FEED])), "all-runs"),
    ("all-runs-slug-ignored", "A-83.3", request(drop_query_parameter("benchmarkSlug", "/benchmarks/runs")),
     "all-runs"),
    ("unfiltered-capped-100", "A-95.1", json_answer(RUNS, _unfiltered_cap), "run-list-bounds"),
    ("filtered-unbounded", "A-95.2", query_rewrite(RUNS, _filtered_unbounded), "run-list-bounds"),
    ("date-read-a-day-late", "A-93.1", query_rewrite(RUNS, _since_day_shifted), "dates"),
    ("time-zone-ignored", "A-93.2", request(drop_query_parameter("timeZone", "/runs")), "dates"),
    ("timestamp-read-as-date", "A-93.3", query_rewrite(RUNS, _timestamp_as_date), "dates"),
    ("run-list-participant-ignored", "A-94.1", request(drop_query_parameter("participant", "/runs")), "dates"),
    ("run-list-narrowed-by-steps", "A-94.2", query_rewrite(RUNS, _steps_as_participant), "dates"),
    # workers and claims
    ("one-worker-short", "A-39", body_rewrite(r"/participants/[^/]+/workers$", _one_less_worker), "claims"),
    ("tasks-per-worker-ignored", "A-40",
     body_rewrite(r"/participants/[^/]+/workers$", lambda b: b.__setitem__("targetConcurrency", 1)), "run"),
    ("pending-worker-withheld", "A-41.2", json_answer(r"/workers/claim$", lambda s, b: b.__setitem__(
        "assignment", None) if b["assignment"] and b["assignment"]["workerIndex"] == 1 else None, "POST"), "claims"),
    ("claimed-again-when-none-pending", "A-42.1", _claimed_again, "claims"),
    ("ranges-overlap", "A-43", json_answer(r"/workers/claim$", _range_shifted, "POST"), "claims"),
    ("worker-concurrency-off", "A-23",
     json_answer(WORKER, lambda s, b: b["worker"].__setitem__("targetConcurrency", 3)), "run"),
    # heartbeats
    ("in-flight-dropped", "A-47.1", body_rewrite(HEARTBEAT, lambda b: b.pop("progressInFlight", None)), "heartbeat"),
    ("current-step-dropped", "A-47.2", body_rewrite(HEARTBEAT, lambda b: b.pop("currentStep", None)), "heartbeat"),
    ("sample-target-lost", "A-47.3", json_answer(WORKER, _sample_target_lost), "heartbeat"),
    ("high-rate-heartbeats-refused", "A-48.1", _heartbeats_throttled, "artifacts"),
    ("progress-in-flight-zero", "A-49.1",
     json_answer(PROGRESS, _e2b(lambda r: r["tasks"].__setitem__("inFlight", 0))), "heartbeat"),
    ("progress-sample-dropped", "A-49.2", json_answer(PROGRESS, _e2b(_create_sample_dropped)), "heartbeat"),
    ("progress-reads-stale", "A-85.2", json_answer(PROGRESS, _e2b(lambda r: r["workers"].update(
        {"running": 0, "stale": 1}))), "heartbeat"),
    ("ready-flag-dropped", "A-85.3", json_answer(PROGRESS, _e2b(_ready_dropped)), "heartbeat"),
    ("ready-never-set", "A-86", json_answer(PROGRESS, _e2b(_ready_always_false)), "heartbeat"),
    ("worker-list-without-samples", "A-88", json_answer(r"/participants/[^/]+/workers$", _rows(
        "items", lambda r: True, _set("concurrency", []))), "heartbeat"),
    ("timeline-point-dropped", "A-99.3", json_answer(r"/results/timeline$", _timeline_point_dropped), "heartbeat"),
    # records and their reads
    ("error-read-as-success", "A-54.1", json_answer(r"/iterations$", _rows(
        "tasks", lambda r: r["status"] == "error", _set("status", "success"))), "records"),
    ("error-steps-dropped", "A-55.2", json_answer(r"/iterations$", _rows(
        "tasks", lambda r: r["status"] == "error", _set("steps", []))), "records"),
    ("bucket-p95-is-p50", "A-98.2", json_answer(r"/results/tasks$", _bucket_p95_low), "records"),
    ("failures-undercounted", "A-98.3",
     json_answer(r"/results/tasks$", lambda s, b: b.__setitem__("failureCount", 1)), "records"),
    ("failure-limit-ignored", "A-98.4", request(drop_query_parameter("failureLimit", "/results/tasks")), "records"),
    ("bucket-ms-ignored", "A-99.1", request(drop_query_parameter("bucketMs", "/results/timeline")), "timeline"),
    ("failures-not-bucketed", "A-99.2", json_answer(r"/results/timeline$", _failed_uncounted), "timeline"),
    ("iteration-type-ignored", "A-101.1", request(drop_query_parameter("type", "/iterations")), "timeline"),
    ("iteration-participant-ignored", "A-101.2", request(drop_query_parameter("participant", "/iterations")),
     "timeline"),
    ("iteration-steps-ignored", "A-101.3", request(drop_query_parameter("steps", "/iterations")), "timeline"),
    ("max-lines-ignored", "A-87", request(drop_query_parameter("maxLines", "/logs")), "logs"),
    # artifacts
    ("upload-url-relative", "A-61", json_answer(r"/artifacts$", lambda s, b: b.__setitem__(
        "uploadUrl", "/api/v1/uploads/x"), "POST"), "upload"),
    ("plain-text-upload-refused", "A-63", _plain_upload_refused, "artifacts"),
    ("size-bytes-off", "A-64", json_answer(r"/artifacts/[^/]+$", lambda s, b: b["artifact"]["metadata"].__setitem__(
        "sizeBytes", b["artifact"]["metadata"].get("sizeBytes", 0) + 1)), "upload"),
    ("download-altered", "A-90.2", _download_altered, "upload"),
    # closing and the summary
    ("close-without-attempt-accepted", "A-69.1", accept(r"/complete$", "invalid_argument", WORKER_ROW), "closing"),
    ("completed-with-error", "A-69.2", json_answer(WORKER, _completed_with_error), "closing"),
    ("complete-reads-failed", "A-70", json_answer(r"/complete$", _complete_reads_failed, "POST"), "closing"),
    ("released-reads-running", "A-71.1", json_answer(WORKER, _released_reads_running), "closing"),
    ("released-not-claimable", "A-71.2", _released_not_claimable, "closing"),
    ("summary-metadata-dropped", "A-73.1", json_answer(RUN, _summary_without("run")), "summary"),
    ("summary-rows-dropped", "A-73.2", json_answer(RUN, _summary_without("results")), "summary"),
    ("summary-scoring-dropped", "A-73.3", json_answer(RUN, _summary_without("scoring")), "summary"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "clause", "wrap", "check"), DRIFTS, ids=[f"{d[3]}:{d[1]}:{d[0]}" for d in DRIFTS])
def test_benchsdk_clause_drift_is_caught(name, clause, wrap, check):
    with served(wrap(create_app(api="benchsdk"))) as url:
        found = caught(lambda: CHECKS[check](url))
    assert clause in found, f"{name}: expected a drift naming {clause}; {check} named {sorted(found) or 'nothing'}"
    assert (clause_claim(clause) or clause) in found, f"{name}: {clause} is not filed under its claim"


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_unmodified_mock_passes_the_benchsdk_clause_checks(check):
    with served(create_app(api="benchsdk")) as url:
        found = caught(lambda: CHECKS[check](url))
    assert not found, f"{check}: drift reported on the unmodified mock: {sorted(found)}"


def test_every_check_has_a_drift():
    assert {d[3] for d in DRIFTS} == set(CHECKS)
