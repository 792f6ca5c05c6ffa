"""Bench's drift catalogue: each drift, injected around the unmodified mock, must be caught by the checks
`harness-contract --api bench` runs, naming the claim it broke. The checks are called directly against the
drifted server: the generic crawl of the existing data (`contracts/runner/suite/test_crawl.py`: spec
validation of every answer read, non-disclosure of the caller's credentials), the Bench suite's conventions
check of every read operation (`contracts/bench/suite/test_conventions.py`: C-13, C-53, C-59), and the suite's
semantic checks (`SUITE_CHECKS`: versioned writes, the dataset and evaluation lifecycles, the read path and
its pages, allowance accounting, credential states through the published client, non-disclosure of key
secrets, stage streams, the catalog), each with at least one drift. Test ids carry class and claim. The
unmodified mock passes every check; the ten-seed loop of the whole suite is `tests/drift/test_seeds.py`
(marked slow)."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
import orjson
import pytest

from contracts.bench.suite import (
    test_catalog_drift,
    test_conventions,
    test_credentials,
    test_datasets,
    test_evaluations,
    test_reads,
    test_streams,
    test_versioning,
)
from contracts.bench.suite._client import Bench
from contracts.runner.claims import Drift
from mock_server.app import create_app
from tests.benchwright.drift import drop_query_parameter
from tests.drift.harness import Rewrite, caught, crawl_drifts, on_headers, on_json, served, set_status

ENV = {"BENCH_API_KEY": "bench_dev_key_growth", "BENCH_OAUTH_TOKEN": "bench_dev_oauth_growth"}


def _crawl(url: str):
    return crawl_drifts("bench", url, ENV)


def _conventions(url: str):
    """The suite's conventions check over every read operation; its drifts, collected."""
    found: list[Drift] = []
    with httpx.Client(base_url=url, timeout=30) as http:
        bench = Bench(http, ENV["BENCH_API_KEY"], ENV["BENCH_OAUTH_TOKEN"])
        ids = test_conventions.ids.__wrapped__(bench)
        for op_id in test_conventions.READS:
            try:
                test_conventions.test_read_operations_keep_the_conventions(bench, ids, op_id)
            except Drift as drift:
                found.append(drift)
    return found


def at(suffix, fn):
    def edit(scope, status, body):
        if scope["path"].endswith(suffix):
            fn(body)

    return lambda app: Rewrite(app, on_json(edit))


def _first_item(**changes):
    def fn(body):
        for row in body.get("items") or []:
            row.update(changes)
            return

    return fn


def _echo_key(scope, status, body):
    if isinstance(body, dict) and scope["path"] == "/api/auth/me":
        body["credential"]["secret"] = ENV["BENCH_API_KEY"]


def _error_reference(scope, status, body):
    if status >= 400 and isinstance(body, dict) and isinstance(body.get("error"), dict):
        body["error"].pop("reference", None)


def _error_code(scope, status, body):
    if status >= 400 and isinstance(body, dict) and isinstance(body.get("error"), dict):
        body["error"]["code"] = "teapot"


