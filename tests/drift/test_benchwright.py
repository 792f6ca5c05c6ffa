"""Benchwright's drift catalogue: each drift, injected around the unmodified mock, must be caught by the
contract check of the claim it breaks, and the check must name that claim.

Every case serves the drifted app once and runs only the checks relevant to its claim: the crawl
(`contracts.runner.crawl` with Benchwright's hooks: spec validation, conventions, semantic row checks)
or the suite's own semantic checks, called directly against the drifted server. The test ids carry the
class and the claim. `test_unmodified_mock_passes` runs the same checks on the unmodified mock for two
seeds by default; the ten-seed loop of the whole suite is `tests/drift/test_seeds.py` (marked slow).
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from contracts.benchwright.suite import (
    test_credentials,
    test_derived,
    test_disclosure,
    test_etags,
    test_idempotency,
    test_pagination,
    test_preconditions,
    test_rate_limits,
    test_scopes,
    test_sse,
)
from contracts.benchwright.suite._support import finished_run, new_session
from contracts.runner.http import SuiteClient
from contracts.runner.safety import RunPolicy
from contracts.runner.session import resolve
from mock_server.app import create_app
from mock_server.policies.idempotency import IdempotencyCache
from tests.benchwright.drift import (
    Drifted,
    GlobalIdempotency,
    InFlightDuplicates,
    InFlightQueued,
    StreamRewrite,
    drop_query_parameter,
    drop_request_header,
)
from tests.drift.harness import Rewrite, caught, crawl_drifts, on_headers, on_json, rows, served, set_status
from tests.drifting import Rewrite as SharedRewrite

TOKEN = "bw_live_pat_" + "ab12" * 10


def _crawl(url: str):
    return crawl_drifts("benchwright", url, {})


def _fixture(function):
    return getattr(function, "__wrapped__", None) or function.__pytest_wrapped__.obj


def _suite(check):
    """Run one of the suite's checks against `url` with the fixtures it needs, built as the suite builds them."""

    def run(url: str):
        target = resolve("benchwright", {"BW_API_URL": url})
        policy = RunPolicy(live=False)
        client = SuiteClient(target.base_url, policy, target.credential)
        try:
            check(client, target, policy)
        finally:
            client.close()

    return run


def _path(pattern: str):
    return lambda scope: re.search(pattern, scope["path"]) is not None


# -- JSON rewrites -------------------------------------------------------------------------------------


def tasks(fn):
    def hook(scope, status, headers, body):
        if scope["path"].endswith("/tasks") and isinstance(body, dict):
            for row in body.get("data") or []:
                fn(row)
        return status, body

    return lambda app: Drifted(app, response=hook)


def runs(fn):
    def hook(scope, status, headers, body):
        for row in rows(body):
            if row.get("object") == "run":
                fn(row)
        return status, body

    return lambda app: Drifted(app, response=hook)


