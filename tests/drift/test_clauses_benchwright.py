"""Benchwright's drift catalogue clause by clause, for the clauses no drift of tests/drift/test_benchwright*.py
breaks alone (contracts/benchwright/clauses.py): each drift, injected around the unmodified mock, breaks
one clause, and the check that asserts the clause must catch it and name it (its clause id, or the suite
claim id the clause lists in `via`), filed under the clause's section. The unmodified mock passes the
same checks. Ids are `kind:<clause>:<name>` (tests/drift/test_clause_drifts.py reads them).

§2.0 the /api surface, §2.1 a token's shape, rotation and last use, §2.4#8 revocation, §4.2.1/§4.2.2
the natural-language and pinned launches, §4.4 child_forks, §4.6 halt, §4.8#4 the restamped
fingerprint, §4.11 pause and resume, §5.1#8 the events page size, §5.2 the stream's shape and end,
§10.1#2 month_spent, §2.3 provider keys apart from the PAT, §2.5 teams and the payer, §3.6 expansion,
§9.2#1 rule validation, §12a#1 an operator runs, §3.10 null versus missing,
§4.2.5 each preflight refusal, §4.5#2 the visibility filter, §10.9 the subscription's answers,
§4.6/§4.11 halt, pause and resume, §8.7#2 the same code's impl id, §10.7 the export,
§9a.2 the launches that skip the serving check, §9.5 the rule routes, §4.2.3 the replay's root, model,
sample count and phases, §5.3 event identity, §3.5 the filter operators and sorts, §4.2.1 the
natural-language launch's keys, §4.2.2 the pinned row, §4.2.4 the launch answer, §9.1 the
secret list's rules and injections, §6.5 the report route's gate, §9.4 deleting
a secret, §10.10 verifying a checkout,
§2.3's vice versa (a PAT rotation keeps the secrets), §8.2 the benchmark detail, §4.2.1's ceilings
(run, phase and task levels, `run.cost` on the incurred cost), its pre-`limits` spellings and the
`proxy_linger_seconds` clamp."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode

import orjson
import pytest

from contracts.benchwright.suite import (
    test_account_flows,
    test_ceilings,
    test_credentials,
    test_derived,
    test_filters,
    test_launch_modes,
    test_lifecycle,
    test_local_egress,
    test_pagination,
    test_registry,
    test_run_resources,
    test_scopes,
    test_sse,
    test_teams,
    test_vault,
)
from contracts.benchwright.suite._support import finished_run, new_session
from contracts.runner.claims import CLAIMS
from contracts.runner.http import SuiteClient
from contracts.runner.safety import RunPolicy
from contracts.runner.session import resolve
from mock_server.app import create_app
from tests.benchwright.drift import Drifted, StreamRewrite, drop_query_parameter
from tests.drift.harness import Rewrite, caught, crawl_drifts, served, set_status
from tests.drifting import Rewrite as SharedRewrite

# -- running one suite check with the fixtures it takes -------------------------------------------------


def _fixture(function):
    return getattr(function, "__wrapped__", None) or function.__pytest_wrapped__.obj


FIXTURES: dict[str, Callable[[Any, Any, RunPolicy], Any]] = {
    "client": lambda client, target, policy: client,
    "target": lambda client, target, policy: target,
    "policy": lambda client, target, policy: policy,
    "session_cookie": lambda client, target, policy: new_session(target),
    "mock_only": lambda client, target, policy: None,
    "spent_run": lambda client, target, policy: finished_run(client, target),
    "finished": lambda client, target, policy: _fixture(test_sse.finished)(client, target),
    "benchmark": lambda client, target, policy: _fixture(test_registry.benchmark)(client, policy),
}


def check(function: Callable[..., Any], *fixtures: str) -> Callable[[str], Any]:
    """`function` (a suite check) against the served app at `url`, its fixtures built as the suite builds them."""

    def run(url: str):
        target = resolve("benchwright", {"BW_API_URL": url})
        policy = RunPolicy(live=False)
        client = SuiteClient(target.base_url, policy, target.credential)
        try:
            function(*(FIXTURES[name](client, target, policy) for name in fixtures))
        finally:
            client.close()

    return run


REVOKED = check(test_scopes.test_revoked_token_gets_auth_required, "client", "target", "session_cookie", "mock_only")
ROTATION = check(
    test_credentials.test_rotation_kills_the_old_value_at_once, "client", "target", "session_cookie", "mock_only"
)
API_PREFIX = check(test_credentials.test_api_prefix_expects_a_browser_session, "client")
EVENT_CLAMP = check(test_pagination.test_event_clamp, "client", "target")
MODES = check(test_launch_modes.test_each_launch_mode_answers_the_one_202_shape, "client", "target", "policy")
FORK = check(test_run_resources.test_fork_derives_from_its_parent, "client", "target", "policy", "mock_only")
PATCH = check(test_run_resources.test_patch_takes_two_fields, "client", "target", "policy", "mock_only")
STREAM = check(test_sse.test_finished_run_backfills_then_run_finished, "target", "finished")
MONTH = check(test_derived.test_month_spent_is_the_months_debits, "client", "spent_run")
TEAM = check(test_teams.test_my_team_and_the_payer, "client")
SECOND_TEAM = check(test_teams.test_a_second_team_is_refused, "client", "target", "policy", "mock_only")
PROVIDER_KEY = check(test_teams.test_rotating_a_provider_key_keeps_the_pat, "client", "policy")
EXPAND = check(test_account_flows.test_balance_expansion_is_validated, "client")
RULES = check(test_vault.test_inline_rules_validate_and_allow_their_hosts, "client", "policy")
OPERATOR = check(test_account_flows.test_operator_lifecycle, "client", "target", "policy", "mock_only")
NULLS = check(test_run_resources.test_null_is_known_and_absent_missing_is_not_applicable, "client", "target")
PREFLIGHT = check(test_launch_modes.test_preflight_errors_create_no_run, "client", "policy")


def CRAWL(url: str):
    """The crawl of the served app's data with Benchwright's hooks (conventions, filters, row checks)."""
    return crawl_drifts("benchwright", url, {})


SUBSCRIPTION = check(test_account_flows.test_subscription_and_verification, "client", "target", "policy", "mock_only")
IMPL = check(test_registry.test_impls_are_content_addressed, "client", "policy", "benchmark")
EXPORT = check(test_account_flows.test_export_is_the_ledger, "client")
PINNED = check(test_local_egress.test_pinned_launch_needs_a_serving_machine, "client", "target", "policy", "mock_only")
RULE_ROUTES = check(test_vault.test_rule_routes_and_delete_withdraw_entries, "client", "policy")
REPLAY = check(
    test_launch_modes.test_replay_resolves_its_root_model_and_sample_count, "client", "target", "policy", "mock_only"
)
EVENT_IDS = check(test_sse.test_event_ids_identify_events_across_runs_and_reads, "client", "target", "finished")
FILTER_OPS = check(test_filters.test_filter_operators_and_sorts, "client", "target", "policy")
NL_KEYS = check(test_launch_modes.test_natural_language_launch_keys, "client", "target", "policy")
PINNED_ROW = check(
    test_launch_modes.test_pinned_launch_resolves_the_catalog_row, "client", "target", "policy", "mock_only"
)
DETAIL = check(test_registry.test_detail_lists_the_tree, "client")
CEILINGS = check(test_ceilings.test_run_and_phase_ceilings_stop_the_run, "client", "target", "policy", "mock_only")
TASK_CEILINGS = check(test_ceilings.test_task_ceilings_stop_only_their_task, "client", "target", "policy", "mock_only")
LEGACY_LIMITS = check(
    test_ceilings.test_legacy_limit_spellings_mean_their_ceilings, "client", "target", "policy", "mock_only"
)
LINGER = check(test_ceilings.test_proxy_linger_is_clamped, "client", "target", "policy", "mock_only")
HALT = check(test_lifecycle.test_halt_and_pause_answer_as_documented, "client", "target", "policy", "mock_only")

# -- drifts ----------------------------------------------------------------------------------------------

RUN = r"^/v1/runs/[^/:]+$"


def answer(pattern: str, fn: Callable[[dict[str, Any], dict[str, Any]], Any], method: str = "GET"):
    """Edit the JSON object answers of `method` requests on `/v1` paths matching `pattern` (`fn(scope, body)`)."""
    rx = re.compile(pattern)

    def hook(scope, status, headers, body):
        if scope["method"] == method and rx.search(scope["path"]) and isinstance(body, dict):
            fn(scope, body)
        return status, body

    return lambda app: Drifted(app, response=hook)


def _revoked_as_expired(scope, body):
    if body.get("code") == "auth_required" and body.get("status") == 401:
        body["code"] = "token_expired"


def _rotated_unprefixed(scope, body):
    if isinstance(body.get("token"), str):
        body["token"] = body["token"].removeprefix("bw_live_pat_")


def _rotated_under_another_id(scope, body):
    if "token" in body:
        body["id"] = str(uuid.UUID(int=1))


def _never_used(scope, body):
    for row in body.get("data") or []:
        row["last_used_at"] = None


def _default_page_100(scope):
    query = scope.get("query_string", b"")
    if re.search(r"/v1/runs/[^/]+/events$", scope["path"]) and b"limit=" not in query:
        scope["query_string"] = query + (b"&" if query else b"") + b"limit=100"


def _natural_language_refused(scope, request, status, headers, raw):
    if scope["method"] == "POST" and scope["path"] == "/v1/runs" and b'"request"' in request and status == 202:
        return 400, headers, raw
    return None


def _pinned_reads_another_benchmark(scope, body):
    if "mmlu" in str(body.get("benchmark_id") or "").lower():
        body["benchmark_id"] = "bm_gsm8k"


def _child_forks_empty(scope, body):
    if "child_forks" in body:
        body["child_forks"] = []


def _fingerprint_stale(scope, body):
    if body.get("fingerprint_hash"):
        body["fingerprint_hash"] = "0" * 64


def _month_spent_off(scope, body):
    if scope["path"] == "/v1/billing/balance" and isinstance(body.get("month_spent"), dict):
        body["month_spent"]["amount_cents"] += 1
    if scope["path"] == "/v1/billing/usage-trend" and isinstance(body.get("current_month_cents"), int):
        body["current_month_cents"] += 1


def _halt_reason_dropped(scope, body):
    if isinstance(body.get("halt_reason"), str):
        body["halt_reason"] = body["halt_reason"].split(":")[0]


def _owner_without_team(scope, body):
    if body.get("team") is None and "is_owner" in body:
        body["is_owner"] = True


def _payer_dropped(scope, body):
    body.get("meta", {}).pop("payer", None)


def _rotation_revokes_the_pat(app):
    """Rotating a secret's value revokes the caller's PAT: every later request is 401."""
    rotated: list[bool] = []

    def request(scope):
        if scope["method"] == "PATCH" and scope["path"].startswith("/v1/secrets/"):
            rotated.append(True)

    def hook(scope, status, headers, raw):
        if rotated and scope["path"] == "/v1/tokens/me":
            return 401, headers, raw
        return status, headers, raw

    return Rewrite(app, hook, request)


def _cookie_rule_accepted(scope, request, status, headers, raw):
    """An inline rule injecting into a cookie (a kind the reference does not list) is taken."""
    if scope["method"] == "POST" and scope["path"] == "/v1/secrets" and status == 400 and b'"cookie"' in request:
        return 201, headers, raw
    return None


def _operators_never_run(scope, body):
    for row in body.get("data") or []:
        if row.get("status") == "running":
            row["status"] = "booting"


def _list_rows_carry_inference(scope, body):
    """A detail-only field served on list rows as null: "not applicable" spelled as "unknown"."""
    for row in body.get("data") or []:
        row.setdefault("inference", None)


def _refusal_status(clause_body: bytes, status: int, was: int | None = None):
    """A launch whose request carries `clause_body`, refused (or answered `was`), answers `status` instead."""

    def answer(scope, request, old, headers, raw):
        if scope["method"] != "POST" or scope["path"] != "/v1/runs" or clause_body not in request:
            return None
        return (status, headers, raw) if (old == was if was is not None else old >= 400) else None

    return lambda app: SharedRewrite(app, answer)


def _refusal_creates_a_run(app):
    """A refused launch still leaves a run behind: every later run list holds one more row."""
    refused: list[bool] = []

    def answer(scope, request, status, headers, raw):
        if scope["method"] == "POST" and scope["path"] == "/v1/runs" and status >= 400:
            refused.append(True)
        elif scope["method"] == "GET" and scope["path"] == "/v1/runs" and refused and raw.startswith(b"{"):
            body = orjson.loads(raw)
            body["data"].append({"id": str(uuid.uuid4()), "object": "run", "status": "launching"})
            out = orjson.dumps(body)
            kept = [(k, v) for k, v in headers if k != b"content-length"]
            return status, [*kept, (b"content-length", str(len(out)).encode())], out
        return None

    return SharedRewrite(app, answer)


def _phase_breakdown_dropped(scope, body):
    body.pop("phase_breakdown", None)


def _subscription_answer(tier: bytes, status: int, out: bytes):
    """`POST /v1/billing/subscription` for `tier` answers `status` with `out`."""

    def answer(scope, request, old, headers, raw):
        if scope["method"] == "POST" and scope["path"] == "/v1/billing/subscription" and tier in request:
            kept = [(k, v) for k, v in headers if k not in (b"content-length", b"content-type")]
            return (
                status,
                [*kept, (b"content-type", b"application/json"), (b"content-length", str(len(out)).encode())],
                out,
            )
        return None

    return answer


def _same_code_new_id(app):
    """An impl registered again under the same code is minted a new id."""
    seen: set[bytes] = set()

    def answer(scope, request, status, headers, raw):
        if scope["method"] != "POST" or scope["path"] != "/v1/impls" or status >= 300 or not raw.startswith(b"{"):
            return None
        body, code = orjson.loads(raw), str(orjson.loads(request).get("code")).encode()
        if code in seen:
            body["id"] = f"{body.get('id')}-again"
        seen.add(code)
        out = orjson.dumps(body)
        kept = [(k, v) for k, v in headers if k != b"content-length"]
        return status, [*kept, (b"content-length", str(len(out)).encode())], out

    return SharedRewrite(app, answer)


def _export_drops_a_row(scope, status, headers, raw):
    if scope["path"] == "/v1/billing/export" and b"type=runs" not in scope.get("query_string", b""):
        lines = raw.rstrip(b"\r\n").split(b"\n")
        raw = b"\n".join(lines[:-1]) + b"\n" if len(lines) > 1 else raw
        headers = [(k, str(len(raw)).encode() if k == b"content-length" else v) for k, v in headers]
    return status, headers, raw


def _runs_export_renamed(scope, status, headers, raw):
    if scope["path"] == "/v1/billing/export" and b"type=runs" in scope.get("query_string", b""):
        _, _, rest = raw.partition(b"\n")
        raw = b"id,amount_cents" + b"\n" + rest
        headers = [(k, str(len(raw)).encode() if k == b"content-length" else v) for k, v in headers]
    return status, headers, raw


def _rule_routes_host_not_allowed(scope, body):
    body["data"] = [row for row in body.get("data") or [] if row.get("source") != "auto_from_secret"]


RULE = re.compile(r"^/v1/secrets/[^/]+/rules/[^/]+$")


def _rule_delete_ignored(app):
    """A rule DELETE answers 204 and deletes nothing."""

    def request(scope):
        if scope["method"] == "DELETE" and RULE.match(scope["path"]):
            scope["method"] = "GET"
            scope["ignored_delete"] = True

    def hook(scope, status, headers, raw):
        if not scope.get("ignored_delete"):
            return status, headers, raw
        return 204, [(k, v) for k, v in headers if k not in (b"content-length", b"content-type")], b""

    return Rewrite(app, hook, request)


def _encoded(status: int, headers: list, body: Any) -> tuple[int, list, bytes]:
    out = orjson.dumps(body)
    kept = [(k, v) for k, v in headers if k != b"content-length"]
    return status, [*kept, (b"content-length", str(len(out)).encode())], out


def _launches(marker: bytes, edit: Callable[[dict[str, Any], dict[str, Any]], None]):
    """Each read of a run launched with `marker` in its body is edited by `edit(run, launch request)`."""

    def wrap(app):
        sent: dict[str, dict[str, Any]] = {}

        def answer(scope, request, status, headers, raw):
            path = scope["path"]
            if scope["method"] == "POST" and path == "/v1/runs" and status == 202 and marker in request:
                sent[orjson.loads(raw)["id"]] = orjson.loads(request)
            elif scope["method"] == "GET" and path.rpartition("/")[2] in sent and raw.startswith(b"{"):
                body = orjson.loads(raw)
                edit(body, sent[path.rpartition("/")[2]])
                return _encoded(status, headers, body)
            return None

        return SharedRewrite(app, answer)

    return wrap


def _replays(edit: Callable[[dict[str, Any], dict[str, Any]], None]):
    """Each read of a run launched as a replay is edited by `edit(run, launch request)`."""
    return _launches(b'"replay"', edit)


def _set(field: str, value: Any) -> Callable[[dict[str, Any], dict[str, Any]], None]:
    return lambda run, request: run.__setitem__(field, value)


def _prefix_kept(run, request):
    if str(request.get("benchmark")).startswith("bm_"):
        run["benchmark_id"] = f"bm_{run.get('benchmark_id')}"


def _launch_answer(edit: Callable[[dict[str, Any]], None]):
    return answer(r"^/v1/runs$", lambda scope, body: edit(body) if body.get("status") == "launching" else None, "POST")


def _rule_ids_prefixed(scope, body):
    for secret in body.get("data") or []:
        for rule in secret.get("rules") or []:
            rule["id"] = f"rule_{rule.get('id')}"


def _injections_as_objects(scope, body):
    for secret in body.get("data") or []:
        secret["injections"] = [{"surface": surface} for surface in secret.get("injections") or []]


def _report_needs_a_credential(scope, request, status, headers, raw):
    """The report route refuses a caller without credentials, whatever the run's visibility."""
    anonymous = not any(k in (b"authorization", b"cookie") for k, _ in scope.get("headers", []))
    if scope["method"] == "GET" and scope["path"].endswith("/report") and anonymous:
        out = orjson.dumps({"type": "about:blank", "title": "Unauthorized", "status": 401, "code": "auth_required",
                            "detail": "sign in to read this report"})  # fmt: skip
        kept = [(k, v) for k, v in headers if k not in (b"location", b"content-length", b"content-type")]
        return 401, [*kept, (b"content-type", b"application/problem+json"), (b"content-length", b"%d" % len(out))], out
    return None


