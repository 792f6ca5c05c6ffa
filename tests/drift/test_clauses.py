"""The drift catalogue clause by clause: for the clauses the suite now asserts one by one
(contracts/<api>/clauses.py), a drift that breaks that clause alone, injected around the unmodified
mock. The check that asserts the clause must catch it and name the clause (`Drift.clause`), filed
under the clause's claim (a claim stated as one clause, such as Benchwright's §4.2.x launch sections,
is its own clause); the unmodified mock passes the same checks.

Benchwright §2.4 token listing and introspection, §5.1 the events filters, §4.2 the launch modes;
benchsdk A-96 latency summaries, A-41/A-42/A-48 the lease, A-93/A-94 the run listing's filters;
BenchGen B-48 revocation on every operation; Bench C-19/C-20 what the OAuth exchange accepts."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx
import orjson
import pytest

from contracts.bench.suite import test_credentials as bench_credentials
from contracts.bench.suite._client import Bench
from contracts.benchgen.exchange import Control, Exchange
from contracts.benchgen.suite import test_access, test_runs
from contracts.benchgen.suite.conftest import OPERATIONS as BENCHGEN_OPERATIONS
from contracts.benchgen.world import World
from contracts.benchsdk.suite import test_date_filters, test_lease, test_read_path
from contracts.benchsdk.suite._client import TIMING, Platform
from contracts.benchwright.suite import test_event_filters, test_launch_modes, test_token_listing
from contracts.runner.claims import clause_claim
from contracts.runner.http import SuiteClient
from contracts.runner.safety import RunPolicy
from contracts.runner.session import resolve
from mock_server.app import create_app
from mock_server.benchgen.fixtures import DEMO_TOKEN
from mock_server.benchsdk.fixtures import SEED_API_KEY
from tests.drift.harness import Rewrite, caught, served
from tests.drifting import Rewrite as SharedRewrite

BENCH_ENV = {"BENCH_API_KEY": "bench_dev_key_growth", "BENCH_OAUTH_TOKEN": "bench_dev_oauth_growth"}

# -- what a check names ----------------------------------------------------------------------------------


# -- rewrites ----------------------------------------------------------------------------------------------


def _query(scope: dict[str, Any]) -> dict[str, str]:
    return dict(parse_qsl(scope.get("query_string", b"").decode()))


def json_answer(pattern: str, fn: Callable[[dict[str, Any], Any], Any], method: str = "GET"):
    """Edit the JSON answers of `method` requests whose path matches `pattern`: `fn(scope, body)` edits in
    place or returns a new body."""
    rx = re.compile(pattern)

    def hook(scope, status, headers, raw):
        media = dict(headers).get(b"content-type", b"")
        if b"json" not in media or not raw or scope["method"] != method or not rx.search(scope["path"]):
            return status, headers, raw
        body = orjson.loads(raw)
        changed = fn(scope, body)
        raw = orjson.dumps(body if changed is None else changed)
        return status, [(k, str(len(raw)).encode() if k == b"content-length" else v) for k, v in headers], raw

    return lambda app: Rewrite(app, hook)


def query_rewrite(pattern: str, fn: Callable[[dict[str, str]], dict[str, str]]):
    rx = re.compile(pattern)

    def request(scope):
        if rx.search(scope["path"]):
            scope["query_string"] = urlencode(fn(_query(scope))).encode()

    return lambda app: Rewrite(app, request=request)


def _later(stamp: str, seconds: int) -> str:
    moved = datetime.fromisoformat(stamp.replace("Z", "+00:00")) + timedelta(seconds=seconds)
    return moved.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moved.microsecond // 1000:03d}Z"


# -- Benchwright ------------------------------------------------------------------------------------------


def _benchwright(
    check: Callable[..., Any], *, events: bool = False, session: bool = False, policy: bool = False, target: bool = True
):
    """One suite check against `url`, with the fixtures it takes built as the suite builds them."""

    def run(url: str):
        resolved = resolve("benchwright", {"BW_API_URL": url})
        rules = RunPolicy(live=False)
        client = SuiteClient(resolved.base_url, rules, resolved.credential)
        try:
            args: list[Any] = [client]
            if events:
                events_of = getattr(test_event_filters.events, "__wrapped__", None)
                args.append((events_of or test_event_filters.events.__pytest_wrapped__.obj)(client, resolved))
            elif target:
                args.append(resolved)
            if policy:
                args.append(rules)
            if session:
                body = resolved.control_post("/sessions", {"user_id": resolved.tokens.get("user_id")}).json()
                args += [{body["cookie_name"]: body["cookie"]}, None]
            check(*args)
        finally:
            client.close()
            resolved.close()

    return run


EVENTS = r"^/v1/runs/[^/]+/events$"


def _reversed_unless_ordered(scope, body):
    if "order" not in _query(scope):
        body["data"].reverse()


def _desc_ignored(scope, body):
    if _query(scope).get("order") == "desc":
        body["data"].reverse()


def _after_drops_one(scope, body):
    query = _query(scope)
    if "after_seq" in query and "before_seq" not in query and body["data"]:
        body["data"].pop(0)


def _before_drops_one(scope, body):
    query = _query(scope)
    if "before_seq" in query and "after_seq" not in query and body["data"]:
        body["data"].pop()


def _without(name: str, unless: str | None = None):
    return lambda q: {k: v for k, v in q.items() if k != name or (unless is not None and unless in q)}


def _types_win(q):
    return {k: v for k, v in q.items() if not (k == "exclude_types" and "types" in q)}


def _full_page_says_no_more(scope, body):
    limit = _query(scope).get("limit")
    if limit and len(body["data"]) == int(limit):
        body["pagination"]["has_more"] = False


def _extra_scope(scope, body):
    body["scopes"] = [*body.get("scopes", []), "billing:write"]


def _listed_value(scope, body):
    for row in body.get("data") or []:
        row["token"] = f"{row.get('prefix')}{'0' * 36}{row.get('last4')}"


def _expired_not_marked(scope, body):
    for row in body.get("data") or []:
        if row.get("expired"):
            row["expired"] = False


def _revoked_stays_listed(app):
    """A token revoked through `DELETE /v1/tokens/{id}` comes back in every later listing."""
    revoked: list[dict[str, Any]] = []

    def hook(scope, status, headers, raw):
        if scope["method"] == "DELETE" and re.fullmatch(r"/v1/tokens/[^/:]+", scope["path"]) and status < 300:
            revoked.append({"id": scope["path"].rsplit("/", 1)[1], "label": "revoked", "scopes": []})
        if scope["method"] == "GET" and scope["path"] == "/v1/tokens" and revoked:
            body = orjson.loads(raw)
            body["data"] += revoked
            raw = orjson.dumps(body)
            headers = [(k, str(len(raw)).encode() if k == b"content-length" else v) for k, v in headers]
        return status, headers, raw

    return Rewrite(app, hook)


def _replay_impl_changed(scope, body):
    if body.get("mode") == "replay" or (body.get("forked_from") and body.get("impl_id")):
        body["impl_id"] = "imp_other:000000000000"


def _preflight_code(scope, body):
    if body.get("code") == "benchmark_not_found":
        body["code"] = "not_found"


def _launch_mode_spelled(scope, body):
    if body.get("mode") == "natural_language":
        body["mode"] = "request"


ME = test_token_listing.test_tokens_me_names_the_caller_and_lists_its_own_scopes
LIST = test_token_listing.test_the_list_is_metadata_and_marks_expired_tokens
REVOKED = test_token_listing.test_a_revoked_token_leaves_the_list
ORDER = test_event_filters.test_events_come_in_seq_order_and_desc_reverses_it
WINDOW = test_event_filters.test_after_and_before_seq_bound_the_window
TYPES = test_event_filters.test_types_and_exclude_types_filter_and_exclude_wins
HAS_MORE = test_event_filters.test_has_more_means_the_page_came_back_full
MODES = test_launch_modes.test_each_launch_mode_answers_the_one_202_shape
PREFLIGHT = test_launch_modes.test_preflight_errors_create_no_run

BENCHWRIGHT = [
    ("me-without-user", "§2.4#1", json_answer(r"^/v1/tokens/me$", lambda s, b: b.pop("user_id", None)), ME, {}),
    ("me-lists-more-scopes", "§2.4#2", json_answer(r"^/v1/tokens/me$", _extra_scope), ME, {}),
    ("list-echoes-values", "§2.4#3", json_answer(r"^/v1/tokens$", _listed_value), LIST, {}),
    ("revoked-still-listed", "§2.4#5", _revoked_stays_listed, REVOKED, {"session": True}),
    ("expired-not-marked", "§2.4#6", json_answer(r"^/v1/tokens$", _expired_not_marked), LIST, {}),
    ("events-newest-first", "§5.1#1", json_answer(EVENTS, _reversed_unless_ordered), ORDER, {"events": True}),
    ("after-seq-skips-one", "§5.1#2", json_answer(EVENTS, _after_drops_one), WINDOW, {"events": True}),
    ("before-seq-skips-one", "§5.1#3", json_answer(EVENTS, _before_drops_one), WINDOW, {"events": True}),
    ("desc-ignored", "§5.1#4", json_answer(EVENTS, _desc_ignored), ORDER, {"events": True}),
    ("types-ignored", "§5.1#5", query_rewrite(EVENTS, _without("types", unless="exclude_types")), TYPES,
     {"events": True}),
    ("exclude-types-ignored", "§5.1#6", query_rewrite(EVENTS, _without("exclude_types", unless="types")), TYPES,
     {"events": True}),
    ("types-win-over-exclude", "§5.1#7", query_rewrite(EVENTS, _types_win), TYPES, {"events": True}),
    ("full-page-no-more", "§5.1#9", json_answer(EVENTS, _full_page_says_no_more), HAS_MORE, {"events": True}),
    ("launch-mode-renamed", "§4.2.4", json_answer(r"^/v1/runs$", _launch_mode_spelled, "POST"), MODES,
     {"policy": True}),
    ("replay-other-impl", "§4.2.3", json_answer(r"^/v1/runs/[^/]+$", _replay_impl_changed), MODES, {"policy": True}),
    ("unknown-benchmark-code", "§4.2.5", json_answer(r"^/v1/runs$", _preflight_code, "POST"), PREFLIGHT,
     {"policy": True, "target": False}),
]  # fmt: skip

# -- benchsdk ---------------------------------------------------------------------------------------------


def _benchsdk(run: Callable[[Platform, httpx.Client], Any]):
    def check(url: str):
        with httpx.Client(base_url=url, timeout=60) as http:
            assert http.post("/__mock/reset").status_code == 204
            run(Platform(http, url, SEED_API_KEY), http)

    return check


RECORDS = _benchsdk(
    lambda p, h: test_read_path.check_records_read_back(
        p, lambda: h.post("/__mock/clock", json={"advance_seconds": TIMING["importDelaySeconds"]})
    )
)
LEASE = _benchsdk(
    lambda p, h: test_lease.test_the_lease_as_claims_and_progress_see_it(p, SimpleNamespace(control=True))
)
DATES = _benchsdk(
    lambda p, h: test_date_filters.test_since_and_until_read_dates_in_the_time_zone_and_timestamps_literally(p)
)
RESULTS = r"/runs/[^/]+/results$"
RUN_LIST = r"^/api/v1/benchmarks/[^/]+/runs$"


def _since_day_shifted(query: dict[str, str]) -> dict[str, str]:
    """A bare `since` date read as the day after (an off-by-one time zone)."""
    since = query.get("since", "")
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", since):
        query["since"] = (datetime.fromisoformat(since) + timedelta(days=1)).date().isoformat()
    return query


def _overall_mean_as_median(scope, body):
    stats = body["overall"]["latencyMs"]
    stats["p50"] = stats["avg"]


def _participant_p95_low(scope, body):
    for row in body["participants"]:
        row["latencyMs"]["p95"] = row["latencyMs"]["p50"]


def _step_p50_mean(scope, body):
    for row in body["steps"]:
        if row["latencyMs"]["avg"] is not None:
            row["latencyMs"]["p50"] = row["latencyMs"]["avg"]


def _participant_rate_of_all(scope, body):
    for row in body["participants"]:
        row["successRate"] = 1.0


def _stale_read_running(scope, body):
    """The progress view ignores the clock: a worker silent past its lease still reads running."""
    for row in body["participants"]:
        workers = row["workers"]
        workers["running"], workers["stale"] = workers["running"] + workers["stale"], 0


def _claim_lease_longer(scope, body):
    if body.get("assignment"):
        body["assignment"]["leaseExpiresAt"] = _later(body["assignment"]["leaseExpiresAt"], 30)


def _heartbeat_lease_short(scope, body):
    attempt = body.get("attempt") or {}
    if attempt.get("lastSeenAt"):
        attempt["leaseExpiresAt"] = _later(attempt["lastSeenAt"], TIMING["leaseSeconds"] - 1)


def _claimed_again(app):
    """A second claim while the first one's lease runs hands the same worker out again."""
    first: dict[str, Any] = {}

    def hook(scope, status, headers, raw):
        if scope["method"] != "POST" or not scope["path"].endswith("/workers/claim") or status != 200:
            return status, headers, raw
        body = orjson.loads(raw)
        if body.get("assignment"):
            first.setdefault(scope["path"], body["assignment"])
        elif scope["path"] in first:
            raw = orjson.dumps({"assignment": first[scope["path"]]})
            headers = [(k, str(len(raw)).encode() if k == b"content-length" else v) for k, v in headers]
        return status, headers, raw

    return Rewrite(app, hook)


