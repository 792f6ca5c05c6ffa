"""Bench's drift catalogue clause by clause: for every clause the suite asserts (contracts/bench/clauses.py;
a claim not split there is one clause) that no drift in tests/drift/test_bench.py or test_clauses.py breaks
yet, a drift that breaks that clause alone, injected around the unmodified mock. The suite check that
asserts the clause is called directly against the drifted server and must name the clause (and its claim);
the unmodified mock passes every check used here. Test ids are `kind:clause:name`."""

from __future__ import annotations

import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import orjson
import pytest

from contracts.bench.suite import test_client_wire, test_context, test_conventions, test_datasets, test_evaluations
from contracts.bench.suite.test_conventions import SPEC_OPS
from contracts.runner.claims import clause_claim
from mock_server.app import create_app
from tests.drift import test_bench as catalogue
from tests.drift import test_clauses
from tests.drift.harness import Rewrite, caught, served
from tests.drifting import Rewrite as SharedRewrite

ENV = catalogue.ENV

# -- the checks, as the suite runs them (each against a freshly reset mock) -----------------------------------

suite, new_system, evaluable = catalogue._suite, catalogue.new_system, catalogue.evaluable
CHECKS: dict[str, Callable[[str], Any]] = {
    **catalogue.SUITE_CHECKS,
    "conventions": catalogue._conventions,
    "account": suite(lambda b, h, u: test_conventions.test_account_class_refuses_an_api_key(b)),
    "public": suite(lambda b, h, u: test_conventions.test_public_operations_need_no_credential(b)),
    "lifecycle": suite(lambda b, h, u: test_datasets.test_dataset_lifecycle(b, new_system(b))),
    "size": suite(lambda b, h, u: test_datasets.test_dataset_size_limit_on_the_server(b, new_system(b))),
    "golden": suite(lambda b, h, u: test_context.test_golden_case_and_pause(b, new_system(b), b.oauth)),
    "evaluation": suite(
        lambda b, h, u: test_evaluations.test_evaluation_lifecycle_and_allowance(
            SimpleNamespace(embedded=True), h, b, None, evaluable(b)
        )
    ),
    "limits": suite(lambda b, h, u: test_evaluations.test_exhausted_allowance_and_key_cap(h, b)),
    "providers": suite(lambda b, h, u: test_evaluations.test_plan_limited_model_providers(h, b)),
    "tracewire": suite(lambda b, h, u: test_client_wire.check_tracer_spans_make_one_trace(b)),
    "runwire": suite(lambda b, h, u: test_client_wire.check_runtime_run_polling(b, h)),
}
NEW_CHECKS = sorted(set(CHECKS) - set(catalogue.SUITE_CHECKS) - {"conventions"})

# -- rewrites ------------------------------------------------------------------------------------------------


def _bearer(scope: dict[str, Any]) -> str:
    value = dict(scope["headers"]).get(b"authorization", b"").decode()
    return value.removeprefix("Bearer ")


def error(op_id: str, status: int, code: str | None = None) -> bytes:
    """An error envelope with a code the spec documents for `op_id` under `status` (or `code`)."""
    code = code or SPEC_OPS[op_id]["x-errors"][str(status)][0]
    return orjson.dumps({"error": {"code": code, "message": "drifted", "reference": "ref_drift"}})


def refuse(pattern: str, method: str, op_id: str, status: int, when: Callable[[bytes], bool] = lambda body: True):
    """A success of `method` on `pattern` (its request body matching `when`) answered as an error."""
    rx = re.compile(pattern)

    def answer(scope, request_body, st, headers, raw):
        if scope["method"] == method and rx.search(scope["path"]) and st < 300 and when(request_body):
            out = error(op_id, status)
            kept = [(k, v) for k, v in headers if k != b"content-type"]
            return status, [*kept, (b"content-type", b"application/json")], out
        return None

    return lambda app: SharedRewrite(app, answer)


def accept(pattern: str, method: str, new: int = 200):
    """A refusal (4xx) of `method` on `pattern` answered as a success."""
    rx = re.compile(pattern)

    def hook(scope, st, headers, raw):
        hit = scope["method"] == method and rx.search(scope["path"]) and 400 <= st < 500
        return (new if hit else st), headers, raw

    return lambda app: Rewrite(app, hook)