def _auto_entries_kept(app):
    """Deleting a secret leaves the host-policy entries its rules added."""
    seen: dict[str, dict[str, Any]] = {}
    deleted: list[bool] = []

    def answer(scope, request, status, headers, raw):
        if scope["method"] == "DELETE" and re.match(r"^/v1/secrets/[^/]+$", scope["path"]) and status == 204:
            deleted.append(True)
        elif scope["method"] == "GET" and scope["path"] == "/v1/host-policy" and raw.startswith(b"{"):
            body = orjson.loads(raw)
            rows = body.get("data") or []
            seen.update({row["host_pattern"]: row for row in rows if row.get("source") == "auto_from_secret"})
            if deleted:
                present = {row.get("host_pattern") for row in rows}
                body["data"] = rows + [row for host, row in seen.items() if host not in present]
                return _encoded(status, headers, body)
        return None

    return SharedRewrite(app, answer)


def _verify_answer(drifted: Callable[[int, Any], tuple[int, Any] | None]):
    """`POST /v1/billing/verify-subscription` answers `drifted(status, body)` where that is not None."""

    def answer(scope, request, status, headers, raw):
        if scope["method"] != "POST" or scope["path"] != "/v1/billing/verify-subscription":
            return None
        out = drifted(status, orjson.loads(raw) if raw.startswith(b"{") else None)
        if out is None:
            return None
        kept = [(k, v) for k, v in headers if k not in (b"content-type",)]
        return _encoded(out[0], [*kept, (b"content-type", b"application/json")], out[1])

    return lambda app: SharedRewrite(app, answer)