DRIFTS = [
    ("system-id-string", "spec", "spec.schema", at("/api/ai-systems", _first_item(id="123")), _crawl),
    ("run-status-unknown", "spec", "spec.schema", at("/api/evaluation-runs", _first_item(status="finished")), _crawl),
    ("allowance-remaining-missing", "credit and allowance accounting", "spec.schema",
     at("/api/evaluation-allowance", lambda b: b["allowance"].pop("remaining", None)), _crawl),
    ("context-version-string", "versioned writes", "spec.schema",
     at("/context", lambda b: b["context"].__setitem__("version", "3")), _crawl),
    ("undocumented-status", "spec", "spec.status",
     lambda app: Rewrite(app, set_status(203, lambda s, st: s["path"] == "/api/ai-systems" and st == 200)), _crawl),
    ("server-error-on-traces", "spec", "spec.server_error",
     lambda app: Rewrite(app, set_status(500, lambda s, st: s["path"] == "/api/traces")), _crawl),
    ("api-key-echoed", "non-disclosure", "crawl.non_disclosure", lambda app: Rewrite(app, on_json(_echo_key)), _crawl),
    ("json-as-text", "spec", "C-13", lambda app: Rewrite(app, on_headers(
        lambda s, st, t: t.__setitem__(b"content-type", b"text/plain") if s["path"] == "/api/ai-systems" else None)),
     _conventions),
    ("redirect", "spec", "C-59",
     lambda app: Rewrite(app, set_status(307, lambda s, st: s["path"] == "/api/billing/plans")), _conventions),
    ("error-without-reference", "errors", "C-53.1", lambda app: Rewrite(app, on_json(_error_reference)), _conventions),
    ("error-code-undocumented", "errors", "C-53.2", lambda app: Rewrite(app, on_json(_error_code)), _conventions),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "kind", "claim", "wrap", "check"), DRIFTS, ids=[f"{d[1]}:{d[2]}:{d[0]}" for d in DRIFTS]
)
def test_drift_is_caught_and_names_its_claim(name, kind, claim, wrap, check):
    with served(wrap(create_app(api="bench"))) as url:
        found = caught(lambda: check(url))
    assert claim in found, f"{name}: expected a drift under {claim!r}; the check reported {sorted(found) or 'nothing'}"


@pytest.mark.parametrize("check", [_crawl, _conventions], ids=["crawl", "conventions"])
def test_unmodified_mock_passes(check):
    with served(create_app(api="bench")) as url:
        found = caught(lambda: check(url))
    assert not found, f"drift reported on the unmodified mock: {sorted(found)}"


# The Bench suite's own semantic checks, each called directly against the drifted server (its /__mock
# control surface reset first, as the suite's `embedded` fixture does).
Run = Callable[[Bench, httpx.Client, str], object]


def new_system(bench: Bench) -> int:
    r = bench.call("create_system", body={"name": "drift catalogue system"}, token="oauth")
    return r.json()["system"]["id"]


def evaluable(bench: Bench) -> tuple[int, int]:
    sid = new_system(bench)
    return test_evaluations.evaluable_system.__wrapped__(bench, sid)


def _suite(run: Run):
    def check(url: str):
        with httpx.Client(base_url=url, timeout=60) as http:
            assert http.post("/__mock/reset").status_code == 204
            run(Bench(http, ENV["BENCH_API_KEY"], ENV["BENCH_OAUTH_TOKEN"]), http, url)

    return check


def _advance(http: httpx.Client):
    return lambda: http.post("/__mock/clock", json={"advance_seconds": 20})


VERSIONING = _suite(lambda b, h, u: test_versioning.check_every_write_moves_the_version_by_one(b, new_system(b)))
IMPORT = _suite(lambda b, h, u: test_versioning.check_dataset_import_is_one_write(b, new_system(b)))
CRITERION = _suite(lambda b, h, u: test_versioning.check_criterion_entry(b, new_system(b)))
IDS = _suite(lambda b, h, u: test_reads.check_listed_ids_resolve(b))
FOLD = _suite(lambda b, h, u: test_reads.check_finished_evaluations_agree_with_their_artifacts(b))
PAGES = _suite(lambda b, h, u: test_reads.check_pages_traverse_exactly_once(b))
ALLOWANCE = _suite(lambda b, h, u: test_reads.check_allowance_is_readable_and_reading_spends_nothing(b))
LINKS = _suite(lambda b, h, u: test_reads.check_links_are_https(b))
REFUSED = _suite(
    lambda b, h, u: (
        test_credentials.check_refused_credentials(b, u),
        test_credentials.check_reference_is_the_request_id(b),
    )
)
STATES = _suite(lambda b, h, u: test_credentials.check_fixture_credential_states(b, h, u))
EXCHANGE = _suite(lambda b, h, u: test_credentials.check_exchange_needs_the_audience(b))
KEY_ONCE = _suite(lambda b, h, u: test_credentials.check_key_secret_shown_once(b, h, ENV["BENCH_OAUTH_TOKEN"], True))
FOLDS = _suite(lambda b, h, u: test_evaluations.check_status_folds_and_future_runs(b, _advance(h), *evaluable(b)))
PUBLISH = _suite(lambda b, h, u: test_evaluations.check_published_report_is_kept_whole(b, new_system(b)))
STREAMS = _suite(lambda b, h, u: test_streams.check_stage_streams(b, u, "acme", "support-bot", "main", "dev"))
FORM = _suite(lambda b, h, u: test_datasets.check_stored_form_and_derived_counts(b, new_system(b)))
PROMPTS = _suite(lambda b, h, u: test_datasets.check_prompt_upload_limit(b))
CATALOG = _suite(lambda b, h, u: test_catalog_drift.test_three_way_catalog(b))
SUITE_CHECKS = {
    "versioning": VERSIONING, "import": IMPORT, "criterion": CRITERION, "ids": IDS, "fold": FOLD, "pages": PAGES,
    "allowance": ALLOWANCE, "links": LINKS, "refused": REFUSED, "states": STATES, "exchange": EXCHANGE,
    "key-once": KEY_ONCE, "folds": FOLDS, "publish": PUBLISH, "streams": STREAMS, "form": FORM, "prompts": PROMPTS,
    "catalog": CATALOG,
}  # fmt: skip


