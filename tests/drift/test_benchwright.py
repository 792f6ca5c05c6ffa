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

from contracts.benchwright.suite import test_etags, test_idempotency, test_pagination, test_scopes, test_sse
from contracts.runner import target as targets
from contracts.runner.http import SuiteClient
from contracts.runner.safety import Policy
from mock_server.app import create_app
from tests.benchwright.drift import Drifted, drop_query_parameter, drop_request_header
from tests.drift.harness import Rewrite, caught, crawl_drifts, on_headers, on_json, rows, served, set_status

TOKEN = "bw_live_pat_" + "ab12" * 10


def _crawl(url: str):
    return crawl_drifts("benchwright", url, {})


def _fixture(function):
    return getattr(function, "__wrapped__", None) or function.__pytest_wrapped__.obj


def _suite(check):
    """Run one of the suite's checks against `url` with the fixtures it needs, built as the suite builds them."""

    def run(url: str):
        target = targets.resolve({"BW_API_URL": url})
        policy = Policy(live=False)
        client = SuiteClient(target.base_url, policy, target.pat)
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
        target = targets.resolve({"BW_API_URL": url})
        client = SuiteClient(target.base_url, Policy(live=False), target.pat)
        try:
            check(target, _fixture(test_sse.finished)(client, target))
        finally:
            client.close()

    return run


def _clamp(check):
    def run(url: str):
        target = targets.resolve({"BW_API_URL": url})
        client = SuiteClient(target.base_url, Policy(live=False), target.pat)
        try:
            check(client, target, _fixture(test_pagination.many_runs)(client, target))
        finally:
            client.close()

    return run


def _traversal(url: str):
    target = targets.resolve({"BW_API_URL": url})
    client = SuiteClient(target.base_url, Policy(live=False), target.pat)
    try:
        test_pagination.test_traversal_yields_each_run_once(client, _fixture(test_pagination.many_runs)(client, target))
    finally:
        client.close()


def _expired(url: str):
    target = targets.resolve({"BW_API_URL": url})
    client = SuiteClient(target.base_url, Policy(live=False), target.pat)
    try:
        test_scopes.test_expired_token_gets_token_expired(client, target)
    finally:
        client.close()


def _scope_refusal(url: str):
    target = targets.resolve({"BW_API_URL": url})
    policy = Policy(live=False)
    client = SuiteClient(target.base_url, policy, target.pat)
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
    ("private-run-served-anonymously", "visibility", "visibility.anonymous",
     _anonymous_status(200, r"^/v1/runs/[^/]+/tasks$", range(404, 405)), CRAWL),
    ("public-run-refused-anonymously", "visibility", "visibility.anonymous",
     _anonymous_status(401, r"^/v1/runs/[^/]+$", range(200, 300)), CRAWL),
    ("registry-refuses-anonymous", "visibility", "visibility.anonymous",
     _anonymous_status(401, r"^/v1/registry/", range(200, 300)), CRAWL),
    ("rate-headers-on-anonymous", "rate limits", "ratelimit.headers", _anonymous_rate_headers, CRAWL),
    # identifiers and cursors, as read
    ("run-id-prefixed", "units", "ids.shape", runs(lambda row: row.__setitem__("id", f"run_{row['id']}")), CRAWL),
    ("transaction-id-bare", "units", "ids.shape", _json_rewrite(_bare_txn), CRAWL),
    ("subset-id-short-hash", "catalog", "ids.shape", every(_short_hash), CRAWL),
    ("cursor-page-total", "cursors", "pagination.traversal", _page(lambda p: p.__setitem__("total", 7)), CRAWL),
    ("has-more-without-token", "cursors", "pagination.traversal",
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
    ("created-at-without-offset", "units", "timestamps.rfc3339", runs(_local_time), CRAWL),
    ("created-at-epoch-string", "units", "timestamps.rfc3339", runs(_epoch_created), CRAWL),
    ("duration-ms-fractional", "units", "timestamps.rfc3339", every(_float_ms), CRAWL),
    ("cents-fractional", "units", "money.shape", every(_cents_float), CRAWL),
    ("currency-lowercase", "units", "money.shape", every(_currency_lower), CRAWL),
    ("usd-disagrees-with-cents", "derived", "money.shape", every(_usd_disagrees), CRAWL),
    # headers
    ("request-id-missing", "headers", "headers.request_id", headers(_drop(b"x-benchwright-request-id")), CRAWL),
    ("api-version-2", "headers", "headers.request_id", headers(_set_header(b"x-benchwright-api-version", b"2")), CRAWL),
    ("rate-headers-missing", "rate limits", "ratelimit.headers", headers(_drop(b"x-ratelimit-remaining")), CRAWL),
    ("rate-remaining-above-limit", "rate limits", "ratelimit.headers", headers(_remaining_above), CRAWL),
    ("rate-headers-not-numbers", "rate limits", "ratelimit.headers",
     headers(_set_header(b"x-ratelimit-reset", b"soon")), CRAWL),
    ("etag-strong", "preconditions", "etag.weak", headers(_strong_etag), CRAWL),
    # errors
    ("problem-as-plain-json", "errors", "errors.problem",
     headers(lambda t: t.__setitem__(b"content-type", b"application/json") if t.get(b"content-type", b"").startswith(
         b"application/problem") else None), CRAWL),
    ("problem-code-undocumented", "errors", "errors.problem", problems(_set("code", "not_a_documented_code")), CRAWL),
    ("problem-without-request-id", "errors", "errors.problem", problems(_pop("request_id")), CRAWL),
    ("problem-status-disagrees", "errors", "errors.problem", problems(lambda b: b.__setitem__("status", 400)), CRAWL),
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
          "sse": _sse_resume(test_sse.test_resume_is_strictly_after_last_event_id)}  # fmt: skip


@pytest.mark.parametrize("check", list(CHECKS))
def test_unmodified_mock_passes(check):
    """Every check of the catalogue finds nothing on the unmodified mock (no false positive)."""
    with served(create_app()) as url:
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