def _second_verify_conflicts():
    applied: list[bool] = []

    def drifted(status, body):
        if isinstance(body, dict) and body.get("ok") is True:
            if applied:
                return 409, {"error": "already applied"}
            applied.append(True)
        return None

    return _verify_answer(drifted)


def _pat_rotation_drops_the_secrets(app):
    """Rotating a PAT drops the provider secrets, as if they were tied to it."""
    rotated: list[bool] = []

    def answer(scope, request, status, headers, raw):
        if scope["method"] == "POST" and scope["path"].endswith(":rotate") and status == 200:
            rotated.append(True)
        elif rotated and scope["method"] == "GET" and scope["path"] == "/v1/secrets" and raw.startswith(b"{"):
            return _encoded(status, headers, {**orjson.loads(raw), "data": []})
        return None

    return SharedRewrite(app, answer)


BENCHMARK = r"^/v1/registry/benchmarks/[^/]+$"


def _derived_dropped(scope, body):
    for row in body.get("leaderboards") or []:
        row.pop("derived", None)


def _coverage_as_text(scope, body):
    for row in body.get("coverage") or []:
        row["covering_runs"] = str(row.get("covering_runs"))


def _spans_dropped(scope, body):
    body["index_spans"] = []


def _distribution_inlined(scope, body):
    body["distribution"] = [{"index": 0, "difficulty": 0.5}]