def _worker_pending(scope, body):
    if scope["path"].count("/workers/") == 1 and "worker" in body and not scope["path"].endswith("/claim"):
        body["worker"]["status"] = "pending"


BENCHSDK = [
    ("overall-median-is-mean", "A-96.1", json_answer(RESULTS, _overall_mean_as_median), RECORDS),
    ("participant-p95-is-p50", "A-96.2", json_answer(RESULTS, _participant_p95_low), RECORDS),
    ("step-median-is-mean", "A-96.3", json_answer(RESULTS, _step_p50_mean), RECORDS),
    ("participant-rate-counts-all", "A-96.4", json_answer(RESULTS, _participant_rate_of_all), RECORDS),
    ("claimed-worker-reads-pending", "A-41.1", json_answer(r"/workers/[^/]+$", _worker_pending), LEASE),
    ("claim-lease-30s-longer", "A-41.3", json_answer(r"/workers/claim$", _claim_lease_longer, "POST"), LEASE),
    ("claimed-twice", "A-42.2", _claimed_again, LEASE),
    ("heartbeat-renews-short", "A-48.2", json_answer(r"/heartbeat$", _heartbeat_lease_short, "POST"), LEASE),
    ("since-date-a-day-late", "A-93", query_rewrite(RUN_LIST, _since_day_shifted), DATES),
    ("participant-ignored", "A-94", query_rewrite(RUN_LIST, _without("participant")), DATES),
    ("silent-worker-never-stale", "A-48.3", json_answer(r"/progress$", _stale_read_running), LEASE),
    ("freshness-window-60s", "A-48.3",
     json_answer(r"/progress$", lambda s, b: b.__setitem__("freshnessWindowSeconds", 60)), LEASE),
]  # fmt: skip