def answer(pattern: str, fn, method: str | None = None, status: int | None = None):
    """Edit, in place, the JSON answers of requests whose path matches `pattern` (and method, status)."""
    rx = re.compile(pattern)

    def edit(scope, st, body):
        if rx.search(scope["path"]) and method in (None, scope["method"]) and status in (None, st):
            fn(body)  # in place

    return lambda app: Rewrite(app, on_json(edit))


def status(pattern: str, method: str, old: int, new: int):
    rx = re.compile(pattern)
    return lambda app: Rewrite(
        app, set_status(new, lambda s, st: bool(rx.search(s["path"])) and s["method"] == method and st == old)
    )


def bearer(old: str, new: str, unless: str = "/api/auth/"):
    """The server reads one credential as another (on every path but `unless`)."""

    def hook(scope):
        if scope["path"].startswith(unless):
            return
        scope["headers"] = [
            (k, b"Bearer " + new.encode() if k == b"authorization" and v.startswith(b"Bearer " + old.encode()) else v)
            for k, v in scope["headers"]
        ]

    return lambda app: Rewrite(app, request=hook)


def _each_source(fn):
    return lambda body: [fn(s) for s in body["context"]["sources"]]


def _bump(*keys: str, by: int = 1):
    def fn(body):
        node = body
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] += by

    return fn


def _reads_spend(app):
    """Every allowance read reports one more evaluation used."""
    reads = [0]

    def edit(scope, st, body):
        if scope["path"] == "/api/evaluation-allowance" and st == 200:
            body["allowance"]["used"] += reads[0]
            if body["allowance"]["remaining"] is not None:
                body["allowance"]["remaining"] -= reads[0]
            reads[0] += 1

    return Rewrite(app, on_json(edit))


def _secret_listed(app):
    """list_api_keys shows the secret of the last key created."""
    created: list[str] = []

    def edit(scope, st, body):
        if scope["path"] == "/api/account/api-keys" and scope["method"] == "POST" and st == 201:
            created.append(body["key"])
        elif scope["path"] == "/api/account/api-keys" and st == 200 and created and body.get("items"):
            body["items"][0]["prefix"] = created[-1]

    return Rewrite(app, on_json(edit))


def _stream_error_untyped(scope, st, headers, raw):
    if scope["path"].endswith("/eval-benchmark"):
        raw = raw.replace(b'"type":"error"', b'"type":"failure"')
        headers = [(k, str(len(raw)).encode() if k == b"content-length" else v) for k, v in headers]
    return st, headers, raw


def _stream_as_json(scope, st, table):
    if scope["path"].endswith("/eval-benchmark"):
        table[b"content-type"] = b"application/json"


def _drop_future_edit(body):
    body["artifacts"]["evidence"] = [e for e in body["artifacts"]["evidence"] if e["id"] != "manual-contract-future"]


def _drop_operation(body):
    body["operations"] = body["operations"][:-1]


def _undecoded_mapping(body):
    body["dataset"]["mapping"] = orjson.dumps(body["dataset"]["mapping"]).decode()