def _replay_from_the_run_sent(run, request):
    run["forked_from"] = request["replay"]["from_run"]


def _replay_other_model(run, request):
    if "model" not in request:
        run["model"] = {**run.get("model", {}), "identifier": "openai/gpt-4o"}


def _replay_keeps_parent_model(run, request):
    if "model" in request:
        run["model"] = {**run.get("model", {}), "identifier": "qwen/qwen3-32b"}


def _replay_current_size(run, request):
    run["task_count"] = (run.get("task_count") or 0) + 7


def _replay_reruns_find(run, request):
    if isinstance(run.get("phase_breakdown"), list):
        run["phase_breakdown"].insert(0, {"phase": "find", "invocation": 1, "duration_ms": 4000})


def _replay_impl_changed(scope, body):
    if body.get("forked_from") and body.get("impl_id"):
        body["impl_id"] = "imp_other:000000000000"


EVENTS = r"^/v1/runs/[^/]+/events$"


def _ids_by_seq(scope, body):
    """Event ids that name only the seq: unique within a run, shared across runs."""
    for row in body.get("data") or []:
        row["id"] = f"ev_{row.get('seq')}"


def _ids_per_read(app):
    """Each read mints the events fresh ids: the same event changes id from one poll to the next."""
    reads = iter(range(1, 1 << 30))

    def edit(scope, body):
        read = next(reads)
        for row in body.get("data") or []:
            row["id"] = f"{row.get('id')}.{read}"

    return answer(EVENTS, edit)(app)