# -- BenchGen ---------------------------------------------------------------------------------------------


def _benchgen(run: Callable[[Control, Exchange], Any]):
    def check(url: str):
        with httpx.Client(base_url=url, timeout=60) as http:
            control = Control(http)
            control.reset()
            run(control, Exchange(http, BENCHGEN_OPERATIONS, secrets={DEMO_TOKEN}))

    return check


EVERY_OPERATION = _benchgen(test_access.test_a_revocation_holds_on_every_operation)


def _status_serves_revoked(app):
    """`run_status` answers a token whose revocation window has passed as if it still held."""

    def hook(scope, status, headers, raw):
        if scope["path"].endswith("/run_status/") and status == 401:
            raw = orjson.dumps({"submission_id": 1, "status": "completed", "done": True, "score": 0.5, "error": None})
            kept = [(k, v) for k, v in headers if k not in (b"content-length", b"www-authenticate")]
            return 200, [*kept, (b"content-length", str(len(raw)).encode())], raw
        return status, headers, raw

    return Rewrite(app, hook)


def _error_before_done(scope, body):
    if body.get("done") is False:
        body["error"] = "still thinking"


# the polling check (`check_polling_is_throttled`) reads a run's status while it runs
POLLING = _benchgen(
    lambda control, exchange: test_runs.check_polling_is_throttled(exchange, World.on_mock(control, exchange))
)

