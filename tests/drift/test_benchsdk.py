"""benchsdk's drift catalogue: each drift, injected around the unmodified mock, must be caught by the crawl
of the platform's existing data (spec validation, the conventions check, derived fields), or by one of the
suite's semantic checks called directly (`SUITE_CHECKS`: records and every figure read back from them, the
resource tree, run shapes, artifacts and closing, path encoding, OAuth organisations), naming the claim it
broke (A-nn, or the mock's proposal P-… where the reference is silent). Test ids carry class and claim. The
unmodified mock passes the same checks (`test_unmodified_mock_passes*`); the ten-seed loop of the whole
suite is `tests/drift/test_seeds.py` (marked slow)."""

from __future__ import annotations

import math
import re
from urllib.parse import parse_qsl, urlencode

import httpx
import orjson
import pytest

from contracts.benchsdk.suite import test_read_path
from contracts.benchsdk.suite._client import TIMING, Platform
from contracts.runner.claims import clause_claim
from mock_server.app import create_app
from mock_server.benchsdk.fixtures import SEED_API_KEY
from mock_server.benchsdk.model import results as results_model
from tests.benchwright.drift import drop_query_parameter
from tests.drift.harness import Rewrite, caught, crawl_drifts, on_headers, on_json, served, set_status
from tests.drifting import Rewrite as SharedRewrite

ENV = {"BENCHMARKS_PLATFORM_API_KEY": SEED_API_KEY}


def _crawl(url: str):
    return crawl_drifts("benchsdk", url, ENV)