def _polling_id_parsed(scope):
    """A polling id in Last-Event-ID is read for a seq (resuming part-way) instead of replaying the run."""
    if scope["path"].endswith("/events:stream"):
        scope["headers"] = [
            (k, b"2" if k == b"last-event-id" and not v.isdigit() else v) for k, v in scope.get("headers", [])
        ]


def _run_query(edit: Callable[[str, str], str | None]):
    """The run list's query rewritten parameter by parameter: `edit(name, value)` -> the value sent, None drops it."""

    def hook(scope):
        if scope["path"] != "/v1/runs" or scope["method"] != "GET":
            return
        query = []
        for name, value in parse_qsl(scope.get("query_string", b"").decode()):
            sent = edit(name, value)
            if sent is not None:
                query.append((name, sent))
        scope["query_string"] = urlencode(query).encode()

    return lambda app: Drifted(app, request=hook)


def _prefix(name: str, old: str, new: str):
    """`?name=old:...` is served as `?name=new:...`."""
    return _run_query(lambda key, value: new + value[len(old) :] if key == name and value.startswith(old) else value)


def _exact_ignored(name, value):
    return None if name == "status" and ":" not in value else value


def _in_first_only(name, value):
    return value.removeprefix("in:").split(",")[0] if name == "status" and value.startswith("in:") else value


def _reverse_ignored(name, value):
    return value.lstrip("-") if name == "sort" and "," not in value else value


def _later_keys_ignored(name, value):
    return value.split(",")[0] if name == "sort" else value


def _limited(limits: dict[str, Any], edit: Callable[[dict[str, Any], dict[str, Any]], None]):
    """`edit(run, request)` on each read of a run launched with exactly these `limits`."""
    return _launches(b'"limits"', lambda run, request: edit(run, request) if request.get("limits") == limits else None)


def _unhalted(run, request):
    """The run read as if no ceiling had stopped it."""
    run.update(halted=False, halt_reason=None, status="ok", display_status="ok")


def _halted_on(reason: str):
    return lambda run, request: run.update(halted=True, halt_reason=reason, status="error", display_status="halted")


def _only_find(run, request):
    run["phase_breakdown"] = [row for row in run.get("phase_breakdown") or [] if row.get("phase") == "find"]


def _cost_ceiling(edit):
    """`edit` on the reads of a run launched with a `run.cost` ceiling."""
    return _launches(
        b'"cost"',
        lambda run, request: edit(run, request) if "cost" in (request.get("limits") or {}).get("run", {}) else None,
    )


def _task_retried(scope, body):
    """Each row read with `include_retries=true` comes with the superseded try before it."""
    if b"include_retries=true" in scope.get("query_string", b""):
        body["data"] = [dict(row) for row in body.get("data") or [] for _ in range(2)]


def _linger_moved(requested: int, by_seconds: int):
    """The `ProxySandboxLinger` of a run that asked `requested` seconds grants `by_seconds` more."""

    def edit(scope, body):
        for event in body.get("data") or []:
            data = event.get("data") or {}
            if event.get("type") == "ProxySandboxLinger" and data.get("requested_seconds") == requested:
                data["granted_expires_at_ms"] += by_seconds * 1000

    return answer(EVENTS, edit)


FINISHED = re.compile(rb"(?:id: \d+\r?\n)?event: run\.finished\r?\n(?:data: [^\n]*\r?\n)*\r?\n")
SSE_ID = re.compile(rb"^id: (\d+)", re.MULTILINE)