BENCHGEN = [
    ("revoked-token-reads-status", "B-48.3", _status_serves_revoked, EVERY_OPERATION),
    ("error-before-done", "B-35.2", json_answer(r"/run_status/$", _error_before_done), POLLING),
]

# -- Bench ------------------------------------------------------------------------------------------------


def _bench(run: Callable[[Bench], Any]):
    def check(url: str):
        with httpx.Client(base_url=url, timeout=60) as http:
            assert http.post("/__mock/reset").status_code == 204
            run(Bench(http, BENCH_ENV["BENCH_API_KEY"], BENCH_ENV["BENCH_OAUTH_TOKEN"]))

    return check


EXCHANGE_ONLY_AUTHKIT = _bench(bench_credentials.check_exchange_takes_only_authkit_tokens)


def _exchanges(prefix: bytes):
    """The MCP token exchange mints a credential for any token starting with `prefix`."""

    def answer(scope, request_body, status, headers, raw):
        if scope["path"] == "/api/auth/mcp-token" and status == 401 and prefix in request_body:
            out = orjson.dumps({"credential": "bench_dev_oauth_minted", "token_type": "bearer", "expires_in": 3600})
            kept = [(k, v) for k, v in headers if k != b"content-length"]
            return 201, [*kept, (b"content-length", str(len(out)).encode())], out
        return None

    return lambda app: SharedRewrite(app, answer)