def edit(pattern: str, fn: Callable[[Any], Any], method: str = "GET"):
    """Edit the JSON answers of `method` on `pattern` in place (`fn(body)`; what it returns is ignored)."""

    def change(scope: dict[str, Any], body: Any) -> None:
        fn(body)

    return test_clauses.json_answer(pattern, change, method)


def after(trigger: Callable[[dict[str, Any], int], bool], pattern: str, fn: Callable[[Any], None]):
    """Once a request matches `trigger(scope, status)`, every later JSON answer on `pattern` is edited by `fn`."""
    rx, seen = re.compile(pattern), [False]

    def hook(scope, st, headers, raw):
        if trigger(scope, st):
            seen[0] = True
        elif seen[0] and rx.search(scope["path"]) and raw and b"json" in dict(headers).get(b"content-type", b""):
            body = orjson.loads(raw)
            fn(body)
            raw = orjson.dumps(body)
        return st, headers, raw

    return lambda app: Rewrite(app, hook)


def posted(suffix: str) -> Callable[[dict[str, Any], int], bool]:
    return lambda scope, st: scope["method"] == "POST" and scope["path"].endswith(suffix) and st < 300


def _new_key_refused(app):
    """A key created through create_api_key is refused (401) on every data read."""
    created: set[str] = set()

    def answer(scope, request_body, st, headers, raw):
        if scope["path"] == "/api/account/api-keys" and scope["method"] == "POST" and st == 201:
            created.add(orjson.loads(raw)["key"])
        elif _bearer(scope) in created and scope["path"] == "/api/ai-systems":
            out = error("list_systems", 401, "invalid_credential")
            return 401, headers, out
        return None

    return SharedRewrite(app, answer)


def _token_logged(app):
    """The request log carries the bearer values it was sent."""
    bearers: set[str] = set()

    def answer(scope, request_body, st, headers, raw):
        if not scope["path"].startswith("/__mock"):
            bearers.add(_bearer(scope))
        elif scope["path"] == "/__mock/requests":
            body = orjson.loads(raw)
            body["data"] = [*body.get("data", []), {"authorization": sorted(b for b in bearers if b)}]
            out = orjson.dumps(body)
            return st, headers, out
        return None

    return SharedRewrite(app, answer, applies=lambda path: True)


def _padded(scope, st, headers, raw):
    """list_plans padded past 1 MB of whitespace (still valid JSON)."""
    if scope["path"] == "/api/billing/plans" and st == 200:
        raw += b" " * (1 << 20)
    return st, headers, raw


def _stream_code(scope, st, headers, raw):
    """A failing stage ends with an error event whose code the operation does not document."""
    if scope["path"].endswith("/eval-benchmark") and raw:
        lines = [orjson.loads(line) for line in raw.splitlines() if line.strip()]
        if lines and lines[-1].get("type") == "error":
            lines[-1]["code"] = "mystery"
            raw = b"\n".join(orjson.dumps(e) for e in lines) + b"\n"
    return st, headers, raw


def _status_goes_back(app):
    """A run seen `running` once reads `queued` on the next poll."""
    running: set[str] = set()

    def hook(scope, st, headers, raw):
        if scope["method"] == "GET" and re.fullmatch(r"/api/evaluation-runs/\d+", scope["path"]) and st == 200:
            body = orjson.loads(raw)
            if body["run"]["status"] == "running":
                if scope["path"] in running:
                    body["run"]["status"] = "queued"
                running.add(scope["path"])
                raw = orjson.dumps(body)
        return st, headers, raw

    return Rewrite(app, hook)


def _start_spends_nothing(app):
    """The allowance read after a start reports what it was before it."""
    return after(
        posted("/evaluation-runs/system"),
        r"^/api/evaluation-allowance$",
        lambda b: b["allowance"].__setitem__("remaining", (b["allowance"]["remaining"] or 0) + 1),
    )(app)


def _pop(*keys: str, when: str | None = None):
    def fn(body):
        err = body.get("error") or {}
        if when is None or when in err:
            for key in keys:
                err.pop(key, None)

    return fn


def _item(field: str, value: Any, source: str | None = None):
    def fn(body):
        for row in body.get("items") or []:
            if source is None or row.get("source_id") == source:
                (row["entry"] if field in ("expected", "input") else row)[field] = value

    return fn


def _future_edit(body):
    """The edit the check makes after its first run, added to every report that lacks it."""
    evidence = body.get("artifacts", {}).get("evidence")
    if evidence is not None and all(e["id"] != "manual-contract-future" for e in evidence):
        evidence.append({"id": "manual-contract-future", "text": "Answer in one sentence."})