# (kind, clause, name, wrap(app) -> app, check(url))
DRIFTS: list[tuple[str, str, str, Any, Any]] = [
    ("credentials", "§2.0#1", "api-serves-a-pat",
     lambda app: Rewrite(app, set_status(200, lambda s, st: s["path"].startswith("/api/") and st == 401)), API_PREFIX),
    ("credentials", "§2.1#1", "rotated-value-unprefixed", answer(r":rotate$", _rotated_unprefixed, "POST"), ROTATION),
    ("credentials", "§2.1#2", "rotation-answers-another-id", answer(r":rotate$", _rotated_under_another_id, "POST"),
     ROTATION),
    ("credentials", "§2.1#3", "last-used-never-set", answer(r"^/v1/tokens$", _never_used), ROTATION),
    ("teams", "§2.3#1", "secret-rotation-revokes-the-pat", _rotation_revokes_the_pat, PROVIDER_KEY),
    ("teams", "§2.5#1", "owner-without-a-team", answer(r"^/v1/teams/me$", _owner_without_team), TEAM),
    ("teams", "§2.5#2", "payer-dropped", answer(r"^/v1/secrets$", _payer_dropped), TEAM),
    ("teams", "§2.5#3", "second-team-created",
     lambda app: Rewrite(app, set_status(201, lambda s, st: s["path"] == "/v1/teams" and st == 409)), SECOND_TEAM),
    ("billing", "§3.6#1", "unknown-expand-ignored",
     lambda app: Rewrite(app, set_status(200, lambda s, st: s["path"] == "/v1/billing/balance" and st == 400)), EXPAND),
    ("billing", "§3.6#2", "expand-dropped",
     lambda app: Drifted(app, request=drop_query_parameter("expand", "/v1/billing/balance")), EXPAND),
    ("vault", "§9.2#1", "cookie-injection-accepted", lambda app: SharedRewrite(app, _cookie_rule_accepted), RULES),
    ("operators", "§12a#1", "operator-never-runs", answer(r"^/v1/operators$", _operators_never_run), OPERATOR),
    ("units", "§3.10", "list-rows-carry-inference", answer(r"^/v1/runs$", _list_rows_carry_inference), NULLS),
    ("launch", "§4.2.5#1", "two-modes-answered-422", _refusal_status(b'"request"', 422), PREFLIGHT),
    ("launch", "§4.2.5#2", "unknown-benchmark-answered-400", _refusal_status(b"no-such-benchmark", 400), PREFLIGHT),
    ("launch", "§4.2.5#3", "unknown-parent-answered-400", _refusal_status(b'"replay"', 400), PREFLIGHT),
    ("launch", "§4.2.5#4", "refusal-leaves-a-run", _refusal_creates_a_run, PREFLIGHT),
    ("cursors", "§4.5#2", "visibility-filter-ignored",
     lambda app: Drifted(app, request=drop_query_parameter("visibility", "/v1/runs")), CRAWL),
    ("credentials", "§2.4#8", "revoked-answered-as-expired", answer(r"^/v1/runs$", _revoked_as_expired), REVOKED),
    ("launch", "§4.2.1#1", "natural-language-refused", lambda app: SharedRewrite(app, _natural_language_refused),
     MODES),
    ("launch", "§4.2.2#1", "pinned-reads-another-benchmark", answer(RUN, _pinned_reads_another_benchmark), MODES),
    ("runs", "§4.4#1", "child-forks-empty", answer(RUN, _child_forks_empty), FORK),
    ("runs", "§4.4#2", "phase-breakdown-dropped", answer(RUN, _phase_breakdown_dropped), FORK),
    ("registry", "§8.7#2", "same-code-new-id", _same_code_new_id, IMPL),
    ("billing", "§10.7#2", "export-drops-a-row", lambda app: Rewrite(app, _export_drops_a_row), EXPORT),
    ("billing", "§10.7#3", "runs-export-header-renamed", lambda app: Rewrite(app, _runs_export_renamed), EXPORT),
    ("egress", "§9a.2#2", "waiting-launch-refused", _refusal_status(b'"wait_for_egress"', 412, 202), PINNED),
    ("egress", "§9a.2#3", "bare-local-egress-refused", _refusal_status(b'"local_egress"', 412, 202), PINNED),
    ("vault", "§9.5#2", "rule-route-host-not-allowed", answer(r"^/v1/host-policy$", _rule_routes_host_not_allowed),
     RULE_ROUTES),
    ("vault", "§9.5#3", "rule-delete-ignored", _rule_delete_ignored, RULE_ROUTES),
    ("billing", "§10.9#2", "free-tier-refused",
     lambda app: SharedRewrite(app, _subscription_answer(b'"free"', 402, b'{"error": "payment required"}')),
     SUBSCRIPTION),
    ("billing", "§10.9#3", "paid-tier-without-url",
     lambda app: SharedRewrite(app, _subscription_answer(b'"entry"', 200, b'{"ok": true}')), SUBSCRIPTION),
    ("runs", "§4.8#4", "fingerprint-hash-stale", answer(RUN, _fingerprint_stale), PATCH),
    ("lifecycle", "§4.6#1", "halt-leaves-the-run-unhalted",
     answer(r"/halt$", lambda s, b: b.__setitem__("halted", False), "POST"), HALT),
    ("lifecycle", "§4.6#2", "halt-drops-the-reason", answer(r"/halt$", _halt_reason_dropped, "POST"), HALT),
    ("lifecycle", "§4.11#1", "pause-without-operator-pause",
     answer(r"/pause$", lambda s, b: b.__setitem__("halt_reason", "paused") if "halt_reason" in b else None, "POST"),
     HALT),
    ("lifecycle", "§4.11#3", "resume-leaves-it-halted",
     answer(r"/resume$", lambda s, b: b.__setitem__("halted", True) if "halted" in b else None, "POST"), HALT),
    ("lifecycle", "§4.11#4", "resume-of-a-running-run-accepted",
     lambda app: Rewrite(app, set_status(200, lambda s, st: s["path"].endswith("/resume") and st == 409)), HALT),
    ("lifecycle", "§4.11#2", "second-pause-accepted",
     lambda app: Rewrite(app, set_status(200, lambda s, st: s["path"].endswith("/pause") and st == 409)), HALT),
    ("cursors", "§5.1#8", "events-default-page-100", lambda app: Drifted(app, request=_default_page_100),
     EVENT_CLAMP),
    ("streams", "§5.2#2", "sse-id-not-the-seq", lambda app: StreamRewrite(app, lambda c: SSE_ID.sub(rb"id: e\1", c)),
     STREAM),
    ("streams", "§5.2#3", "stream-without-run-finished", lambda app: StreamRewrite(app, lambda c: FINISHED.sub(b"", c)),
     STREAM),
    ("derived", "§10.1#2", "month-spent-not-the-debits",
     lambda app: Drifted(app, response=lambda s, st, h, b: (st, _month_spent_off(s, b) or b) if isinstance(b, dict)
                         else (st, b)), MONTH),
    ("launch", "§4.2.3#1", "replay-other-impl", answer(RUN, _replay_impl_changed), MODES),
    ("launch", "§4.2.3#2", "replay-from-the-fork-sent", _replays(_replay_from_the_run_sent), REPLAY),
    ("launch", "§4.2.3#3", "replay-without-model-runs-another", _replays(_replay_other_model), REPLAY),
    ("launch", "§4.2.3#4", "replay-ignores-its-model", _replays(_replay_keeps_parent_model), REPLAY),
    ("launch", "§4.2.3#5", "replay-takes-the-current-size", _replays(_replay_current_size), REPLAY),
    ("launch", "§4.2.3#6", "replay-reruns-find", _replays(_replay_reruns_find), REPLAY),
    ("streams", "§5.3#2", "event-ids-shared-across-runs", answer(EVENTS, _ids_by_seq), EVENT_IDS),
    ("streams", "§5.3#3", "event-ids-change-per-read", _ids_per_read, EVENT_IDS),
    ("streams", "§5.3#4", "polling-id-resumes-part-way", lambda app: Drifted(app, request=_polling_id_parsed),
     EVENT_IDS),
    ("filters", "§3.5#1", "exact-match-ignored", _run_query(_exact_ignored), FILTER_OPS),
    ("filters", "§3.5#2", "in-set-first-member-only", _run_query(_in_first_only), FILTER_OPS),
    ("filters", "§3.5#3", "gte-served-strict", _prefix("started_at", "gte:", "gt:"), FILTER_OPS),
    ("filters", "§3.5#4", "gt-served-inclusive", _prefix("started_at", "gt:", "gte:"), FILTER_OPS),
    ("filters", "§3.5#5", "like-ignores-case", _prefix("benchmark", "like:", "ilike:"), FILTER_OPS),
    ("filters", "§3.5#6", "ilike-minds-case", _prefix("benchmark", "ilike:", "like:"), FILTER_OPS),
    ("filters", "§3.5#7", "sort-minus-ignored", _run_query(_reverse_ignored), FILTER_OPS),
    ("filters", "§3.5#8", "later-sort-keys-ignored", _run_query(_later_keys_ignored), FILTER_OPS),
    ("launch", "§4.2.1#2", "foreign-driver-accepted", _refusal_status(b'"driver"', 400), NL_KEYS),
    ("launch", "§4.2.1#3", "foreign-phase-model-accepted", _refusal_status(b'"phase_models"', 400), NL_KEYS),
    ("launch", "§4.2.1#4", "unknown-compute-422", _refusal_status(b"no-such-backend", 422), NL_KEYS),
    ("launch", "§4.2.1#5", "backend-not-stamped", _launches(b'"compute"', _set("backend", "e2b")), NL_KEYS),
    ("launch", "§4.2.1#6", "unknown-provider-422", _refusal_status(b"no-such-provider", 422), NL_KEYS),
    ("launch", "§4.2.1#7", "unknown-aggregator-422", _refusal_status(b"no_such_aggregator", 422), NL_KEYS),
    ("launch", "§4.2.1#8", "unenforced-limit-taken", _refusal_status(b'"attempt"', 202), NL_KEYS),
    ("launch", "§4.2.1#9", "autonomous-without-model-422", _refusal_status(b'"autonomous"', 422), NL_KEYS),
    ("launch", "§4.2.1#10", "metadata-persisted", _launches(b'"ci_job"', _set("metadata", {"limit": 3})), NL_KEYS),
    ("launch", "§4.2.1#11", "operator-key-pins-the-driver",
     _launches(b'"operator"', lambda run, request: run.__setitem__("driver", request["operator"])), NL_KEYS),
    ("launch", "§4.2.1#12", "unknown-harness-422", _refusal_status(b"no-such-harness", 422), NL_KEYS),
    ("launch", "§4.2.1#13", "bridge-key-422", _refusal_status(b'"bridge"', 422), NL_KEYS),
    ("launch", "§4.2.1#14", "synonym-kept-verbatim", _launches(b'"scratch"', _set("harness", "scratch")), NL_KEYS),
    ("launch", "§4.2.1#15", "harness-not-inferred", _launches(b'"inspect_harness"', _set("harness", "benchwright")),
     NL_KEYS),
    ("launch", "§4.2.1#16", "limit-not-capping", _launches(b'"limit"', _set("task_count", 100)), NL_KEYS),
    ("launch", "§4.2.2#2", "pinned-request-not-synthetic", _launches(b'"benchmark"', _set("request", "Run it")),
     PINNED_ROW),
    ("launch", "§4.2.2#3", "bm-prefix-not-stripped", _launches(b'"benchmark"', _prefix_kept), PINNED_ROW),
    ("launch", "§4.2.4#1", "launch-mode-spelled-with-a-dash",
     _launch_answer(lambda body: body.__setitem__("mode", str(body.get("mode")).replace("_", "-"))), MODES),
    ("launch", "§4.2.4#2", "launch-answers-an-estimate",
     _launch_answer(lambda body: body.__setitem__("cost_estimate", {"amount_cents": 120})), MODES),
    ("vault", "§9.1#2", "rule-ids-prefixed", answer(r"^/v1/secrets$", _rule_ids_prefixed), RULES),
    ("vault", "§9.1#3", "injections-as-objects", answer(r"^/v1/secrets$", _injections_as_objects), RULES),
    ("artifacts", "§6.5#2", "report-needs-a-credential", lambda app: SharedRewrite(app, _report_needs_a_credential),
     CRAWL),
    ("vault", "§9.4#1", "secret-delete-answers-200",
     lambda app: Rewrite(app, set_status(200, lambda s, st: re.match(r"^/v1/secrets/[^/]+$", s["path"]) is not None
                                         and s["method"] == "DELETE" and st == 204)), RULE_ROUTES),
    ("vault", "§9.4#2", "auto-entries-kept", _auto_entries_kept, RULE_ROUTES),
    ("billing", "§10.10#2", "another-users-session-pending",
     lambda app: _verify_answer(lambda st, b: (200, {"ok": False, "reason": "pending"}) if st == 403 else None)(app),
     SUBSCRIPTION),
    ("billing", "§10.10#3", "second-verify-conflicts", lambda app: _second_verify_conflicts()(app), SUBSCRIPTION),
    ("credentials", "§2.3#2", "pat-rotation-drops-the-secrets", _pat_rotation_drops_the_secrets, ROTATION),
    ("registry", "§8.2#2", "derived-leaderboard-dropped", answer(BENCHMARK, _derived_dropped), DETAIL),
    ("registry", "§8.2#3", "covering-runs-as-text", answer(BENCHMARK, _coverage_as_text), DETAIL),
    ("registry", "§8.2#4", "index-spans-dropped", answer(BENCHMARK, _spans_dropped), DETAIL),
    ("registry", "§8.2#5", "distribution-inlined", answer(BENCHMARK, _distribution_inlined), DETAIL),
    ("launch", "§4.2.1#17", "published-run-stays-private",
     _launches(b'"publish_on_complete"', lambda run, request: run.__setitem__("visibility", "private")
               if run.get("status") == "ok" else None), NL_KEYS),
    ("launch", "§4.2.1#18", "erring-run-published",
     _launches(b'"mock_outcome"', lambda run, request: run.__setitem__("visibility", "public")
               if run.get("status") == "error" else None), NL_KEYS),
    ("limits", "§4.2.1#19", "run-ceiling-keeps-running", _limited({"run": {"duration": 1}}, _unhalted), CEILINGS),
    ("limits", "§4.2.1#20", "phase-ceiling-keeps-running", _limited({"phase": {"calls": 1}}, _unhalted), CEILINGS),
    ("limits", "§4.2.1#21", "halt-reason-in-the-old-spelling",
     _limited({"run": {"duration": 1}}, _halted_on("max_duration_exceeded")), CEILINGS),
    ("limits", "§4.2.1#22", "phase-override-ignored", _launches(b'"phase:find"', _only_find), CEILINGS),
    ("limits", "§4.2.1#23", "task-ceiling-halts-the-run",
     _launches(b'"task"', _halted_on("limit_exceeded:task.duration")), TASK_CEILINGS),
    ("limits", "§4.2.1#24", "stopped-task-retried", answer(r"/tasks$", _task_retried), TASK_CEILINGS),
    ("limits", "§4.2.1#25", "run-cost-compares-billed", _cost_ceiling(_unhalted), CEILINGS),
    ("limits", "§4.2.1#26", "max-cost-cents-read-as-dollars", _launches(b'"max_cost_cents"', _unhalted), LEGACY_LIMITS),
    ("limits", "§4.2.1#27", "max-duration-ms-read-as-seconds", _launches(b'"max_duration_ms"', _unhalted),
     LEGACY_LIMITS),
    ("limits", "§4.2.1#28", "max-tasks-ignored", _launches(b'"max_tasks"', _set("task_count", 10)), LEGACY_LIMITS),
    ("limits", "§4.2.1#29", "task-timeout-bounds-the-run",
     _launches(b'"task_timeout_sec"', _halted_on("limit_exceeded:run.duration")), TASK_CEILINGS),
    ("limits", "§4.2.1#30", "linger-an-hour-more", _linger_moved(600, 3600), LINGER),
    ("limits", "§4.2.1#31", "linger-not-clamped", _linger_moved(100000, 100000 - 86400), LINGER),
    ("limits", "§4.2.1#31", "linger-above-the-clamp-refused", _refusal_status(b"100000", 400, 202), LINGER),
    ("limits", "§4.2.1#32", "negative-linger-refused", _refusal_status(b"-5", 400, 202), LINGER),
]  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "clause", "name", "wrap", "run"), DRIFTS, ids=[f"{d[0]}:{d[1]}:{d[2]}" for d in DRIFTS]
)
def test_clause_drift_is_caught_under_its_clause(kind, clause, name, wrap, run):
    with served(wrap(create_app())) as url:
        found = caught(lambda: run(url))
    assert clause in found, f"{name}: expected a drift naming {clause}; the check named {sorted(found) or 'nothing'}"
    section = clause.partition("#")[0]
    filed = {CLAIMS[claim].section for claim in found if claim in CLAIMS}
    assert section in filed, f"{name}: {clause} is not filed under {section} (filed under {sorted(filed)})"