BENCH = [
    ("key-exchanged", "C-19.2", _exchanges(b'"bench_dev_key_'), EXCHANGE_ONLY_AUTHKIT),
    ("oauth-credential-exchanged", "C-20.4", _exchanges(b'"bench_dev_oauth_'), EXCHANGE_ONLY_AUTHKIT),
]

# -- the catalogue ----------------------------------------------------------------------------------------

CATALOGUE = (
    [("benchwright", n, c, w, _benchwright(check, **kw)) for n, c, w, check, kw in BENCHWRIGHT]
    + [("benchsdk", n, c, w, check) for n, c, w, check in BENCHSDK]
    + [("benchgen", n, c, w, check) for n, c, w, check in BENCHGEN]
    + [("bench", n, c, w, check) for n, c, w, check in BENCH]
)
CHECKS = {
    "benchwright": [_benchwright(ME), _benchwright(LIST), _benchwright(REVOKED, session=True)]
    + [_benchwright(MODES, policy=True), _benchwright(PREFLIGHT, policy=True, target=False)]
    + [_benchwright(check, events=True) for check in (ORDER, WINDOW, TYPES, HAS_MORE)],
    "benchsdk": [RECORDS, LEASE, DATES],
    "benchgen": [EVERY_OPERATION, POLLING],
    "bench": [EXCHANGE_ONLY_AUTHKIT],
}


@pytest.mark.parametrize(
    ("api", "name", "clause", "wrap", "check"), CATALOGUE, ids=[f"{d[0]}:{d[2]}:{d[1]}" for d in CATALOGUE]
)
def test_drift_is_caught_under_its_clause(api, name, clause, wrap, check):
    with served(wrap(create_app(api=api))) as url:
        found = caught(lambda: check(url))
    assert clause in found, f"{name}: expected a drift naming {clause}; the check named {sorted(found) or 'nothing'}"
    assert (clause_claim(clause) or clause) in found, f"{name}: {clause} is not filed under its claim"


@pytest.mark.parametrize("api", list(CHECKS))
def test_unmodified_mock_passes_the_clause_checks(api):
    for check in CHECKS[api]:
        with served(create_app(api=api)) as url:
            found = caught(lambda check=check, url=url: check(url))
        assert not found, f"{api}: drift reported on the unmodified mock: {sorted(found)}"