def _key_cap_upgrade(body):
    err = body.get("error") or {}
    if "manage_key_url" in err:
        err["upgrade_url"] = "https://app.staging.usebench.ai/settings/billing/upgrade"


def _one_more_run(body):
    body["items"].append({**(body["items"] or [{}])[0], "id": 987654321})


def _publishing_starts_a_run(app):
    """After a report is published, the evaluation runs list one more run of that system."""
    published: list[int] = []

    def hook(scope, st, headers, raw):
        found = re.fullmatch(r"/api/ai-systems/(\d+)/runtime-evaluations", scope["path"])
        if found and scope["method"] == "POST" and st < 300:
            published.append(int(found.group(1)))
        elif scope["path"] == "/api/evaluation-runs" and published and st == 200:
            body = orjson.loads(raw)
            body["items"].append({**(body["items"] or [{}])[0], "id": 987654321, "ai_system_id": published[-1]})
            raw = orjson.dumps(body)
        return st, headers, raw

    return Rewrite(app, hook)


def _other_workspace_readable(app):
    """A system created in another workspace reads with the suite's key."""
    created: dict[str, Any] = {}

    def answer(scope, request_body, st, headers, raw):
        if scope["path"] == "/api/ai-systems" and scope["method"] == "POST" and st == 201:
            if _bearer(scope) != ENV["BENCH_OAUTH_TOKEN"]:
                system = orjson.loads(raw)["system"]
                created[f"/api/ai-systems/{system['id']}"] = system
        elif scope["method"] == "GET" and scope["path"] in created and st == 404:
            out = orjson.dumps({"system": created[scope["path"]]})
            return 200, headers, out
        return None

    return SharedRewrite(app, answer)


def _expired_oauth_accepted(app):
    """An OAuth credential past its lifetime still lists systems."""

    def answer(scope, request_body, st, headers, raw):
        token = _bearer(scope)
        if scope["path"] == "/api/ai-systems" and st == 401 and token.startswith("bench_dev_oauth_"):
            out = orjson.dumps({"items": [], "next_offset": None, "total": 0})
            return 200, headers, out
        return None

    return SharedRewrite(app, answer)


def _stored(body):
    body["items"] = [*body["items"], {**(body["items"] or [{}])[0], "id": "ds_preview"}]