def each(fn):
    def walk(node):
        if isinstance(node, dict):
            fn(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    return lambda app: Rewrite(app, on_json(lambda scope, status, body: walk(body)))


def when(key, fn):
    return each(lambda node: fn(node) if key in node else None)


def _unwrap_run(scope, status, body):
    if isinstance(body, dict) and set(body) == {"run"} and "/runs/" in scope["path"]:
        return body["run"]
    return None


def _echo_key(scope, status, body):
    if isinstance(body, dict):
        body["requestedBy"] = dict(scope["headers"]).get(b"authorization", b"").decode().removeprefix("Bearer ")


def _range_off(node):
    if isinstance(node.get("taskIndexEnd"), int):
        node["taskIndexEnd"] = node["taskIndexEnd"] + 3


def _more_participants(node):
    node["participants"]["total"] = node["participants"]["total"] + 1


def _bucket_off(node):
    node["successCount"] = node["successCount"] + 1


def _imports_off(node):
    node["persisted"] = node["persisted"] + 2


def ignores(name: str, suffix: str):
    """The server drops a query parameter of requests to paths ending in `suffix`."""
    return lambda app: Rewrite(app, request=drop_query_parameter(name, suffix))


def _run_artifacts_short(scope, status, body):
    if scope["path"].endswith("/artifacts") and "/workers/" not in scope["path"] and isinstance(body, dict):
        body["items"] = (body.get("items") or [])[:-1]


DRIFTS = [
    ("offset-ignored", "cursors", "A-81", ignores("offset", "/benchmarks")),
    ("max-lines-ignored", "cursors", "A-87", ignores("maxLines", "/logs")),
    ("run-artifact-list-short", "derived", "A-89", lambda app: Rewrite(app, on_json(_run_artifacts_short))),
    ("timestamp-without-ms", "units", "P-timestamps",
     when("createdAt", lambda n: n.__setitem__("createdAt", "2026-04-19T10:00:00Z"))),
    ("timestamp-with-offset", "units", "P-timestamps",
     when("updatedAt", lambda n: n.__setitem__("updatedAt", "2026-04-19T12:00:00.000+02:00"))),
    ("worker-range-disagrees", "attempt fencing", "A-23", when("taskIndexEnd", _range_off)),
    ("composite-score-out-of-range", "units", "A-75",
     when("compositeScore", lambda n: n.__setitem__("compositeScore", 150))),
    ("success-rate-percent", "units", "A-96.4", when("successRate", lambda n: n.__setitem__("successRate", 87.5))),
    ("run-envelope-dropped", "spec", "P-envelopes", lambda app: Rewrite(app, on_json(_unwrap_run))),
    ("slug-uppercase", "catalog drift", "A-17",
     each(lambda n: n.__setitem__("slug", n["slug"].upper()) if isinstance(n.get("slug"), str) and "config" in n
          else None)),
    ("download-url-relative", "spec", "A-90.1",
     when("downloadUrl", lambda n: n.__setitem__("downloadUrl", "/api/v1/artifacts/download"))),
    ("json-as-text", "spec", "A-05", lambda app: Rewrite(app, on_headers(
        lambda s, st, t: t.__setitem__(b"content-type", b"text/plain") if s["path"].endswith("/runs") else None))),
    ("progress-participants-total", "derived", "A-85.1",
     each(lambda n: _more_participants(n) if isinstance(n.get("participants"), dict) and "total" in n["participants"]
          else None)),
    ("bucket-counts-disagree", "derived", "A-98.1", when("successCount", _bucket_off)),
    ("import-states-disagree", "derived", "A-100", when("eventBatches", _imports_off)),
    ("api-key-echoed", "non-disclosure", "crawl.non_disclosure", lambda app: Rewrite(app, on_json(_echo_key))),
    ("server-error-on-timeline", "spec", "spec.server_error",
     lambda app: Rewrite(app, set_status(500, lambda s, st: s["path"].endswith("/timeline")))),
    ("undocumented-status", "spec", "P-status",
     lambda app: Rewrite(app, set_status(203, lambda s, st: s["path"].endswith("/progress")))),
]  # fmt: skip


@pytest.mark.parametrize(("name", "kind", "claim", "wrap"), DRIFTS, ids=[f"{d[1]}:{d[2]}:{d[0]}" for d in DRIFTS])
def test_drift_is_caught_and_names_its_claim(name, kind, claim, wrap):
    with served(wrap(create_app(api="benchsdk"))) as url:
        found = caught(lambda: _crawl(url))
    assert (clause_claim(claim) or claim) in found, f"{name}: {claim} is not filed under its claim"
    assert claim in found, f"{name}: expected a drift under {claim!r}; the crawl reported {sorted(found) or 'nothing'}"


def test_unmodified_mock_passes():
    with served(create_app(api="benchsdk")) as url:
        found = caught(lambda: _crawl(url))
    assert not found, f"the crawl reported drift on the unmodified mock: {sorted(found)}"


# The benchsdk suite's own checks (`contracts/benchsdk/suite/test_read_path.py`), each called directly
# against the drifted server.
def _suite(run):
    def check(url: str):
        with httpx.Client(base_url=url, timeout=60) as http:
            assert http.post("/__mock/reset").status_code == 204
            run(Platform(http, url, SEED_API_KEY), http)

    return check


def _settle(http):
    return lambda: http.post("/__mock/clock", json={"advance_seconds": TIMING["importDelaySeconds"]})


def _oauth(p, http):
    minted = http.post("/__mock/tokens", json={"kind": "oauth"}).json()
    test_read_path.check_oauth_names_its_org(p, minted["token"], minted["org_id"], minted["org_slug"])


SUITE_CHECKS = {
    "records": _suite(lambda p, h: test_read_path.check_records_read_back(p, _settle(h))),
    "tree": _suite(lambda p, h: test_read_path.check_tree(p)),
    "shapes": _suite(lambda p, h: test_read_path.check_run_shapes(p)),
    "artifacts": _suite(lambda p, h: test_read_path.check_artifacts_and_closing(p)),
    "encoding": _suite(lambda p, h: test_read_path.check_encoded_path_params(p)),
    "oauth": _suite(_oauth),
    "model": _suite(lambda p, h: test_read_path.check_aggregates_match_the_model(p, _settle(h))),
}


def answer(pattern: str, fn, method: str = "GET", query: str = ""):
    """Edit, in place, the JSON answers of `method` requests whose path matches `pattern` (and query holds
    `query`)."""
    rx = re.compile(pattern)

    def hook(scope, status, headers, raw):
        media = dict(headers).get(b"content-type", b"")
        if (
            media.startswith(b"application/json")
            and raw
            and scope["method"] == method
            and rx.search(scope["path"])
            and query.encode() in scope["query_string"]
        ):
            body = orjson.loads(raw)
            fn(body)
            raw = orjson.dumps(body)
            headers = [(k, str(len(raw)).encode() if k == b"content-length" else v) for k, v in headers]
        return status, headers, raw

    return lambda app: Rewrite(app, hook)


def request(fn):
    return lambda app: Rewrite(app, request=fn)


def _rows(key, pred, change):
    def fn(body):
        for row in body.get(key) or []:
            if pred(row):
                change(row)

    return fn


def _owner_of_runs(app):
    """The server finds a run by id under any benchmark slug (it ignores the slug)."""
    owner: dict[str, str] = {}

    def answer_hook(scope, request_body, status, headers, raw):
        if scope["method"] == "POST" and scope["path"].endswith("/runs") and status == 201:
            run = orjson.loads(raw)["run"]
            owner[run["id"]] = run["benchmarkSlug"]

    def request_hook(scope):
        parts = scope["path"].split("/")
        if len(parts) > 6 and parts[3] == "benchmarks" and parts[5] == "runs" and parts[6] in owner:
            parts[4] = owner[parts[6]]
            scope["path"] = "/".join(parts)

    return SharedRewrite(app, answer_hook, request_hook)


def _worker_under_any_run(only_suffix: str = ""):
    """The server finds a worker by id under any run (of its benchmark)."""

    def wrap(app):
        run_of: dict[str, tuple[str, str]] = {}

        def answer_hook(scope, request_body, status, headers, raw):
            if scope["path"].endswith("/workers/claim") and status == 200:
                got = orjson.loads(raw)["assignment"]
                if got:
                    run_of[got["workerId"]] = (got["benchmarkSlug"], got["runId"])

        def request_hook(scope):
            parts = scope["path"].split("/")
            if "workers" in parts and parts.index("workers") + 1 < len(parts):
                worker = parts[parts.index("workers") + 1]
                if worker in run_of and scope["path"].endswith(only_suffix):
                    parts[4], parts[6] = run_of[worker]
                    scope["path"] = "/".join(parts)

        return SharedRewrite(app, answer_hook, request_hook)

    return wrap


def _query(name, old, new, suffix):
    def hook(scope):
        if scope["path"].endswith(suffix):
            query = [(k, new if k == name and v == old else v) for k, v in parse_qsl(scope["query_string"].decode())]
            scope["query_string"] = urlencode(query).encode()

    return hook


def _at_root(scope):
    if scope["path"] == "/benchmarks":
        scope["path"] = "/api/v1/benchmarks"


def _undecoded(scope):
    if scope["method"] == "PUT" and "/participants/" in scope["path"]:
        scope["path"] = scope["raw_path"].decode()


def _org_header(old: bytes | None, new: bytes | None):
    def hook(scope):
        headers = dict(scope["headers"])
        if not headers.get(b"authorization", b"").startswith(b"Bearer bpo_"):
            return
        if old is not None:  # the server no longer reads this header
            scope["headers"] = [(k, v) for k, v in scope["headers"] if k != old]
        elif not any(k in headers for k in (b"x-org-slug", b"x-organization-id")):  # it assumes an org
            scope["headers"] = [*scope["headers"], (new, b"acme")]

    return hook


def _dedupe_by_name(body):
    seen: set[tuple[str, str]] = set()
    out = []
    for row in body.get("items") or []:
        if (row["kind"], row["name"]) not in seen:
            seen.add((row["kind"], row["name"]))
            out.append(row)
    body["items"] = out


def _first_task_twice(body):
    if body.get("tasks"):
        body["tasks"].append(dict(body["tasks"][0]))


def _each_latency(key: str, fn):
    """Edit the latency summary of every row under `key` of a results answer (`overall`: the one row)."""

    def edit(body):
        found = body.get(key)
        for row in [found] if isinstance(found, dict) else found or []:
            if row.get("latencyMs"):
                fn(row["latencyMs"])

    return edit


def _swap(a: str, b: str):
    def fn(stats):
        stats[a], stats[b] = stats[b], stats[a]

    return fn


def _never_imported(body):
    summary = body["summary"]
    summary["queued"], summary["persisted"], summary["failed"] = summary["eventBatches"], 0, 0


def _keep_phase_only(row):
    row["data"] = {"phase": row["data"]["phase"]}


SUITE_DRIFTS = [
    # read-path figures agreeing with the stored records
    ("resent-record-listed-twice", "derived", "A-44", answer(r"/iterations$", _first_task_twice), "records"),
    ("error-code-dropped", "derived", "A-54.2", answer(r"/iterations$", _rows(
        "tasks", lambda r: r["status"] == "error", lambda r: r.__setitem__("errorCode", None))), "records"),
    ("error-record-data-dropped", "derived", "A-55.1", answer(r"/iterations$", _rows(
        "tasks", lambda r: r["status"] == "error", _keep_phase_only)), "records"),
    ("phase-dropped-on-failures", "derived", "A-57", answer(r"/iterations$", _rows(
        "tasks", lambda r: r["status"] == "error", lambda r: r["data"].pop("phase", None))), "records"),
    ("implicit-step-renamed", "derived", "A-56", answer(r"/iterations$", _rows(
        "steps", lambda r: r["stepName"] == "task", lambda r: r.__setitem__("stepName", "main"))), "records"),
    ("import-batch-undercounted", "derived", "A-60", answer(r"/results/imports$", _rows(
        "items", lambda r: r["sequenceNumber"] == 0, lambda r: r.__setitem__("eventCount", 1))), "records"),
    ("participant-filter-ignored", "cursors", "A-97",
     request(drop_query_parameter("participant", "/results")), "records"),
    ("comma-list-read-as-one", "cursors", "A-92",
     request(_query("participant", "e2b,modal", "modal", "/results")), "records"),
    ("bucket-size-ignored", "cursors", "A-98.1",
     request(drop_query_parameter("bucketSize", "/results/tasks")), "records"),
    ("overview-readiness-off", "derived", "A-91", answer(r"^/api/v1/benchmarks/[^/]+/results$", _rows(
        "items", lambda r: True, lambda r: r["analytics"].__setitem__("status", "pending"))), "records"),
    ("imports-never-finish", "derived", "A-60", answer(r"/results/imports$", _never_imported), "records"),
    # figures computed from the records, against the model on generated records
    ("p95-and-p99-swapped", "derived", "A-96.1",
     answer(r"/runs/[^/]+/results$", _each_latency("overall", _swap("p95", "p99"))), "model"),
    ("participant-p99-is-max", "derived", "A-96.2", answer(r"/runs/[^/]+/results$", _each_latency(
        "participants", lambda stats: stats.__setitem__("p99", stats["max"]))), "model"),
    ("step-p95-is-p99", "derived", "A-96.3", answer(r"/runs/[^/]+/results$", _each_latency(
        "steps", lambda stats: stats.__setitem__("p95", stats["p99"]))), "model"),
    ("bucket-p95-is-max", "derived", "A-98.2", answer(r"/results/tasks$", _rows(
        "buckets", lambda r: True, lambda r: r["latencyMs"].__setitem__("p95", r["latencyMs"]["max"]))), "model"),
    # the resource tree
    ("run-found-under-any-slug", "catalog drift", "A-18", _owner_of_runs, "tree"),
    ("worker-found-under-any-run", "attempt fencing", "A-19", _worker_under_any_run(), "tree"),
    ("heartbeat-without-its-run", "attempt fencing", "A-21", _worker_under_any_run("/heartbeat"), "tree"),
    ("api-served-at-the-root", "spec", "A-01.1", request(_at_root), "tree"),
    # run shapes
    ("config-snapshot-trimmed", "units", "A-31",
     answer(r"/runs/[^/]+$", lambda b: b["run"]["config"].pop("phases", None)), "shapes"),
    ("participant-sized-flag-wrong", "units", "A-29", answer(r"/runs$", lambda b: b["run"].__setitem__(
        "participantSized", False) if "run" in b else None, "POST"), "shapes"),
    ("participant-total-off", "derived", "A-22", answer(r"/progress$", _rows(
        "participants", lambda r: True, lambda r: r.__setitem__("totalTasks", r["totalTasks"] + 1))), "shapes"),
    ("summary-invented", "derived", "A-77", answer(r"/results$", lambda b: b["run"].__setitem__(
        "summary", {"run": {}, "results": []})), "shapes"),
    ("benchmark-patch-ignored", "units", "A-82.2", answer(r"^/api/v1/benchmarks/[^/]+$", lambda b: b[
        "benchmark"].__setitem__("status", "active")), "shapes"),
    ("run-patch-ignored", "units", "A-84.1", answer(r"/runs/[^/]+$", lambda b: b["run"].__setitem__(
        "status", "planned") if b["run"]["status"] == "completed" else None), "shapes"),
    # artifacts, heartbeats, closing
    ("custom-kind-rewritten", "presigned uploads", "A-62", answer(r"/workers/[^/]+/artifacts$", _rows(
        "items", lambda r: r["kind"] == "contract.custom", lambda r: r.__setitem__("kind", "coordinator.log"))),
     "artifacts"),
    ("repeated-log-listed-once", "presigned uploads", "A-65",
     answer(r"/workers/[^/]+/artifacts$", _dedupe_by_name), "artifacts"),
    ("log-renamed", "presigned uploads", "A-66", answer(r"/workers/[^/]+/artifacts$", _rows(
        "items", lambda r: r["name"] == "worker.log", lambda r: r.__setitem__("name", "coordinator.log"))),
     "artifacts"),
    ("metrics-as-text", "presigned uploads", "A-67", answer(r"/workers/[^/]+/artifacts$", _rows(
        "items", lambda r: r["kind"] == "system-metrics", lambda r: r.__setitem__("contentType", "text/plain"))),
     "artifacts"),
    ("shared-scope-dropped", "presigned uploads", "A-68", answer(r"/workers/[^/]+/artifacts$", _rows(
        "items", lambda r: True, lambda r: r["metadata"].pop("scope", None))), "artifacts"),
    ("failed-worker-reads-completed", "attempt fencing", "A-72", answer(r"/workers/[^/]+$", lambda b: b[
        "worker"].__setitem__("status", "completed") if b["worker"]["status"] == "failed" else None), "artifacts"),
    # encoding, credentials
    ("path-not-decoded", "spec", "A-06", request(_undecoded), "encoding"),
    ("org-id-header-unsupported", "auth and credential states", "A-04.1",
     request(_org_header(b"x-organization-id", None)), "oauth"),
    ("org-header-optional", "auth and credential states", "A-04.2", request(_org_header(None, b"x-org-slug")), "oauth"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "kind", "claim", "wrap", "check"), SUITE_DRIFTS, ids=[f"{d[1]}:{d[2]}:{d[0]}" for d in SUITE_DRIFTS]
)
def test_suite_drift_is_caught_and_names_its_claim(name, kind, claim, wrap, check):
    with served(wrap(create_app(api="benchsdk"))) as url:
        found = caught(lambda: SUITE_CHECKS[check](url))
    assert claim in found, f"{name}: expected a drift under {claim!r}; {check} reported {sorted(found) or 'nothing'}"


@pytest.mark.parametrize("check", sorted(SUITE_CHECKS))
def test_unmodified_mock_passes_the_suite_checks(check):
    with served(create_app(api="benchsdk")) as url:
        found = caught(lambda: SUITE_CHECKS[check](url))
    assert not found, f"{check} reported drift on the unmodified mock: {sorted(found)}"


# Drifts of the mock's own arithmetic (its read path's rules replaced while it serves), caught by the model
# check on generated records; the fixed four-record example could not tell most of them apart.
def _floor_rank(ordered, pct):
    return ordered[max(1, math.floor(pct / 100 * len(ordered))) - 1] if ordered else None


def _interpolated(ordered, pct):
    if not ordered:
        return None
    h = (len(ordered) - 1) * pct / 100
    lo = math.floor(h)
    return ordered[lo] + (ordered[min(lo + 1, len(ordered) - 1)] - ordered[lo]) * (h - lo)


def _first_report_wins(store, run, participants=None):
    """The earliest report of a (participant, taskIndex) counts, not the latest."""
    first: dict[tuple[str, int], dict] = {}
    for batch in store.run_batches(run.id):  # in the order they were accepted
        if batch.import_status == "imported":
            for record in batch.records:
                first.setdefault((batch.participant_id, int(record["taskIndex"])), record)
    return [
        results_model.Rec(r.participant, r.batch, first[(r.participant.id, int(r.record["taskIndex"]))])
        for r in _latest_wins(store, run, participants)
    ]


_latest_wins = results_model.effective_records

MOCK_DRIFTS = [
    ("percentile-floor-rank", "A-96.1", "nearest_rank", _floor_rank),
    ("percentile-interpolated", "A-96.1", "nearest_rank", _interpolated),
    ("first-resent-record-counts", "A-44", "effective_records", _first_report_wins),
]


@pytest.mark.parametrize(("name", "claim", "attribute", "replacement"), MOCK_DRIFTS, ids=[d[0] for d in MOCK_DRIFTS])
def test_mock_arithmetic_drift_is_caught_by_the_model(name, claim, attribute, replacement, monkeypatch):
    monkeypatch.setattr(results_model, attribute, replacement)
    with served(create_app(api="benchsdk")) as url:
        found = caught(lambda: SUITE_CHECKS["model"](url))
    assert claim in found, (
        f"{name}: expected a drift under {claim!r}; the model check reported {sorted(found) or 'nothing'}"
    )


def test_every_suite_check_has_a_drift():
    assert {d[4] for d in SUITE_DRIFTS} == set(SUITE_CHECKS)