def every(fn):
    """Each JSON object of every answer."""

    def walk(node):
        if isinstance(node, dict):
            fn(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    def hook(scope, status, headers, body):
        walk(body)
        return status, body

    return lambda app: Drifted(app, response=hook)


def problems(fn):
    def hook(scope, status, headers, body):
        if status >= 400 and isinstance(body, dict):
            fn(body)
        return status, body

    return lambda app: Drifted(app, response=hook)


def headers(fn, pattern: str = r"^/v1/"):
    return lambda app: Rewrite(
        app, on_headers(lambda scope, status, table: fn(table) if _path(pattern)(scope) else None)
    )


def _pop(key):
    return lambda row: row.pop(key, None)


def _set(key, value):
    return lambda row: row.__setitem__(key, value) if key in row else None


def _iso_timestamp(row):
    if isinstance(row.get("timestamp"), int):
        row["timestamp"] = "2026-04-24T12:05:01Z"


def _failed_passes(row):
    if isinstance(row.get("score"), int | float):
        row["passed"] = row["score"] < 1.0


def _ok_shows_error(row):
    if row.get("status") == "ok" and not row.get("halted"):
        row["display_status"] = "error"


def _halted_pass_through(row):
    row["halted"], row["halt_reason"] = True, "operator_pause: by contract"


def _local_time(row):
    if isinstance(row.get("created_at"), str):
        row["created_at"] = row["created_at"][:19]


def _epoch_created(row):
    if isinstance(row.get("created_at"), str):
        row["created_at"] = "1777039501003"


def _float_ms(row):
    for key in list(row):
        if key.endswith("_ms") and isinstance(row[key], int):
            row[key] = row[key] + 0.5


def _cents_float(row):
    if isinstance(row.get("amount_cents"), int):
        row["amount_cents"] = row["amount_cents"] + 0.25


def _currency_lower(row):
    if isinstance(row.get("currency"), str):
        row["currency"] = row["currency"].lower()


def _usd_disagrees(row):
    if isinstance(row.get("amount_cents"), int):
        row["amount_usd"] = (row["amount_cents"] + 7) / 100


def _secret_value(scope, status, body):
    if scope["path"] == "/v1/secrets" and isinstance(body, dict):
        body.setdefault("data", []).append({"name": "LEAKED", "value": "sk-or-leaked-secret-value"})


def _token_echo(scope, status, body):
    if scope["path"] == "/v1/tokens" and isinstance(body, dict):
        for row in body.get("data") or []:
            row["token"] = TOKEN


def _echo_bearer(app):
    """The server echoes the caller's own credential in every run row."""

    def hook(scope, status, headers, body):
        auth = dict(scope["headers"]).get(b"authorization", b"").decode().removeprefix("Bearer ")
        for row in rows(body):
            if row.get("object") == "run" and auth:
                row["launched_with"] = auth
        return status, body

    return Drifted(app, response=hook)


def _events_reversed(scope, status, body):
    if scope["path"].endswith("/events") and isinstance(body, dict) and isinstance(body.get("data"), list):
        body["data"].reverse()
        if len(body["data"]) < 2:
            body["data"] = body["data"] * 2


def _json_rewrite(fn):
    return lambda app: Rewrite(app, on_json(fn))


def _unclamped(app):
    for param in app.state.mock.router.by_id["listRuns"].params:
        if param.name == "limit":
            param.clamp = {"default": param.clamp["default"], "max": 10**9}
    return app


def _default_page(app):
    for param in app.state.mock.router.by_id["listRuns"].params:
        if param.name == "limit":
            param.clamp = {"default": param.clamp["default"] + 5, "max": param.clamp["max"]}
            param.absent = param.clamp["default"]  # what a request without `limit` gets (compiled once)
    return app


def _truncate_key(scope):
    scope["headers"] = [(k, v[:12] if k.lower() == b"idempotency-key" else v) for k, v in scope["headers"]]


def _expired_as_revoked(scope, status, headers, body):
    if isinstance(body, dict) and body.get("code") == "token_expired":
        body["code"] = "auth_required"
        body.pop("expired_at", None)
    return status, body


def _strong_etag(table):
    if b"etag" in table:
        table[b"etag"] = table[b"etag"].removeprefix(b"W/")


def _frozen_etag(table):
    if b"etag" in table:
        table[b"etag"] = re.sub(rb":\d+\"", b':1"', table[b"etag"])


def _drop(name: bytes):
    return lambda table: table.pop(name, None)


def _set_header(name: bytes, value: bytes):
    return lambda table: table.__setitem__(name, value) if name in table else None


def _remaining_above(table):
    if b"x-ratelimit-limit" in table:
        table[b"x-ratelimit-remaining"] = str(int(table[b"x-ratelimit-limit"]) + 10).encode()


def _html_active(table):
    table[b"content-type"] = b"text/html; charset=utf-8"
    table.pop(b"x-content-type-options", None)


def _anonymous(scope) -> bool:
    return not any(k.lower() in (b"authorization", b"cookie") for k, _ in scope["headers"])


def _anonymous_status(new: int, pattern: str, old: range):
    return lambda app: Rewrite(
        app, set_status(new, lambda s, st: _anonymous(s) and re.match(pattern, s["path"]) is not None and st in old)
    )


def _anonymous_rate_headers(app):
    def hook(scope, status, headers, raw):
        if _anonymous(scope) and scope["path"].startswith("/v1/"):
            headers = [*headers, (b"x-ratelimit-limit", b"600"), (b"x-ratelimit-remaining", b"599"),
                       (b"x-ratelimit-reset", b"60")]  # fmt: skip
        return status, headers, raw

    return Rewrite(app, hook)


def _page(fn):
    def hook(scope, status, headers, body):
        if isinstance(body, dict) and isinstance(body.get("pagination"), dict):
            fn(body["pagination"])
        return status, body

    return lambda app: Drifted(app, response=hook)


def _bare_txn(scope, status, body):
    if scope["path"] == "/v1/billing/transactions" and isinstance(body, dict):
        for row in body.get("data") or []:
            row["id"] = str(row["id"]).removeprefix("txn_")


def _short_hash(node):
    if isinstance(node.get("id"), str) and node["id"].startswith("sub_"):
        node["id"] = node["id"][:-4]


def _sse_resume(check):
    def run(url: str):
        target = resolve("benchwright", {"BW_API_URL": url})
        client = SuiteClient(target.base_url, RunPolicy(live=False), target.credential)
        try:
            check(target, _fixture(test_sse.finished)(client, target))
        finally:
            client.close()

    return run


def _clamp(check):
    def run(url: str):
        target = resolve("benchwright", {"BW_API_URL": url})
        client = SuiteClient(target.base_url, RunPolicy(live=False), target.credential)
        try:
            check(client, target, _fixture(test_pagination.many_runs)(client, target))
        finally:
            client.close()

    return run


def _traversal(url: str):
    target = resolve("benchwright", {"BW_API_URL": url})
    client = SuiteClient(target.base_url, RunPolicy(live=False), target.credential)
    try:
        test_pagination.test_traversal_yields_each_run_once(client, _fixture(test_pagination.many_runs)(client, target))
    finally:
        client.close()


def _expired(url: str):
    target = resolve("benchwright", {"BW_API_URL": url})
    client = SuiteClient(target.base_url, RunPolicy(live=False), target.credential)
    try:
        test_scopes.test_expired_token_gets_token_expired(client, target)
    finally:
        client.close()


def _scope_refusal(url: str):
    target = resolve("benchwright", {"BW_API_URL": url})
    policy = RunPolicy(live=False)
    client = SuiteClient(target.base_url, policy, target.credential)
    try:
        lacking = _fixture(test_scopes.tokens_lacking)(target, client)
        test_scopes.test_missing_scope_is_refused_with_required_scope(
            client, policy, lacking, "listSecrets", "secrets:read"
        )
    finally:
        client.close()


CRAWL, ETAGS = _crawl, _suite(test_etags.test_etag_races_and_lost_updates)
IDEMPOTENCY = _suite(
    lambda client, target, policy: test_idempotency.test_idempotent_replay_and_conflict(client, policy)
)
OVERLONG = _suite(lambda client, target, policy: test_idempotency.test_overlong_keys_are_refused(client, policy))
IGNORED = _suite(
    lambda client, target, policy: test_etags.test_ignored_if_match_routes_accept_stale_tags(client, policy)
)


def _with_session(check):
    """`_suite`, with a browser session of the suite's user as the check's `session_cookie`."""
    return _suite(lambda client, target, policy: check(client, target, policy, new_session(target)))


def _with_run(check):
    """`_suite`, with a run the suite launched and finished as the check's `spent_run`."""
    return _suite(lambda client, target, policy: check(client, finished_run(client, target)))


def _precondition(operation_id: str):
    marking = dict(test_preconditions.MARKED)[operation_id]
    return _with_session(
        lambda client, target, policy, session: test_preconditions.test_if_match_as_the_spec_marks_it(
            test_preconditions.Instances(client, target, policy, session),
            target,
            operation_id,
            marking,
            lambda *_: None,
        )
    )


def _session_only(operation_id: str):
    return _with_session(
        lambda client, target, policy, session: test_credentials.test_session_only_operations_refuse_a_pat(
            client, policy, session, operation_id
        )
    )


# -- idempotency, credentials, rate limits, streams: drifts of the suite's semantic checks -----------


def _key_scoped_by_cookie(scope):
    """Sessions of one user stop sharing keys: each cookie gets its own key space."""
    cookie = dict(scope["headers"]).get(b"cookie")
    if cookie:
        scope["headers"] = [(k, v + b"." + cookie[-8:] if k == b"idempotency-key" else v) for k, v in scope["headers"]]


class _KeysSurviveRotation(IdempotencyCache):
    """Keys tied to a token's id alone, so the rotated value replays what the old one sent."""

    @staticmethod
    def _scope(scope: str) -> str:
        return ":".join(scope.split(":")[:2])

    def begin(self, scope, key, fp, now):
        return super().begin(self._scope(scope), key, fp, now)

    def finish(self, scope, key, *rest):
        return super().finish(self._scope(scope), key, *rest)

    def abandon(self, scope, key):
        return super().abandon(self._scope(scope), key)


def _keys_survive_rotation(app):
    app.state.api.idempotency = _KeysSurviveRotation(app.state.api.idempotency.ttl_seconds)
    return app


class _KeepHashes(dict):
    """A hash table that never forgets a token's previous hash: the old value keeps working."""

    def pop(self, key, default=None):
        return self.get(key, default)


def _old_value_survives(app):
    app.state.api.store.token_ids_by_hash = _KeepHashes(app.state.api.store.token_ids_by_hash)
    return app


def _rotation_returns_a_dud(scope, status, body):
    if scope["path"].endswith(":rotate") and isinstance(body, dict) and "token" in body:
        body["token"] = "bw_live_pat_" + "d0d0" * 10


def _session_wins(scope):
    if dict(scope["headers"]).get(b"cookie"):
        scope["headers"] = [(k, v) for k, v in scope["headers"] if k != b"authorization"]


def _unknown_bearer_rejected(scope, status, headers, raw):
    """A bearer string that is no token is refused instead of falling through to the session."""
    sent = dict(scope["headers"])
    if scope["path"] == "/v1/tokens/me" and b"authorization" in sent and b'"auth_type":"session"' in raw:
        return 401, headers, b'{"code":"auth_required"}'
    return status, headers, raw


def _session_only_names_scope(scope, status, body):
    if status == 403 and isinstance(body, dict) and scope["path"].startswith("/v1/tokens"):
        body["required_scope"] = "tokens:write"


def _star_refused(scope, status):
    return (
        scope["method"] == "PATCH"
        and scope["path"].startswith("/v1/benchmarks/")
        and any(k == b"if-match" and v == b"*" for k, v in scope["headers"])
    )


def _enforced_on_impls(scope, status):
    return (
        scope["method"] == "PATCH"
        and scope["path"].startswith("/v1/impls/")
        and status < 300
        and any(k == b"if-match" and v != b"*" for k, v in scope["headers"])
    )


def _frozen_if_match(scope):
    """With `_frozen_etag`: a server whose one unchanging tag always matches (it never bumps the row)."""
    scope["headers"] = [(k, b"*" if k == b"if-match" and v.endswith(b':1"') else v) for k, v in scope["headers"]]


def _412_without_etag(scope, status, table):
    if status == 412:
        table.pop(b"etag", None)


def _remaining_frozen(table):
    if b"x-ratelimit-limit" in table:
        table[b"x-ratelimit-remaining"] = str(int(table[b"x-ratelimit-limit"]) - 1).encode()


def _counters_disagree(scope, status, body):
    if scope["path"] == "/v1/users/me/rate-limits" and isinstance(body, dict) and isinstance(body.get("read"), dict):
        body["read"]["remaining"] += 5


def _rate_headers_on_401(scope, status, headers, raw):
    if status == 401:
        headers = [*headers, (b"x-ratelimit-limit", b"600"), (b"x-ratelimit-remaining", b"599"),
                   (b"x-ratelimit-reset", b"60")]  # fmt: skip
    return status, headers, raw


PING_SECONDS = 0.5
PING = re.compile(rb"event: ping\r?\n\r?\n")


def _fast_pings(fn=None):
    """The mock pinging every PING_SECONDS (the check is told so), its streams rewritten by `fn`."""
    return lambda _app: StreamRewrite(create_app(sse_ping_seconds=PING_SECONDS), fn or (lambda chunk: chunk))


KEEPALIVE = _suite(
    lambda client, target, policy: test_sse.test_idle_stream_sends_keepalives(client, target, PING_SECONDS)
)


# -- derived fields and non-disclosure ----------------------------------------------------------------


def _on_path(path: str, fn):
    return lambda app: Drifted(app, response=lambda s, st, h, b: (st, fn(b) or b if s["path"] == path and
                                                                   isinstance(b, dict) else b))  # fmt: skip


def _newest_row_off(body):
    if body.get("data"):
        body["data"][0]["balance_after"]["amount_cents"] += 1


def _balance_off(body):
    if isinstance(body.get("balance"), dict):
        body["balance"]["amount_cents"] += 100


def _trend_off(body):
    if isinstance(body.get("current_month_cents"), int):
        body["current_month_cents"] += 1


def _token_spend_off(body):
    for row in body.get("data") or []:
        row["spent_cents_period"] += 1


def _incurred_without_model(row):
    cost = row.get("cost")
    if isinstance(cost, dict) and isinstance(cost.get("incurred"), dict) and cost.get("model", {}).get("amount_usd"):
        cost["incurred"]["amount_usd"] = round(cost["driver"]["amount_usd"] + cost["sandbox"]["amount_usd"], 6)


def _pass_rate_off(scope, status, headers, body):
    if scope["path"].endswith("/tasks") and isinstance(body, dict) and isinstance(body.get("summary"), dict):
        summary = body["summary"]  # half a unit off, so it differs whatever the run's real rate is
        summary["pass_rate"] = round((summary.get("pass_rate", 0) + 0.5) % 1, 4)
    return status, body


def _leak(request_path: str, read: str, take):
    """A server that remembers a credential value from one exchange (`take(request, answer)`)
    and shows it in the answers to `read` (a path prefix and suffix)."""
    seen: list[str] = []
    prefix, _, suffix = read.partition("*")

    def answer(scope, request, status, headers, raw):
        if scope["method"] == "POST" and scope["path"] == request_path and status < 300:
            found = take(request, raw)
            if found:
                seen.append(found)
        elif (
            scope["method"] == "GET"
            and seen
            and scope["path"].startswith(prefix)
            and scope["path"].endswith(suffix)
            and raw.startswith(b"{")
        ):
            raw = raw[:-1] + b',"debug_echo":"' + seen[-1].encode() + b'"}'
        return status, headers, raw

    return lambda app: SharedRewrite(app, answer)


def _json_field(name: str, source: str):
    import orjson

    def take(request, raw):
        try:
            return orjson.loads(request if source == "request" else raw).get(name)
        except (orjson.JSONDecodeError, AttributeError):
            return None

    return take


def _echo_secret_on_create(scope, request, status, headers, raw):
    import orjson

    if scope["method"] == "POST" and scope["path"] == "/v1/secrets" and status < 300 and raw.startswith(b"{"):
        body = orjson.loads(raw)
        body["value"] = orjson.loads(request).get("value")
        raw = orjson.dumps(body)
    return status, headers, raw


SCOPE = _with_session(
    lambda client, target, policy, session: test_idempotency.test_keys_are_scoped_to_the_caller(
        client, target, session, None
    )
)
ROTATION_KEYS = _with_session(
    lambda client, target, policy, session: test_idempotency.test_rotation_invalidates_the_tokens_keys(
        client, target, session, None
    )
)
IN_FLIGHT = _suite(test_idempotency.test_an_in_flight_retry_never_runs_twice)
ROTATION = _with_session(
    lambda client, target, policy, session: test_credentials.test_rotation_kills_the_old_value_at_once(
        client, target, session, None
    )
)
PRECEDENCE = _with_session(
    lambda client, target, policy, session: test_credentials.test_a_named_token_wins_over_the_session(
        client, target, session, None
    )
)
COUNTERS = _suite(
    lambda client, target, policy: test_rate_limits.test_remaining_counts_down_and_agrees_with_the_counters(
        client, target
    )
)
QUOTA = _suite(
    lambda client, target, policy: test_rate_limits.test_quota_exhausted_is_429_with_retry_after(target, None)
)
UNAUTHENTICATED = _suite(
    lambda client, target, policy: test_rate_limits.test_unauthenticated_answers_carry_no_counters(client, target)
)
LEDGER = _with_run(test_derived.test_ledger_rows_chain_to_the_balance)
MONTH = _with_run(test_derived.test_month_spent_is_the_months_debits)
TOKEN_SPEND = _with_run(test_derived.test_token_spend_matches_its_rollup)
COSTS = _with_run(test_derived.test_run_costs_add_up)
SUMMARY = _with_run(test_derived.test_task_summary_agrees_with_its_rows)
DISCLOSURE = _with_session(test_disclosure.test_no_answer_discloses_a_secret_or_token_value)


# (id, class, claim, wrap(app) -> app, check(url))
DRIFTS: list[tuple[str, str, str, Any, Any]] = [
    # streams and artifacts: the rows a client reads
    ("html-without-nosniff", "content", "artifacts.active_content",
     headers(_drop(b"x-content-type-options"), r"/content$"), CRAWL),
    ("html-served-active", "content", "artifacts.active_content", headers(_html_active, r"/content$"), CRAWL),
    ("error-class-null", "derived", "tasks.error_class", tasks(_set("error_class", None)), CRAWL),
    ("error-class-capitalised", "derived", "tasks.error_class", tasks(_set("error_class", "Timeout")), CRAWL),
    ("timestamp-iso", "units", "tasks.timestamp", tasks(_iso_timestamp), CRAWL),
    ("passed-disagrees-with-score", "derived", "tasks.passed", tasks(_failed_passes), CRAWL),
    ("display-status-unfolded", "derived", "lifecycle.display_status", runs(_ok_shows_error), CRAWL),
    ("halted-run-shows-status", "derived", "lifecycle.display_status", runs(_halted_pass_through), CRAWL),
    ("events-out-of-order", "streams", "sse.dedupe", _json_rewrite(_events_reversed), CRAWL),
    # non-disclosure
    ("secret-value-listed", "non-disclosure", "secrets.no_value", _json_rewrite(_secret_value), CRAWL),
    ("token-value-listed", "non-disclosure", "tokens.no_value", _json_rewrite(_token_echo), CRAWL),
    ("caller-credential-echoed", "non-disclosure", "crawl.non_disclosure", _echo_bearer, CRAWL),
    # visibility and anonymous access
    ("private-run-served-anonymously", "visibility", "§2.2#4",
     _anonymous_status(200, r"^/v1/runs/[^/]+/tasks$", range(404, 405)), CRAWL),
    ("public-run-refused-anonymously", "visibility", "§2.2#3",
     _anonymous_status(401, r"^/v1/runs/[^/]+$", range(200, 300)), CRAWL),
    ("registry-refuses-anonymous", "visibility", "visibility.anonymous",
     _anonymous_status(401, r"^/v1/registry/", range(200, 300)), CRAWL),
    ("rate-headers-on-anonymous", "rate limits", "§13#5", _anonymous_rate_headers, CRAWL),
    # identifiers and cursors, as read
    ("run-id-prefixed", "units", "ids.shape", runs(lambda row: row.__setitem__("id", f"run_{row['id']}")), CRAWL),
    ("transaction-id-bare", "units", "§3.1#2", _json_rewrite(_bare_txn), CRAWL),
    ("subset-id-short-hash", "catalog", "§3.1#3", every(_short_hash), CRAWL),
    ("cursor-page-total", "cursors", "§3.4#4", _page(lambda p: p.__setitem__("total", 7)), CRAWL),
    ("has-more-without-token", "cursors", "§3.4#5",
     _page(lambda p: p.update(has_more=True, next_page_token=None)), CRAWL),
    # filters, as a client reads them
    ("status-filter-ignored", "cursors", "runs.filter",
     lambda app: Drifted(app, request=drop_query_parameter("status", "/v1/runs")), CRAWL),
    ("artifact-type-filter-ignored", "cursors", "artifacts.filter",
     lambda app: Drifted(app, request=drop_query_parameter("type", "/artifacts")), CRAWL),
    ("task-passed-filter-ignored", "cursors", "tasks.filter",
     lambda app: Drifted(app, request=drop_query_parameter("passed", "/tasks")), CRAWL),
    ("unknown-filter-rejected", "errors", "filters.unknown",
     lambda app: Rewrite(app, set_status(400, lambda s, st: b"no_such_filter" in s.get("query_string", b""))), CRAWL),
    # units
    ("created-at-without-offset", "units", "§3.2#1", runs(_local_time), CRAWL),
    ("created-at-epoch-string", "units", "§3.2#1", runs(_epoch_created), CRAWL),
    ("duration-ms-fractional", "units", "§3.2#2", every(_float_ms), CRAWL),
    ("cents-fractional", "units", "money.shape", every(_cents_float), CRAWL),
    ("currency-lowercase", "units", "§3.3#2", every(_currency_lower), CRAWL),
    ("usd-disagrees-with-cents", "derived", "§3.3#3", every(_usd_disagrees), CRAWL),
    # headers
    ("request-id-missing", "headers", "headers.request_id", headers(_drop(b"x-benchwright-request-id")), CRAWL),
    ("api-version-2", "headers", "§1#2", headers(_set_header(b"x-benchwright-api-version", b"2")), CRAWL),
    ("rate-headers-missing", "rate limits", "ratelimit.headers", headers(_drop(b"x-ratelimit-remaining")), CRAWL),
    ("rate-remaining-above-limit", "rate limits", "§13#4", headers(_remaining_above), CRAWL),
    ("rate-headers-not-numbers", "rate limits", "§13#4",
     headers(_set_header(b"x-ratelimit-reset", b"soon")), CRAWL),
    ("etag-strong", "preconditions", "etag.weak", headers(_strong_etag), CRAWL),
    # errors
    ("problem-as-plain-json", "errors", "errors.problem",
     headers(lambda t: t.__setitem__(b"content-type", b"application/json") if t.get(b"content-type", b"").startswith(
         b"application/problem") else None), CRAWL),
    ("problem-code-undocumented", "errors", "§14#1", problems(_set("code", "not_a_documented_code")), CRAWL),
    ("problem-without-request-id", "errors", "§3.9#3", problems(_pop("request_id")), CRAWL),
    ("problem-status-disagrees", "errors", "§3.9#2", problems(lambda b: b.__setitem__("status", 400)), CRAWL),
    # spec
    ("dropped-required-field", "spec", "spec.schema", runs(_pop("display_status")), CRAWL),
    ("task-passed-as-string", "spec", "spec.schema", tasks(lambda row: row.__setitem__("passed", "yes")), CRAWL),
    ("undocumented-status", "spec", "spec.status",
     lambda app: Rewrite(app, set_status(203, lambda s, st: s["path"] == "/v1/runs" and st == 200)), CRAWL),
    ("server-error-on-tasks", "spec", "spec.server_error",
     lambda app: Rewrite(app, set_status(500, lambda s, st: s["path"].endswith("/tasks"))), CRAWL),
    ("json-as-text", "spec", "spec.content_type",
     headers(lambda t: t.__setitem__(b"content-type", b"text/plain") if t.get(b"content-type") == b"application/json"
             else None, r"^/v1/runs$"), CRAWL),
    # preconditions, idempotency, cursors, credentials, streams: the suite's semantic checks
    ("ignored-if-match", "preconditions", "etag.if_match",
     lambda app: Drifted(app, request=drop_request_header(b"if-match", method="PATCH")), ETAGS),
    ("etag-does-not-move", "preconditions", "etag.if_match", headers(_frozen_etag), ETAGS),
    ("if-match-enforced-where-ignored", "preconditions", "etag.ignored",
     lambda app: Rewrite(app, set_status(412, lambda s, st: s["method"] == "PATCH" and st < 300 and any(
         k == b"if-match" for k, _ in s["headers"]) and s["path"].startswith("/v1/secrets/"))), IGNORED),
    ("replay-header-missing", "idempotency", "idempotency.replay",
     headers(_drop(b"idempotent-replayed")), IDEMPOTENCY),
    ("idempotency-key-ignored", "idempotency", "idempotency.conflict",
     lambda app: Drifted(app, request=drop_request_header(b"idempotency-key")), IDEMPOTENCY),
    ("overlong-key-accepted", "idempotency", "idempotency.length", lambda app: Drifted(app, request=_truncate_key),
     OVERLONG),
    ("unclamped-page", "cursors", "pagination.clamp", _unclamped, _clamp(test_pagination.test_runs_clamp_and_default)),
    ("default-page-size", "cursors", "pagination.default", _default_page,
     _clamp(test_pagination.test_runs_clamp_and_default)),
    ("page-token-ignored", "cursors", "pagination.traversal",
     lambda app: Drifted(app, request=drop_query_parameter("page_token", "/v1/runs")), _traversal),
    ("expired-token-as-revoked", "credentials", "auth.expired", lambda app: Drifted(app, response=_expired_as_revoked),
     _expired),
    ("scope-refusal-without-required-scope", "authorization", "scopes.enforced",
     lambda app: Drifted(app, response=lambda s, st, h, b: (st, {k: v for k, v in b.items() if k != "required_scope"}
                                                             if isinstance(b, dict) else b)), _scope_refusal),
    ("sse-ignores-last-event-id", "streams", "sse.resume",
     lambda app: Drifted(app, request=lambda s: (drop_request_header(b"last-event-id", ":stream")(s),
                                                 drop_query_parameter("last_event_id", ":stream")(s))),
     _sse_resume(test_sse.test_resume_is_strictly_after_last_event_id)),
    # idempotency (§3.7): per-caller keys, rotation, in-flight retries
    ("keys-shared-across-callers", "idempotency", "idempotency.scope", GlobalIdempotency, SCOPE),
    ("sessions-do-not-share-keys", "idempotency", "§3.7#7",
     lambda app: Drifted(app, request=_key_scoped_by_cookie), SCOPE),
    ("keys-survive-rotation", "idempotency", "idempotency.rotation", _keys_survive_rotation, ROTATION_KEYS),
    ("in-flight-retry-executes", "idempotency", "idempotency.in_flight", InFlightDuplicates, IN_FLIGHT),
    ("in-flight-retry-queued-then-replayed", "idempotency", "idempotency.in_flight", InFlightQueued, IN_FLIGHT),
    # preconditions (§3.8) on the routes the spec marks x-if-match
    ("star-refused-on-benchmarks", "preconditions", "etag.star",
     lambda app: Rewrite(app, set_status(412, _star_refused)), _precondition("patchBenchmark")),
    ("build-etag-never-moves", "preconditions", "etag.moves",
     lambda app: Rewrite(Drifted(app, request=_frozen_if_match), on_headers(
         lambda s, st, t: _frozen_etag(t) if s["path"].startswith("/v1/build/") else None)),
     _precondition("patchBuildSubsetRecipe")),
    ("recipe-ignores-if-match", "preconditions", "etag.if_match",
     lambda app: Drifted(app, request=drop_request_header(b"if-match", "/recipe", "PATCH")),
     _precondition("patchBuildSubsetRecipe")),
    ("412-without-current-etag", "preconditions", "§3.8#6",
     lambda app: Rewrite(app, on_headers(_412_without_etag)), _precondition("patchBenchmark")),
    ("impls-enforce-if-match", "preconditions", "etag.ignored",
     lambda app: Rewrite(app, set_status(412, _enforced_on_impls)), _precondition("patchImpl")),
    # rate limits (§13)
    ("remaining-frozen", "rate limits", "ratelimit.counters", headers(_remaining_frozen), COUNTERS),
    ("counters-disagree-with-headers", "rate limits", "§13#7", _json_rewrite(_counters_disagree),
     COUNTERS),
    ("429-without-retry-after", "rate limits", "§13#6", headers(_drop(b"retry-after")), QUOTA),
    ("429-code-renamed", "rate limits", "ratelimit.exceeded",
     problems(lambda b: b.__setitem__("code", "too_many_requests") if b.get("status") == 429 else None), QUOTA),
    ("quota-not-enforced", "rate limits", "ratelimit.exceeded",
     lambda app: Rewrite(app, set_status(200, lambda s, st: st == 429)), QUOTA),
    ("rate-headers-on-401", "rate limits", "§13#5", lambda app: Rewrite(app, _rate_headers_on_401),
     UNAUTHENTICATED),
    # SSE keep-alives (§5.2)
    ("keepalives-dropped", "streams", "sse.keepalive", _fast_pings(lambda c: PING.sub(b"", c)),
     KEEPALIVE),
    ("keepalives-as-comments", "streams", "sse.keepalive",
     _fast_pings(lambda c: PING.sub(b": ping\n\n", c)), KEEPALIVE),
    # token states and precedence (§2.4)
    ("rotated-value-is-a-dud", "credentials", "auth.rotation", _json_rewrite(_rotation_returns_a_dud), ROTATION),
    ("old-value-survives-rotation", "credentials", "auth.rotation", _old_value_survives, ROTATION),
    ("session-wins-over-expired-token", "credentials", "auth.precedence",
     lambda app: Drifted(app, request=_session_wins), PRECEDENCE),
    ("unknown-bearer-rejected", "credentials", "auth.precedence", lambda app: Rewrite(app, _unknown_bearer_rejected),
     PRECEDENCE),
    # session-only operations (§2.4)
    ("pat-mints-tokens", "authorization", "auth.session_only",
     lambda app: Rewrite(app, set_status(201, lambda s, st: s["path"] == "/v1/tokens" and st == 403)),
     _session_only("createToken")),
    ("session-only-refusal-names-a-scope", "authorization", "§2.4#13",
     _json_rewrite(_session_only_names_scope), _session_only("patchToken")),
    ("session-refused-on-rotate", "authorization", "§2.4#14",
     lambda app: Rewrite(app, set_status(403, lambda s, st: s["path"].endswith(":rotate") and b"cookie" in dict(
         s["headers"]))), _session_only("rotateToken")),
    # derived fields agree with their sources
    ("ledger-row-off-by-a-cent", "derived", "billing.ledger", _on_path("/v1/billing/transactions", _newest_row_off),
     LEDGER),
    ("balance-disagrees-with-ledger", "derived", "§10.1#1", _on_path("/v1/billing/balance", _balance_off),
     LEDGER),
    ("trend-disagrees-with-month-spent", "derived", "billing.month_spent",
     _on_path("/v1/billing/usage-trend", _trend_off), MONTH),
    ("token-spend-list-disagrees", "derived", "tokens.spending", _on_path("/v1/tokens", _token_spend_off), TOKEN_SPEND),
    ("incurred-without-model", "derived", "runs.cost", runs(_incurred_without_model), COSTS),
    ("pass-rate-off", "derived", "tasks.summary", lambda app: Drifted(app, response=_pass_rate_off), SUMMARY),
    # non-disclosure on every readable surface
    ("secret-value-on-host-policy", "non-disclosure", "secrets.no_value",
     _leak("/v1/secrets", "/v1/host-policy*", _json_field("value", "request")), DISCLOSURE),
    ("token-value-on-spending", "non-disclosure", "tokens.no_value",
     _leak("/v1/tokens", "/v1/tokens/*/spending", _json_field("token", "answer")), DISCLOSURE),
    ("secret-value-echoed-on-create", "non-disclosure", "secrets.no_value",
     lambda app: SharedRewrite(app, _echo_secret_on_create), DISCLOSURE),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "kind", "claim", "wrap", "check"), DRIFTS, ids=[f"{d[1]}:{d[2]}:{d[0]}" for d in DRIFTS]
)
def test_drift_is_caught_and_names_its_claim(name, kind, claim, wrap, check):
    with served(wrap(create_app())) as url:
        found = caught(lambda: check(url))
    assert claim in found, f"{name}: expected a drift under {claim!r}; the check reported {sorted(found) or 'nothing'}"