DRIFTS = [
    # C-08, C-17, C-18, C-19, C-20, C-22: credentials and the catalog
    ("catalog", "C-08", "catalog-method-changed",
     edit(r"/headless/operations$", lambda b: b["operations"][0].__setitem__("method", "PATCH")), "catalog"),
    ("credentials", "C-17.1", "new-key-refused", _new_key_refused, "key-once"),
    ("credentials", "C-17.2", "made-up-credential-accepted",
     catalogue.bearer("bench_dev_key_contract_not_a_key", ENV["BENCH_API_KEY"]), "refused"),
    ("credentials", "C-17.3", "other-workspace-readable", _other_workspace_readable, "states"),
    ("credentials", "C-57.2", "expired-oauth-accepted", _expired_oauth_accepted, "states"),
    ("credentials", "C-18.1", "key-reads-setup-status", accept(r"^/api/getting-started$", "GET"), "account"),
    ("credentials", "C-18.2", "oauth-refused-on-keys", refuse(r"^/api/account/api-keys$", "GET", "list_api_keys", 403),
     "states"),
    ("credentials", "C-19.3", "key-lists-keys", accept(r"^/api/account/api-keys$", "GET"), "account"),
    ("credentials", "C-20.1", "exchange-mints-a-key",
     edit(r"^/api/auth/mcp-token$", lambda b: b.__setitem__("credential", ENV["BENCH_API_KEY"]), "POST"), "exchange"),
    ("credentials", "C-20.3", "expired-token-exchanged", test_clauses._exchanges(b'"authkit_growth_expired'),
     "exchange"),
    ("credentials", "C-22", "public-needs-a-credential",
     lambda app: Rewrite(app, lambda s, st, h, raw: (404, h, error("list_plans", 404, "not_found"))
                         if s["path"] == "/api/billing/plans" and b"authorization" not in dict(s["headers"])
                         else (st, h, raw)), "public"),
    # C-26 - C-32: uploads
    ("datasets", "C-26.1", "no-suggested-mapping",
     edit(r"/datasets/preview$", lambda b: b["preview"].pop("suggested_mapping"), "POST"), "lifecycle"),
    ("datasets", "C-26.2", "preview-stores-a-dataset",
     after(posted("/datasets/preview"), r"/datasets$", _stored), "lifecycle"),
    ("datasets", "C-26.3", "stale-remap-accepted", accept(r"/datasets/[^/]+/mapping$", "PUT"), "lifecycle"),
    ("datasets", "C-27", "stored-without-consent", accept(r"^/api/ai-systems/[^/]+/datasets$", "POST", 201),
     "lifecycle"),
    ("datasets", "C-28.1", "mode-not-kept",
     edit(r"/datasets/ds_[^/]+$", lambda b: b["dataset"].__setitem__("mode", "expected_only")), "form"),
    ("datasets", "C-29", "bytes-not-kept",
     edit(r"/datasets$", lambda b: "dataset" in b and b["dataset"].__setitem__("sha256", "0" * 64), "POST"),
     "lifecycle"),
    ("limits", "C-30.1", "document-at-limit-refused",
     refuse(r"/context/upload$", "POST", "upload_context_document", 413), "versioning"),
    ("limits", "C-31.1", "dataset-at-limit-refused",
     refuse(r"/datasets/preview$", "POST", "preview_dataset", 413, lambda body: len(body) > 1 << 21), "size"),
    ("limits", "C-31.2", "dataset-over-limit-accepted", accept(r"/datasets/preview$", "POST"), "size"),
    ("limits", "C-32.1", "prompts-at-limit-refused", refuse(r"^/api/prompt-scans$", "POST", "upload_prompts", 413),
     "prompts"),
    # C-33 - C-44: context writes and the test library
    ("versioned writes", "C-33", "version-a-string",
     edit(r"/context$", lambda b: b["context"].__setitem__("version", str(b["context"]["version"]))), "versioning"),
    ("versioned writes", "C-34.1", "current-write-refused",
     refuse(r"/context/sources$", "PUT", "put_context_source", 400, lambda body: b"30 days" in body), "versioning"),
    ("versioned writes", "C-39.2", "removed-source-deleted-again", accept(r"/context/sources/.+$", "DELETE"),
     "versioning"),
    ("test library", "C-38", "pause-ignored", edit(r"/test-library$", _item("enabled", True)), "golden"),
    ("test library", "C-40", "case-listed-as-criterion", edit(r"/test-library$", _item("type", "criterion")),
     "golden"),
    ("test library", "C-43", "foreign-component-accepted", accept(r"/context/sources$", "PUT"), "golden"),
    ("test library", "C-44", "expected-flattened", edit(r"/test-library$", _item("expected", "greeting")), "golden"),
    ("test library", "C-68.2", "case-not-listed", edit(r"/test-library$", lambda b: b.__setitem__(
        "items", [e for e in b["items"] if e["source_id"] != "manual-library-contract"])), "golden"),
    # C-45 - C-52: evaluations and allowance
    ("evaluation lifecycle", "C-45.2", "edit-reaches-a-finished-report",
     after(lambda s, st: s["method"] == "PUT" and st == 200, r"/artifacts$", _future_edit),
     "folds"),
    ("allowance", "C-06.2", "reads-start-a-run", after(
        lambda s, st: s["path"] == "/api/headless/capabilities", r"^/api/evaluation-runs$", _one_more_run),
     "allowance"),
    ("allowance", "C-47.1", "allowance-refused",
     refuse(r"^/api/evaluation-allowance$", "GET", "evaluation_allowance", 401), "allowance"),
    ("pagination", "C-12.1", "library-next-offset-stuck", edit(r"/test-library$", lambda b: b.__setitem__(
        "next_offset", 0)), "import"),
    ("pagination", "C-12.2", "total-off-by-one",
     edit(r"/context/sources$", lambda b: "total" in b and b.__setitem__("total", b["total"] + 1)), "pages"),
    ("evaluation lifecycle", "C-52.2", "publishing-starts-a-run", _publishing_starts_a_run, "publish"),
    # C-12.3, C-63.2, C-63.3: what the tracing client sends and the bench eval CLI reads
    ("traces", "C-12.3", "one-span-per-trace", edit(r"^/api/traces/[0-9a-f]{32}$", lambda b: b["trace"].__setitem__(
        "spans", b["trace"]["spans"][-1:])), "tracewire"),
    ("traces", "C-12.3", "environment-unread", edit(r"^/api/traces$", lambda b: b.__setitem__("items", [
        t for t in b["items"] if t["environment"] != "contract-env"])), "tracewire"),
    ("runtime runs", "C-63.2", "events-without-cursor", edit(r"/events$", lambda b: [
        e.pop("cursor") for e in b["events"]]), "runwire"),
    ("runtime runs", "C-63.2", "events-page-without-status", edit(r"/events$", lambda b: b.pop("status")),
     "runwire"),
    ("runtime runs", "C-63.3", "result-in-run-only", edit(r"/evaluation-runs/rr_[0-9]+$", lambda b: b.pop("result")),
     "runwire"),
    ("runtime runs", "C-63.3", "decision-outside-gate", edit(r"/evaluation-runs/rr_[0-9]+$", lambda b: b[
        "result"].__setitem__("decision", "adopt_candidate")), "runwire"),
    ("evaluation lifecycle", "C-48", "run-id-a-string",
     edit(r"/evaluation-runs/system$", lambda b: [r.__setitem__("id", str(r["id"])) for r in b["runs"]], "POST"),
     "evaluation"),
    ("evaluation lifecycle", "C-49", "start-spends-nothing", _start_spends_nothing, "evaluation"),
    ("evaluation lifecycle", "C-50.1", "status-goes-back", _status_goes_back, "folds"),
    ("evaluation lifecycle", "C-51.2", "incomplete-report-accepted", accept(r"/runtime-evaluations$", "POST", 201),
     "publish"),
    ("evaluation lifecycle", "C-52.1", "publishing-spends", after(
        posted("/runtime-evaluations"), r"^/api/evaluation-allowance$",
        lambda b: b["allowance"].__setitem__("used", b["allowance"]["used"] + 1)), "publish"),
    # C-53 - C-58, C-62, C-66, C-67: errors, limits, streams, secrets
    ("errors", "C-53.3", "reference-not-the-request",
     edit(r"^/api/ai-systems/987654321$", lambda b: b["error"].__setitem__("reference", "ref_other")), "refused"),
    ("errors", "C-54", "plan-limit-without-billing-url", edit(r"/evaluation-runs/system$", _pop(
        "billing_url", when="upgrade_url"), "POST"), "limits"),
    ("errors", "C-55", "payment-needs-no-confirmation", edit(r"/evaluation-runs/system$", lambda b: b.get(
        "error", {}).get("upgrade_url") and b["error"].__setitem__("payment_confirmation_required", False), "POST"),
     "limits"),
    ("errors", "C-56.1", "key-cap-without-manage-url",
     edit(r"/evaluation-runs/system$", _pop("manage_key_url", when="manage_key_url"), "POST"), "limits"),
    ("errors", "C-56.2", "key-cap-offers-an-upgrade", edit(r"/evaluation-runs/system$", _key_cap_upgrade, "POST"),
     "limits"),
    ("errors", "C-58.1", "response-over-a-megabyte", lambda app: Rewrite(app, _padded), "conventions"),
    ("streams", "C-62.2", "failure-code-undocumented", lambda app: Rewrite(app, _stream_code), "streams"),
    ("errors", "C-66", "plan-limit-without-upgrade-url",
     edit(r"/auth/me/model-providers$", _pop("upgrade_url"), "PATCH"), "providers"),
    ("non-disclosure", "C-67.2", "token-logged", _token_logged, "key-once"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "clause", "name", "wrap", "check"), DRIFTS, ids=[f"{d[0]}:{d[1]}:{d[2]}" for d in DRIFTS]
)
def test_clause_drift_is_caught(kind, clause, name, wrap, check):
    with served(wrap(create_app(api="bench"))) as url:
        found = caught(lambda: CHECKS[check](url))
    assert clause in found, f"{name}: expected a drift naming {clause}; {check} named {sorted(found) or 'nothing'}"
    assert (clause_claim(clause) or clause) in found, f"{name}: {clause} is not filed under its claim"


@pytest.mark.parametrize("check", NEW_CHECKS)
def test_unmodified_mock_passes_the_clause_checks(check):
    with served(create_app(api="bench")) as url:
        found = caught(lambda: CHECKS[check](url))
    assert not found, f"{check} reported drift on the unmodified mock: {sorted(found)}"


def test_every_check_here_has_a_drift():
    assert set(NEW_CHECKS) <= {d[4] for d in DRIFTS}
