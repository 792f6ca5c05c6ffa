"""Benchwright's per-resource drift catalogue: each drift, injected around the unmodified mock, must be
caught by the per-resource check of the claim it breaks (forks, deletes, artifacts, the registry, the
vault, billing flows, settings, operators, the event catalogue, the worked examples), under that claim.

Each case serves the drifted app once and runs only the check it targets, with the fixtures that
check asks for built as the suite builds them. `test_unmodified_mock_passes` runs every one of those
checks against the unmodified mock.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode

import orjson
import pytest

from contracts.benchwright.suite import (
    test_account_flows,
    test_artifacts,
    test_examples,
    test_local_egress,
    test_registry,
    test_run_resources,
    test_stability,
    test_vault,
)
from contracts.benchwright.suite._support import finished_run
from contracts.runner.http import SuiteClient
from contracts.runner.safety import RunPolicy
from contracts.runner.session import resolve
from mock_server.app import create_app
from tests.benchwright.drift import Drifted, drop_query_parameter
from tests.drift.harness import Rewrite, caught, on_headers, served, set_status
from tests.drift.test_benchwright import runs
from tests.drifting import Rewrite as SharedRewrite


def _check(function: Callable[..., None]) -> Callable[[str], None]:
    """Run one per-resource check against `url`, with the fixtures its signature names."""

    def run(url: str) -> None:
        target = resolve("benchwright", {"BW_API_URL": url})
        policy = RunPolicy(live=False)
        client = SuiteClient(target.base_url, policy, target.credential)
        try:
            fixtures: dict[str, Any] = {"client": client, "target": target, "policy": policy, "mock_only": None}
            kwargs = {}
            for name in inspect.signature(function).parameters:
                if name == "run_id":
                    kwargs[name] = finished_run(client, target)
                elif name == "benchmark":
                    kwargs[name] = test_registry._new_benchmark(client, policy)
                else:
                    kwargs[name] = fixtures[name]
            function(**kwargs)
        finally:
            client.close()

    return run


def _path(pattern: str) -> Callable[[dict[str, Any]], bool]:
    return lambda scope: re.search(pattern, scope["path"]) is not None


def _body(pattern: str, fn: Callable[[dict[str, Any], Any], Any], method: str | None = None):
    """A JSON rewrite of answers on paths matching `pattern` (and `method`): `fn(scope, body)`
    edits the body in place or returns a new one."""

    def hook(scope, status, headers, body):
        if re.search(pattern, scope["path"]) and (method is None or scope["method"] == method) and body is not None:
            changed = fn(scope, body)
            return status, body if changed is None else changed
        return status, body

    return lambda app: Drifted(app, response=hook)


def _status(new: int, pattern: str, old: int, method: str | None = None, query: bytes | None = None):
    def when(scope, status):
        return (
            status == old
            and re.search(pattern, scope["path"]) is not None
            and (method is None or scope["method"] == method)
            and (query is None or query in scope.get("query_string", b""))
        )

    return lambda app: Rewrite(app, set_status(new, when))


def _headers(pattern: str, fn: Callable[[dict[bytes, bytes]], None]):
    return lambda app: Rewrite(
        app, on_headers(lambda scope, status, table: fn(table) if _path(pattern)(scope) else None)
    )


def _add_query(name: str, value: str, path_suffix: str):
    def hook(scope):
        query = parse_qsl(scope.get("query_string", b"").decode())
        if scope["path"].endswith(path_suffix) and all(k != name for k, _ in query):
            scope["query_string"] = urlencode([*query, (name, value)]).encode()

    return lambda app: Drifted(app, request=hook)


# -- the rewrites --------------------------------------------------------------------------------------


def _fork_forgets_parent(row):
    if row.get("forked_from"):
        row["forked_from"] = None


def _fork_ignores_indices(row):
    if row.get("forked_from") and row.get("materialize_indices"):
        row["materialize_indices"] = "0-9"


def _fork_repins_model(row):
    if row.get("forked_from") and isinstance(row.get("model"), dict):
        row["model"]["identifier"] = "openai/gpt-4o-mini"


def _forgets_deleted_parent(row):
    if row.get("forked_from_deleted"):
        row["forked_from_deleted"] = None


def _never_cached(scope, body):
    if isinstance(body, dict) and "from_cache" in body:
        body["from_cache"] = False


def _narration_window_outside(scope, body):
    if isinstance(body, dict) and isinstance(body.get("last_seq"), int):
        body["last_seq"] += 1000


def _attempts_doubled(scope, body):
    for row in body.values() if isinstance(body, dict) else ():
        if isinstance(row, dict) and isinstance(row.get("attempts"), int):
            row["attempts"] *= 2


def _zero_filled(scope, body):
    if body == {}:
        return {"find": {"avg_ms": 0, "attempts": 0, "success": 0, "failed": 0}}
    return None


def _failed_on_ok(scope, body):
    for row in body.values() if isinstance(body, dict) else ():
        if isinstance(row, dict) and isinstance(row.get("attempts"), int):
            row["failed"] = row["attempts"] - row.get("success", 0) + 1


def _avg_off(scope, body):
    for row in body.values() if isinstance(body, dict) else ():
        if isinstance(row, dict) and isinstance(row.get("avg_ms"), int):
            row["avg_ms"] += 250


def _each_artifact(fn):
    def edit(scope, body):
        for row in (body.get("data") if isinstance(body, dict) else None) or []:
            fn(row)

    return edit


def _wrong_download_url(row):
    row["download_url"] = f"/v1/artifacts/{row['id']}/content"


def _latest_version_off(row):
    if "latest_version" in row:
        row["latest_version"] += 1


def _detail_with_version(scope, body):
    if isinstance(body, dict):
        body["version"] = 1


def _detail_size_off(scope, body):
    if isinstance(body, dict) and isinstance(body.get("size_bytes"), int):
        body["size_bytes"] += 1


def _listed_size_off(row):
    row["size_bytes"] = row["size_bytes"] + 3


def _octet_stream(table):
    if table.get(b"content-type", b"").startswith(b"application/json"):
        table[b"content-type"] = b"application/octet-stream"


def _fingerprint_not_the_runs(scope, body):
    if isinstance(body, dict) and isinstance(body.get("hash"), str):
        body["hash"] = "0" * len(body["hash"])
        for component in body.get("components") or []:
            component["cumulative_hash"] = "0" * 64


def _canonical_not_data(scope, body):
    for component in (body.get("components") if isinstance(body, dict) else None) or []:
        if isinstance(component.get("data"), dict):
            component["data"]["extra"] = "not hashed"


def _report_elsewhere(table):
    if b"location" in table:
        table[b"location"] = b"/v1/runs/elsewhere/artifacts/last/content"


def _payload_score_off(scope, body):
    if isinstance(body, dict) and isinstance(body.get("score"), int | float):
        body["score"] = body["score"] + 0.5


def _summary_run_count_off(scope, body):
    for row in (body.get("benchmarks") if isinstance(body, dict) else None) or []:
        row["runCount"] = row.get("runCount", 0) + 1


def _facets_always(scope, body):
    if isinstance(body, dict) and "benchmarks" in body:
        body.setdefault("facets", {})
        body.setdefault("agg", {})


def _detail_without_impls(scope, body):
    if isinstance(body, dict) and "impls" in body:
        body["impls"] = []


def _info_rows_off(scope, body):
    if isinstance(body, dict) and isinstance(body.get("rows"), int):
        body["rows"] += 1


def _stats_off(scope, body):
    if isinstance(body, dict) and isinstance(body.get("benchmarks"), int):
        body["benchmarks"] += 1


def _leaderboard_off(scope, body):
    for row in (body.get("data") if isinstance(body, dict) else None) or []:
        if isinstance(row.get("score"), int | float):
            row["score"] = round(row["score"] / 2, 4)


def _runs_unprojected(scope, body):
    for node in (body.get("data") if isinstance(body, dict) else None) or []:
        for subset in node.get("subsets") or []:
            subset["runs"] = []


def _unprefixed_benchmark(scope, body):
    if isinstance(body, dict) and str(body.get("id", "")).startswith("bm_"):
        body["id"] = body["id"].removeprefix("bm_")


def _always_created(scope, body):
    if isinstance(body, dict) and "created" in body:
        body["created"] = True
        body.pop("renamed_from_slug", None)


def _opaque_impl(scope, body):
    if isinstance(body, dict) and str(body.get("id", "")).startswith("imp_"):
        body["id"] = "imp_01J0000000000000000000000"


def _patch_answers_object(scope, body):
    if isinstance(body, dict) and body.get("ok") is True:
        body["name"] = "the updated object"


def _tasks_patch_new_id(scope, body):
    """Every tasks patch mints a fresh subset, even one back to a retired set."""
    if isinstance(body, dict) and str(body.get("id", "")).startswith("sub_") and "previous_id" in body:
        body["id"] = body["id"].rsplit(":", 1)[0] + ":" + "f" * 12


def _changed_keys_dropped(scope, body):
    if isinstance(body, dict):
        body.pop("changed_keys", None)


def _no_auto_entries(scope, body):
    if isinstance(body, dict) and isinstance(body.get("data"), list):
        body["data"] = [row for row in body["data"] if row.get("source") != "auto_from_secret"]


def _user_entries_withdrawn(scope, body):
    if isinstance(body, dict) and isinstance(body.get("data"), list):
        body["data"] = [row for row in body["data"] if row.get("source") != "user"]


def _blank_rule_kept(scope, body):
    for row in (body.get("data") if isinstance(body, dict) else None) or []:
        if row.get("rules"):
            row["rules"] = [*row["rules"], {**row["rules"][0], "host_pattern": ""}]


def _description_dropped(scope, body):
    for row in (body.get("data") if isinstance(body, dict) else None) or []:
        row["description"] = None


def _rule_unwrapped(scope, body):
    return body[0] if isinstance(body, list) and body else None


def _all_auto(scope, body):
    for row in (body.get("data") if isinstance(body, dict) else None) or []:
        row["source"] = "auto_from_secret"


def _default_frozen(scope, body):
    if isinstance(body, dict) and "default_mode" in body:
        body["default_mode"] = "allow"


def _default_block(scope, body):
    if isinstance(body, dict) and "default_mode" in body:
        body["default_mode"] = "block"


def _topup_amount_off(scope, body):
    if isinstance(body, dict) and isinstance(body.get("amount"), dict):
        body["amount"]["amount_cents"] += 100


def _subscription_problem(scope, body):
    if isinstance(body, dict) and "error" in body:
        body["code"] = "invalid_argument"


def _verify_claims_ok(scope, body):
    if isinstance(body, dict) and body.get("ok") is False:
        return {"ok": True}
    return None


def _trend_month_skipped(scope, body):
    months = body.get("months") if isinstance(body, dict) else None
    if months:
        months[0]["month"] = "2000-01"


def _starter_pack_as_user(scope, body):
    """The starter pack's entries listed as the user's own (the body is edited in place, never replaced)."""
    for row in body.get("data") or []:
        if row.get("source") == "starter_pack":
            row["source"] = "user"


def _heartbeat_resets_policy(scope, request, status, headers, raw):
    """A heartbeat (a registration that sends no `mode`) answers, and stores, the default `hosts` policy."""
    if scope["method"] != "POST" or scope["path"] != "/v1/egress/endpoints" or b'"mode"' in request:
        return None
    if not raw.startswith(b"{") or status >= 300:
        return None
    body = orjson.loads(raw)
    body.update(mode="hosts", allow_hosts=[])
    out = orjson.dumps(body)
    kept = [(k, v) for k, v in headers if k != b"content-length"]
    return status, [*kept, (b"content-length", str(len(out)).encode())], out


def _trend_current_first(scope, body):
    for index, row in enumerate((body.get("months") if isinstance(body, dict) else None) or []):
        row["current"] = index == 0


def _cap_ignored(scope, body):
    if isinstance(body, dict) and "monthly_cap" in body:
        body["monthly_cap"] = None


def _setting_not_persisted(scope, body):
    if isinstance(body, dict) and isinstance(body.get("data"), dict):
        body["data"].pop("score_display_format", None)


def _bug_status_new(scope, body):
    if isinstance(body, dict) and body.get("status") == "open":
        body["status"] = "new"


def _stopped_renamed(scope, body):
    for row in (body.get("data") if isinstance(body, dict) else None) or []:
        if row.get("status") == "stopped":
            row["status"] = "terminated"


def _pending_count_off(scope, body):
    if isinstance(body, dict) and isinstance(body.get("count"), int):
        body["count"] += 1


def _withdrawable_read(scope, body):
    for item in (body.get("pending") if isinstance(body, dict) else None) or []:
        item["withdrawable"] = not item.get("withdrawable")


def _each_event(fn):
    def edit(scope, body):
        for event in (body.get("data") if isinstance(body, dict) else None) or []:
            fn(event)

    return edit


def _phase_started_without_invocation(event):
    if event.get("type") == "PhaseStarted":
        event.get("data", {}).pop("invocation", None)


def _llm_call_without_cost(event):
    if event.get("type") == "LlmCallEvent":
        event.get("data", {}).pop("cost_usd", None)


def _run_launched_late(event):
    if event.get("type") == "RunLaunched":
        event["seq"] = 1


def _pass_rate_percent(scope, body):
    summary = body.get("summary") if isinstance(body, dict) else None
    if isinstance(summary, dict) and isinstance(summary.get("pass_rate"), int | float):
        summary["pass_rate"] = summary["pass_rate"] * 100


def _form_refused(path: str):
    def when(scope, status):
        content_type = dict(scope["headers"]).get(b"content-type", b"")
        return (
            scope["method"] == "POST"
            and re.search(path, scope["path"])
            and content_type.startswith(b"application/x-www")
        )

    return lambda app: Rewrite(app, set_status(415, when))


def _each_row(fn):
    def edit(scope, body):
        for row in (body.get("data") if isinstance(body, dict) else None) or []:
            fn(row)

    return edit


def _seen_reversed(row):
    if "first_seen" in row and "last_seen" in row and row["first_seen"] != row["last_seen"]:
        row["first_seen"], row["last_seen"] = row["last_seen"], row["first_seen"]


def _clear_another_host(scope):
    """`DELETE /v1/blocked-hosts?host=` answers 204 but clears nothing the caller named."""
    if scope["method"] == "DELETE" and scope["path"] == "/v1/blocked-hosts":
        scope["query_string"] = b"host=nothing.example"


def _statement_month_blanked(scope, status, headers, raw):
    """The statement names no month: every YYYY-MM in it is replaced by another month."""
    if scope["path"] == "/v1/billing/statement":
        raw = re.sub(rb"\b20\d\d-\d\d\b", b"1999-01", raw)
        headers = [(k, str(len(raw)).encode() if k == b"content-length" else v) for k, v in headers]
    return status, headers, raw


def _announce(deprecation: bytes | None, sunset: bytes | None, link: bytes | None):
    def edit(table):
        for name, value in ((b"deprecation", deprecation), (b"sunset", sunset), (b"link", link)):
            if value is not None:
                table[name] = value

    return edit


# -- the catalogue --------------------------------------------------------------------------------------

FORK = _check(test_run_resources.test_fork_derives_from_its_parent)
DELETE = _check(test_run_resources.test_delete_removes_the_run_and_adopts_its_forks)
DELETE_RUNNING = _check(test_run_resources.test_delete_of_a_running_run_kills_its_sandboxes)
PATCH = _check(test_run_resources.test_patch_takes_two_fields)
NARRATE = _check(test_run_resources.test_narration_is_opt_in_and_cached)
STATS = _check(test_run_resources.test_phase_stats_count_the_finalized_runs)
LISTING = _check(test_artifacts.test_artifact_rows_version_and_link)
DETAIL = _check(test_artifacts.test_artifact_detail_is_its_row)
CONTENT = _check(test_artifacts.test_artifact_content_matches_its_row)
FINGERPRINT = _check(test_artifacts.test_fingerprint_is_the_runs)
REPORT = _check(test_artifacts.test_report_redirects_to_the_first_report)
PAYLOAD = _check(test_artifacts.test_payload_repeats_its_row)
BEST_TRIAL = _check(test_artifacts.test_payload_defaults_to_the_best_trial)
SUMMARY = _check(test_registry.test_summary_agrees_with_the_tree)
REGISTRY_DETAIL = _check(test_registry.test_detail_lists_the_tree)
READS = _check(test_registry.test_first_class_reads_agree)
PUBLISH = _check(test_registry.test_publish_shortcut)
CREATE_BENCHMARK = _check(test_registry.test_created_benchmark)
CREATE_SUBSET = _check(test_registry.test_subsets_are_content_addressed)
CREATE_IMPL = _check(test_registry.test_impls_are_content_addressed)
UPDATE = _check(test_registry.test_patches_answer_an_ack)
BUILD = _check(test_registry.test_build_edits_version_as_documented)
HANDLES = _check(test_registry.test_build_handles_resolve_or_refuse)
RULES = _check(test_vault.test_inline_rules_validate_and_allow_their_hosts)
ROTATION = _check(test_vault.test_rotation_and_relabel)
RULE_ROUTES = _check(test_vault.test_rule_routes_and_delete_withdraw_entries)
HOST_POLICY = _check(test_vault.test_host_policy_sources_and_default)
FRESH_DEFAULT = _check(test_vault.test_fresh_account_defaults_to_allow)
EGRESS = _check(test_vault.test_egress_fingerprint_shape)
BOUNDS = _check(test_account_flows.test_topup_bounds)
TOPUP = _check(test_account_flows.test_paid_topup_succeeded)
EXPORT = _check(test_account_flows.test_export_is_the_ledger)
STATEMENT = _check(test_account_flows.test_statement_is_html_for_the_month)
SUBSCRIPTION = _check(test_account_flows.test_subscription_and_verification)
CONTROLS = _check(test_account_flows.test_controls_are_what_the_balance_reports)
TREND = _check(test_account_flows.test_usage_trend_shape)
SETTINGS = _check(test_account_flows.test_settings_keys_and_validation)
BUG_REPORT = _check(test_account_flows.test_bug_report)
OPERATOR = _check(test_account_flows.test_operator_lifecycle)
EVENTS = _check(test_examples.test_events_carry_their_documented_fields)
CI_GATE = _check(test_examples.test_ci_gate_example)
FORK_EXAMPLE = _check(test_examples.test_fork_example)
REGISTRATION = _check(test_local_egress.test_registration_is_signed_and_heartbeats_keep_policy)
PINNED = _check(test_local_egress.test_pinned_launch_needs_a_serving_machine)
SERVING = _check(test_local_egress.test_serving_loop_routes_and_blocked_hosts)
DEPRECATION = _check(test_stability.test_deprecations_are_announced_whole)

RUN = r"^/v1/runs/[^/:]+$"

DRIFTS: list[tuple[str, str, str, Any, Any]] = [
    # runs (§4.3, §4.7–§4.10)
    ("fork-forgets-its-parent", "runs", "runs.fork", runs(_fork_forgets_parent), FORK),
    ("fork-ignores-indices", "runs", "§4.3#3", runs(_fork_ignores_indices), FORK),
    ("fork-repins-the-model", "runs", "§4.3#3", runs(_fork_repins_model), FORK),
    ("fork-without-description-accepted", "runs", "§4.3#1", _status(202, r"/fork$", 400), FORK),
    ("benchwright-harness-forked", "runs", "§4.3#4", _status(202, r"/fork$", 409), FORK),
    ("deleted-run-events-readable", "runs", "runs.delete", _status(200, r"/events$", 404), DELETE),
    ("deleted-run-record-readable", "runs", "runs.delete", _status(200, RUN, 404, "GET"), DELETE),
    ("adoption-forgets-provenance", "runs", "§4.7#3", runs(_forgets_deleted_parent), DELETE),
    ("delete-not-an-operator-kill", "runs", "§4.7#2",
     _body(RUN, lambda s, b: b.__setitem__("halt_reason", "deleted") if "deleted" in b else None, "DELETE"), DELETE),
    ("adoption-miscounted", "runs", "§4.7#3",
     _body(RUN, lambda s, b: b.__setitem__("events_adopted", b.get("events_adopted", 0) + 1), "DELETE"), DELETE),
    ("teardown-kills-nothing", "runs", "§4.7#2",
     _body(RUN, lambda s, b: b.__setitem__("sandboxes_killed", 0), "DELETE"), DELETE_RUNNING),
    ("root-reparented", "runs", "§4.7#3",
     _body(RUN, lambda s, b: b.__setitem__("reparented_to", "00000000-0000-0000-0000-000000000000"), "DELETE"),
     DELETE_RUNNING),
    ("metadata-patchable", "runs", "runs.patch", _status(200, RUN, 400, "PATCH"), PATCH),
    ("public-while-running", "runs", "§4.8#2", _status(200, RUN, 409, "PATCH"), PATCH),
    ("unlisted-hidden-from-anonymous", "runs", "§4.8#3",
     lambda app: Rewrite(app, set_status(404, lambda s, st: st == 200 and re.search(RUN, s["path"]) is not None
                                          and b"authorization" not in dict(s["headers"]))), PATCH),
    ("narration-not-opt-in", "runs", "runs.narrate", _status(200, r"/narrate$", 204), NARRATE),
    ("anonymous-narration-gated", "runs", "§4.9#5",
     lambda app: Rewrite(app, set_status(204, lambda s, st: s["path"].endswith("/narrate")
                                          and b"authorization" not in dict(s["headers"]))), NARRATE),
    ("narration-never-cached", "runs", "§4.9#4", _body(r"/narrate$", _never_cached), NARRATE),
    ("narration-window-past-the-run", "runs", "§4.9#3", _body(r"/narrate$", _narration_window_outside),
     NARRATE),
    ("slice-unchecked", "runs", "§4.9#2", _status(200, r"/narrate$", 400), NARRATE),
    ("attempts-double-counted", "derived", "runs.phase_stats", _body(r":phase-stats$", _attempts_doubled), STATS),
    ("stats-zero-filled", "derived", "§4.10#4", _body(r":phase-stats$", _zero_filled), STATS),
    ("failed-counted-on-ok-runs", "derived", "§4.10#3", _body(r":phase-stats$", _failed_on_ok), STATS),
    ("avg-ms-off", "derived", "§4.10#2", _body(r":phase-stats$", _avg_off), STATS),
    # artifacts and payloads (§6, §7.2)
    ("download-url-elsewhere", "artifacts", "artifacts.listing",
     _body(r"/artifacts$", _each_artifact(_wrong_download_url)), LISTING),
    ("latest-version-off", "artifacts", "§6.1#3",
     _body(r"/artifacts$", _each_artifact(_latest_version_off)), LISTING),
    ("versioned-row-without-version", "artifacts", "§6.1#3",
     _body(r"/artifacts$", _each_artifact(lambda row: row.pop("version", None))), LISTING),
    ("detail-carries-version", "artifacts", "artifacts.detail", _body(r"/artifacts/[^/]+$", _detail_with_version),
     DETAIL),
    ("detail-size-differs", "artifacts", "§6.2#2", _body(r"/artifacts/[^/]+$", _detail_size_off), DETAIL),
    ("content-as-octet-stream", "artifacts", "artifacts.content", _headers(r"/content$", _octet_stream), CONTENT),
    ("listed-size-off", "artifacts", "§6.3#3", _body(r"/artifacts$", _each_artifact(_listed_size_off)),
     CONTENT),
    ("fingerprint-not-the-runs", "artifacts", "artifacts.fingerprint",
     _body(r"/fingerprint$", _fingerprint_not_the_runs), FINGERPRINT),
    ("canonical-not-its-data", "artifacts", "§6.4#2", _body(r"/fingerprint$", _canonical_not_data),
     FINGERPRINT),
    ("report-redirects-elsewhere", "artifacts", "artifacts.report", _headers(r"/report$", _report_elsewhere), REPORT),
    ("payload-score-differs", "tasks", "tasks.payload", _body(r"/payload$", _payload_score_off), PAYLOAD),
    ("raw-0-ignored", "tasks", "§7.2#2",
     lambda app: Drifted(app, request=drop_query_parameter("raw", "/payload")), PAYLOAD),
    ("trial-pin-ignored", "tasks", "tasks.best_trial",
     lambda app: Drifted(app, request=drop_query_parameter("trial", "/payload")), BEST_TRIAL),
    ("payload-is-the-first-trial", "tasks", "tasks.best_trial", _add_query("trial", "0", "/payload"), BEST_TRIAL),
    # registry (§8)
    ("summary-run-count-off", "registry", "registry.summary",
     _body(r"^/v1/registry/benchmarks$", _summary_run_count_off), SUMMARY),
    ("facets-without-counts", "registry", "§8.1#2", _body(r"^/v1/registry/benchmarks$", _facets_always),
     SUMMARY),
    ("detail-drops-impls", "registry", "registry.detail",
     _body(r"^/v1/registry/benchmarks/[^/]+$", _detail_without_impls), REGISTRY_DETAIL),
    ("dataset-info-rows-off", "registry", "§8.3#2", _body(r"/dataset/info$", _info_rows_off), READS),
    ("stats-count-off", "registry", "registry.reads", _body(r"^/v1/registry/stats$", _stats_off), READS),
    ("leaderboard-not-the-best", "registry", "§8.3#3", _body(r"/leaderboard$", _leaderboard_off), READS),
    ("dataset-inline", "registry", "§8.3#2",
     _headers(r"/dataset$", lambda t: t.pop(b"content-disposition", None)), READS),
    ("publish-defaults-unlisted", "registry", "registry.publish",
     _body(r"/publish$", lambda s, b: b.__setitem__("visibility", "unlisted") if "visibility" in b else None), PUBLISH),
    ("publish-drops-fingerprint", "registry", "§8.4#3",
     _body(r"/publish$", lambda s, b: b.pop("fingerprint_hash", None) and None), PUBLISH),
    ("publish-not-projected", "registry", "§8.4#4",
     _body(r"^/v1/registry/benchmarks$", _runs_unprojected), PUBLISH),
    ("publish-of-a-running-run", "registry", "§8.4#2", _status(200, r"/publish$", 409), PUBLISH),
    ("benchmark-id-unprefixed", "registry", "registry.create_benchmark",
     _body(r"^/v1/benchmarks$", _unprefixed_benchmark), CREATE_BENCHMARK),
    ("benchmark-visibility-public", "registry", "§8.5#2",
     _body(r"^/v1/benchmarks$", lambda s, b: b.__setitem__("visibility", "public")), CREATE_BENCHMARK),
    ("same-tasks-new-row", "registry", "registry.create_subset", _body(r"/subsets$", _always_created, "POST"),
     CREATE_SUBSET),
    ("frozen-accepts-appends", "registry", "§8.6#3", _status(200, r"/tasks:append$", 409),
     CREATE_SUBSET),
    ("impl-id-opaque", "registry", "registry.create_impl", _body(r"^/v1/impls$", _opaque_impl), CREATE_IMPL),
    ("patch-answers-the-object", "registry", "registry.update",
     _body(r"^/v1/benchmarks/[^/]+$", _patch_answers_object, "PATCH"), UPDATE),
    ("official-accepted", "registry", "§8.8#2", _status(200, r"^/v1/impls/", 403, "PATCH"), UPDATE),
    ("subset-reopened", "registry", "§8.8#3", _status(200, r"^/v1/subsets/[^/]+$", 400, "PATCH"), UPDATE),
    ("recipe-change-unreported", "registry", "registry.build", _body(r"/recipe$", _changed_keys_dropped), BUILD),
    ("retired-subset-editable", "registry", "§8.9#2", _status(200, r"/build/subsets/.+/tasks$", 409), BUILD),
    ("revival-mints-a-third", "registry", "§8.9#3",
     _body(r"/build/subsets/.+/tasks$", _tasks_patch_new_id, "PATCH"), BUILD),
    ("ambiguous-name-picks-one", "registry", "§8.9#4", _status(200, r"^/v1/build/subsets/", 409, "GET"),
     HANDLES),
    ("not-authored-as-not-found", "registry", "§8.9#4",
     _body(r"^/v1/build/subsets/", lambda s, b: b.__setitem__("code", "not_found") if b.get("code") == "not_authored"
           else None), HANDLES),
    ("task-cap-unenforced", "registry", "§8.6#2", _status(201, r"/subsets$", 400, "POST"),
     CREATE_SUBSET),
    # vault (§9, §9a)
    ("rule-host-not-allowed", "vault", "§9.2#3", _body(r"^/v1/host-policy$", _no_auto_entries), RULES),
    ("blank-rule-kept", "vault", "§9.2#2", _body(r"^/v1/secrets$", _blank_rule_kept, "GET"), RULES),
    ("name-conflict-renamed", "vault", "§9.2#4",
     _body(r"^/v1/secrets$", lambda s, b: b.__setitem__("code", "conflict") if b.get("code") == "name_conflict"
           else None), RULES),
    ("relabel-ignored", "vault", "§9.3#2", _body(r"^/v1/secrets$", _description_dropped, "GET"), ROTATION),
    ("rotation-answers-the-secret", "vault", "secrets.rotation",
     _body(r"^/v1/secrets/[^/]+$", lambda s, b: b.__setitem__("name", "X"), "PATCH"), ROTATION),
    ("rule-as-an-object", "vault", "secrets.rule_routes", _body(r"/rules$", _rule_unwrapped, "POST"), RULE_ROUTES),
    ("user-entry-withdrawn", "vault", "secrets.delete", _body(r"^/v1/host-policy$", _user_entries_withdrawn),
     RULE_ROUTES),
    ("source-mislabelled", "vault", "host_policy.rules", _body(r"^/v1/host-policy$", _all_auto), HOST_POLICY),
    ("starter-pack-miscounted", "vault", "§9.6#3",
     _body(r":starter-pack$", lambda s, b: b.__setitem__("added", b.get("added", 0) + 1)), HOST_POLICY),
    ("starter-pack-as-user", "vault", "§9.6#3", _body(r"^/v1/host-policy$", _starter_pack_as_user), HOST_POLICY),
    ("default-mode-frozen", "vault", "host_policy.default", _body(r"^/v1/host-policy$", _default_frozen),
     HOST_POLICY),
    ("default-mode-block", "vault", "host_policy.default", _body(r"^/v1/host-policy$", _default_block),
     FRESH_DEFAULT),
    ("egress-id-unchecked", "vault", "egress.registration", _status(201, r"^/v1/egress/endpoints$", 400), EGRESS),
    ("heartbeat-resets-policy", "egress", "§9a.1#2", lambda app: SharedRewrite(app, _heartbeat_resets_policy),
     REGISTRATION),
    ("fingerprint-repointed", "egress", "§9a.1#3", _status(200, r"^/v1/egress/endpoints$", 409),
     REGISTRATION),
    ("offline-reads-online", "egress", "§9a.1#4",
     _body(r"^/v1/egress/endpoints$", _each_row(lambda row: row.__setitem__("online", True)), "GET"), REGISTRATION),
    ("down-machine-accepted", "egress", "egress.launch", _status(202, r"^/v1/runs$", 412, "POST"), PINNED),
    ("pending-without-policy", "egress", "egress.serving",
     _body(r"/local-egress/pending$", lambda s, b: b.pop("allow_hosts", None) and None), SERVING),
    ("status-leaks-connection", "egress", "§9a.3#2",
     _body(r"^/v1/local-egress/les_[^/]+$", lambda s, b: b.__setitem__("connection", {"url": "wss://x"})), SERVING),
    ("routes-all-direct", "egress", "egress.routes",
     _body(r"/egress-routes$", _each_row(lambda row: row.__setitem__("route", "direct"))), SERVING),
    ("routes-seen-reversed", "egress", "§9a.4#2", _body(r"/egress-routes$", _each_row(_seen_reversed)),
     SERVING),
    ("home-denials-as-proxy", "vault", "blocked_hosts.log",
     _body(r"^/v1/runs/[^/]+/blocked-hosts$", _each_row(lambda row: row.__setitem__("source", "proxy"))), SERVING),
    ("denial-count-lost", "vault", "blocked_hosts.log",
     _body(r"^/v1/runs/[^/]+/blocked-hosts$", _each_row(lambda row: row.__setitem__("seen_count", 1))), SERVING),
    ("clear-ignored", "vault", "§9.7#2", lambda app: Drifted(app, request=_clear_another_host), SERVING),
    # billing flows (§10)
    ("topup-unbounded", "billing", "billing.topup_bounds", _status(200, r"^/v1/billing/topups$", 400), BOUNDS),
    ("topup-amount-off", "billing", "billing.topup", _body(r"^/v1/billing/topups/", _topup_amount_off), TOPUP),
    ("bare-topup-id-refused", "billing", "§10.3#2",
     lambda app: Rewrite(app, set_status(404, lambda s, st: st == 200 and re.search(r"/topups/[0-9a-f]{8}-", s["path"])
                                          is not None)), TOPUP),
    ("export-inline", "billing", "billing.export",
     _headers(r"^/v1/billing/export$", lambda t: t.pop(b"content-disposition", None)), EXPORT),
    ("statement-as-text", "billing", "billing.statement",
     _headers(r"/statement$", lambda t: t.__setitem__(b"content-type", b"text/plain")), STATEMENT),
    ("subscription-problem-json", "billing", "billing.subscription",
     _body(r"/subscription$", _subscription_problem), SUBSCRIPTION),
    ("verify-claims-ok", "billing", "billing.verify", _body(r"/verify-subscription$", _verify_claims_ok),
     SUBSCRIPTION),
    ("trend-month-skipped", "billing", "billing.trend", _body(r"/usage-trend$", _trend_month_skipped), TREND),
    ("trend-current-first", "billing", "§10.6#3", _body(r"/usage-trend$", _trend_current_first), TREND),
    ("trend-previous-off", "billing", "§10.6#3",
     _body(r"/usage-trend$", lambda s, b: b.__setitem__("previous_month_cents", b["previous_month_cents"] + 5)), TREND),
    ("cap-ignored", "billing", "billing.controls", _body(r"^/v1/billing/balance$", _cap_ignored), CONTROLS),
    # settings, bug reports, operators (§11, §12, §12a)
    ("any-key-writable", "settings", "settings.keys", _status(200, r"/settings/not_a_setting$", 400), SETTINGS),
    ("setting-not-persisted", "settings", "settings.roundtrip", _body(r"^/v1/settings$", _setting_not_persisted),
     SETTINGS),
    ("bug-report-status-new", "bug reports", "bug_reports.create", _body(r"^/v1/bug-reports$", _bug_status_new),
     BUG_REPORT),
    ("bug-report-unbounded", "bug reports", "§12#2", _status(201, r"^/v1/bug-reports$", 400),
     BUG_REPORT),
    ("operator-name-reused", "operators", "§12a#3", _status(200, r"^/v1/operators$", 409, "POST"),
     OPERATOR),
    ("shutdown-renames-status", "operators", "§12a#5", _body(r"^/v1/operators$", _stopped_renamed),
     OPERATOR),
    ("pending-count-off", "operators", "operators.pending", _body(r"/pending$", _pending_count_off), OPERATOR),
    ("withdrawn-twice", "operators", "§12a#7", _status(200, r"/pending/[^/]+$", 404, "DELETE"), OPERATOR),
    ("stop-not-acknowledged", "operators", "§12a#4",
     _body(r"/stop$", lambda s, b: b.__setitem__("ok", False)), OPERATOR),
    ("withdrawable-inverted", "operators", "§12a#6", _body(r"/pending$", _withdrawable_read), OPERATOR),
    # the event catalogue and the worked examples (§15, §16)
    ("phase-started-without-invocation", "events", "events.catalog",
     _body(r"/events$", _each_event(_phase_started_without_invocation)), EVENTS),
    ("llm-call-without-cost", "events", "events.catalog", _body(r"/events$", _each_event(_llm_call_without_cost)),
     EVENTS),
    ("run-launched-not-first", "events", "events.catalog", _body(r"/events$", _each_event(_run_launched_late)),
     EVENTS),
    ("curl-body-refused", "examples", "examples.ci_gate", _form_refused(r"^/v1/runs$"), CI_GATE),
    ("curl-secret-body-refused", "examples", "examples.ci_gate", _form_refused(r"^/v1/secrets$"), CI_GATE),
    ("topup-without-url", "examples", "examples.ci_gate",
     _body(r"^/v1/billing/topups$", lambda s, b: b.pop("url", None) and None, "POST"), CI_GATE),
    ("pass-rate-as-percent", "examples", "examples.ci_gate", _body(r"/tasks$", _pass_rate_percent), CI_GATE),
    ("deprecation-without-sunset", "stability", "§17#2",
     _headers(r"^/v1/runs$", _announce(b"true", None, None)), DEPRECATION),
    ("sunset-not-a-date", "stability", "§17#2",
     _headers(r"^/v1/runs$", _announce(b"true", b"next year", b'<https://benchwright.ai/d>; rel="deprecation"')),
     DEPRECATION),
    ("sunset-without-deprecation-link", "stability", "deprecation.headers",
     _headers(r"^/v1/settings$", _announce(None, b"Tue, 01 Jan 2027 00:00:00 GMT", None)), DEPRECATION),
    ("curl-fork-body-refused", "examples", "examples.fork", _form_refused(r"/fork$"), FORK_EXAMPLE),
    ("deprecation-without-link", "stability", "§17#3",
     _headers(r"^/v1/runs$", _announce(b"true", b"Tue, 01 Jan 2027 00:00:00 GMT", None)), DEPRECATION),
    ("topup-answers-no-url", "billing", "§10.2#2",
     _body(r"^/v1/billing/topups$", lambda s, b: b.pop("url", None) and None, "POST"), BOUNDS),
    ("statement-of-another-month", "billing", "§10.8#2", lambda app: Rewrite(app, _statement_month_blanked), STATEMENT),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "kind", "claim", "wrap", "check"), DRIFTS, ids=[f"{d[1]}:{d[2]}:{d[0]}" for d in DRIFTS]
)
def test_drift_is_caught_and_names_its_claim(name, kind, claim, wrap, check):
    with served(wrap(create_app())) as url:
        found = caught(lambda: check(url))
    assert claim in found, f"{name}: expected a drift under {claim!r}; the check reported {sorted(found) or 'nothing'}"


CHECKS = {
    name: value
    for name, value in globals().items()
    if name.isupper() and callable(value) and name not in ("RUN", "DRIFTS", "CHECKS")
}


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_unmodified_mock_passes(check):
    """Every per-resource check finds nothing on the unmodified mock (no false positive)."""
    with served(create_app()) as url:
        found = caught(lambda: CHECKS[check](url))
    assert not found, f"{check} reported drift on the unmodified mock: {sorted(found)}"


def test_every_check_has_a_drift():
    """Each per-resource check is proven by at least one drift it catches."""
    proven = {id(drift[4]) for drift in DRIFTS}
    unproven = sorted(name for name, check in CHECKS.items() if id(check) not in proven)
    assert not unproven, f"checks without a drift: {unproven}"