SUITE_DRIFTS = [
    # versioned writes
    ("version-moves-by-two", "versioned writes", "C-36.1",
     answer(r"/context/sources$", _bump("context", "version"), "PUT", 200), "versioning"),
    ("stale-replay-accepted", "versioned writes", "C-36.2",
     status(r"/context/sources$", "PUT", 409, 200), "versioning"),
    ("edit-not-applied", "versioned writes", "C-37", answer(r"/context$", _each_source(
        lambda s: s.__setitem__("text", s["text"].replace("14 days", "30 days"))), "GET"), "versioning"),
    ("foreign-source-id-accepted", "versioned writes", "C-34.2",
     status(r"/context/sources$", "PUT", 400, 200), "versioning"),
    ("rule-kind-changed", "versioned writes", "C-42",
     answer(r"/context/sources$", lambda b: b["source"].__setitem__("kind", "system"), "PUT", 200), "versioning"),
    ("delete-misses-the-source", "versioned writes", "C-39.1", lambda app: Rewrite(app, request=lambda s: s.__setitem__(
        "path", re.sub(r"/sources/.+$", "/sources/manual-missing", s["path"])) if s["method"] == "DELETE" else None),
     "versioning"),
    ("document-over-limit-accepted", "versioned writes", "C-30.2",
     status(r"/context/upload$", "POST", 413, 201), "versioning"),
    ("multipart-body-accepted", "versioned writes", "C-15",
     status(r"/context/sources$", "PUT", 415, 200), "versioning"),
    ("snapshot-is-the-current-context", "versioned writes", "C-46.2",
     lambda app: Rewrite(app, request=drop_query_parameter("version", "/context")), "versioning"),
    ("criterion-listed-as-case", "versioned writes", "C-41.1",
     answer(r"/test-library$", lambda b: [e.__setitem__("type", "case") for e in b["items"]], "GET"), "criterion"),
    ("criterion-not-json-accepted", "versioned writes", "C-41.2",
     status(r"/context/sources$", "PUT", 400, 200), "criterion"),
    # dataset lifecycle
    ("import-count-off", "dataset lifecycle", "C-68.1",
     answer(r"/test-library/import$", _bump("imported"), "POST", 201), "import"),
    ("import-stale-accepted", "dataset lifecycle", "C-35",
     status(r"/test-library/import$", "POST", 409, 201), "import"),
    ("mapping-not-decoded", "dataset lifecycle", "C-14",
     answer(r"/datasets/ds_[^/]+$", _undecoded_mapping, "GET", 200), "form"),
    ("compare-counts-off", "dataset lifecycle", "C-28.2",
     answer(r"/compare$", _bump("report", "passed"), "POST"), "form"),
    ("prompt-total-unchecked", "dataset lifecycle", "C-32.2",
     status(r"^/api/prompt-scans$", "POST", 413, 201), "prompts"),
    # read path and pagination
    ("listed-system-unknown", "read path", "C-25", answer(r"^/api/ai-systems$", lambda b: _bump("id", by=10**6)(
        b["items"][0]), "GET"), "ids"),
    ("listed-dataset-unknown", "read path", "C-11", answer(r"/datasets$", lambda b: [d.__setitem__(
        "id", "ds_missing") for d in b["items"]], "GET"), "ids"),
    ("page-skips-an-item", "pagination", "C-12.1", answer(r"/context/sources$", lambda b: b.__setitem__(
        "next_offset", b["next_offset"] + 1) if b.get("next_offset") is not None else None, "GET"), "pages"),
    ("page-ignores-limit", "pagination", "C-58.2",
     lambda app: Rewrite(app, request=drop_query_parameter("limit", "/context/sources")), "pages"),
    # evaluation lifecycle
    ("summary-disagrees-with-artifacts", "evaluation lifecycle", "C-50.3", answer(r"^/api/evaluation-runs$", lambda b: [
        _bump("summary", "passed")(r) for r in b["items"] if r.get("summary")], "GET"), "fold"),
    ("evidence-rewritten", "evaluation lifecycle", "C-46.1", answer(r"/artifacts$", lambda b: b["artifacts"][
        "evidence"][0].__setitem__("text", "edited"), "GET", 200), "fold"),
    ("start-answers-finished", "evaluation lifecycle", "C-63.1", answer(r"/evaluation-runs/system$", lambda b: [
        r.__setitem__("status", "completed") for r in b["runs"]], "POST", 201), "folds"),
    ("artifacts-before-finish", "evaluation lifecycle", "C-50.2", status(r"/artifacts$", "GET", 409, 200), "folds"),
    ("edit-misses-the-next-run", "evaluation lifecycle", "C-45.1",
     answer(r"/artifacts$", _drop_future_edit, "GET", 200), "folds"),
    ("published-report-altered", "evaluation lifecycle", "C-51.1", answer(r"/runtime-evaluations$", lambda b: [
        r["report"]["summary"].__setitem__("status", "failed") for r in b["items"]], "GET"), "publish"),
    # credit and allowance accounting
    ("allowance-remaining-off", "credit and allowance accounting", "C-47.2",
     answer(r"^/api/evaluation-allowance$", _bump("allowance", "remaining", by=-1), "GET", 200), "allowance"),
    ("reads-spend-allowance", "credit and allowance accounting", "C-06.1", _reads_spend, "allowance"),
    # auth and credential states, errors
    ("other-environment-accepted", "auth and credential states", "C-02",
     bearer("bench_live_", ENV["BENCH_API_KEY"]), "refused"),
    ("error-status-disagrees-with-code", "errors", "C-53.2",
     status(r"^/api/ai-systems$", "GET", 401, 403), "refused"),
    ("revoked-reads-as-unknown", "auth and credential states", "C-57.1", answer(".", lambda b: b["error"].__setitem__(
        "code", "invalid_credential") if b.get("error", {}).get("code") == "credential_revoked" else None), "states"),
    ("authkit-token-accepted-as-bearer", "auth and credential states", "C-21",
     bearer("authkit_growth_mcp", ENV["BENCH_API_KEY"]), "states"),
    ("exchange-ignores-the-audience", "auth and credential states", "C-20.2",
     status(r"^/api/auth/mcp-token$", "POST", 401, 201), "exchange"),
    ("key-mints-a-key", "auth and credential states", "C-19.1",
     status(r"^/api/account/api-keys$", "POST", 403, 201), "key-once"),
    ("key-secret-listed", "non-disclosure", "C-67.1", _secret_listed, "key-once"),
    ("upgrade-link-http", "errors", "C-60", answer(r"/capabilities$", lambda b: b["links"].__setitem__(
        "upgrade_url", "http://app.staging.usebench.ai/settings/billing/upgrade"), "GET", 200), "links"),
    # streams, catalog
    ("stream-error-untyped", "streams", "C-62.1", lambda app: Rewrite(app, _stream_error_untyped), "streams"),
    ("stream-as-json", "streams", "C-61", lambda app: Rewrite(app, on_headers(_stream_as_json)), "streams"),
    ("catalog-drops-an-operation", "catalog drift", "C-07",
     answer(r"/headless/operations$", _drop_operation, "GET", 200), "catalog"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "kind", "claim", "wrap", "check"), SUITE_DRIFTS, ids=[f"{d[1]}:{d[2]}:{d[0]}" for d in SUITE_DRIFTS]
)
def test_suite_drift_is_caught_and_names_its_claim(name, kind, claim, wrap, check):
    with served(wrap(create_app(api="bench"))) as url:
        found = caught(lambda: SUITE_CHECKS[check](url))
    assert claim in found, f"{name}: expected a drift under {claim!r}; {check} reported {sorted(found) or 'nothing'}"


@pytest.mark.parametrize("check", sorted(SUITE_CHECKS))
def test_unmodified_mock_passes_the_suite_checks(check):
    with served(create_app(api="bench")) as url:
        found = caught(lambda: SUITE_CHECKS[check](url))
    assert not found, f"{check} reported drift on the unmodified mock: {sorted(found)}"


def test_every_suite_check_has_a_drift():
    assert {d[4] for d in SUITE_DRIFTS} == set(SUITE_CHECKS)