CHECKS = {
    "revoked": REVOKED,
    "rotation": ROTATION,
    "api-prefix": API_PREFIX,
    "event-clamp": EVENT_CLAMP,
    "modes": MODES,
    "fork": FORK,
    "patch": PATCH,
    "stream": STREAM,
    "month": MONTH,
    "halt": HALT,
    "team": TEAM,
    "second-team": SECOND_TEAM,
    "provider-key": PROVIDER_KEY,
    "expand": EXPAND,
    "rules": RULES,
    "operator": OPERATOR,
    "nulls": NULLS,
    "preflight": PREFLIGHT,
    "crawl": CRAWL,
    "subscription": SUBSCRIPTION,
    "impl": IMPL,
    "export": EXPORT,
    "pinned": PINNED,
    "rule-routes": RULE_ROUTES,
    "replay": REPLAY,
    "event-ids": EVENT_IDS,
    "filter-ops": FILTER_OPS,
    "nl-keys": NL_KEYS,
    "pinned-row": PINNED_ROW,
    "detail": DETAIL,
    "ceilings": CEILINGS,
    "task-ceilings": TASK_CEILINGS,
    "legacy-limits": LEGACY_LIMITS,
    "linger": LINGER,
}


@pytest.mark.parametrize("name", list(CHECKS))
def test_unmodified_mock_passes_the_clause_checks(name):
    with served(create_app()) as url:
        found = caught(lambda: CHECKS[name](url))
    assert not found, f"{name}: drift reported on the unmodified mock: {sorted(found)}"


def test_every_clause_check_has_a_drift():
    """Each check this file runs is proven by at least one drift it catches."""
    proven = {id(drift[4]) for drift in DRIFTS}
    assert not [name for name, run in CHECKS.items() if id(run) not in proven]