CHECKS = {"crawl": CRAWL, "etags": ETAGS, "idempotency": IDEMPOTENCY, "overlong": OVERLONG, "ignored": IGNORED,
          "expired": _expired, "scopes": _scope_refusal, "traversal": _traversal,
          "clamp": _clamp(test_pagination.test_runs_clamp_and_default),
          "sse": _sse_resume(test_sse.test_resume_is_strictly_after_last_event_id),
          "idempotency-scope": SCOPE, "idempotency-rotation": ROTATION_KEYS, "in-flight": IN_FLIGHT,
          **{f"if-match-{name}": _precondition(name) for name, _ in test_preconditions.MARKED},
          "rate-counters": COUNTERS, "quota": QUOTA, "unauthenticated": UNAUTHENTICATED, "keepalive": KEEPALIVE,
          "rotation": ROTATION, "precedence": PRECEDENCE,
          **{f"session-only-{name}": _session_only(name) for name in test_credentials.SESSION_ONLY},
          "ledger": LEDGER, "month-spent": MONTH, "token-spend": TOKEN_SPEND, "costs": COSTS, "summary": SUMMARY,
          "disclosure": DISCLOSURE}  # fmt: skip
# checks that read the mock as configured for them (the keep-alive interval they are told)
APPS = {"keepalive": lambda: create_app(sse_ping_seconds=PING_SECONDS)}


@pytest.mark.parametrize("check", list(CHECKS))
def test_unmodified_mock_passes(check):
    """Every check of the catalogue finds nothing on the unmodified mock (no false positive)."""
    with served(APPS.get(check, create_app)()) as url:
        found = caught(lambda: CHECKS[check](url))
    assert not found, f"{check} reported drift on the unmodified mock: {sorted(found)}"


def test_ready_credentials_of_the_embedded_mock_authenticate():
    """The runner's embedded mock is the mock as served (`serve_options`): the credential its
    `ready_credentials()` name is seeded and authenticates; a mock that seeded none names none."""
    plain = create_app()
    assert plain.state.api.profile.ready_credentials(plain.state.api) == {}
    app = create_app(**plain.state.api.profile.serve_options)
    token = app.state.api.profile.ready_credentials(app.state.api)["BW_PAT"]
    with served(app) as url:
        response = httpx.get(f"{url}/v1/tokens/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert response.status_code == 200, f"the ready credential is refused: {response.status_code}"
