"""The evaluation lifecycle with allowance accounting (C-47–C-52, C-54, C-56). Evaluations spend: against a
live target these run only with --allow-spend; the limit checks need the mock's control surface."""

from __future__ import annotations

import json
import time

import pytest

from contracts.runner.waits import poll
from mock_server.apis import bundle

from .test_conventions import check

BUNDLE = bundle("bench")
WAITS = BUNDLE["x-waits"]
STATUSES = set(BUNDLE["components"]["schemas"]["EvaluationRun"]["properties"]["status"]["enum"])
TERMINAL = {"completed", "failed", "canceled"}
PLAN_FIELDS = {"pricing_url", "upgrade_url", "billing_url", "payment_confirmation_required"}


def allowance(bench, token="key") -> dict:
    r = bench.call("evaluation_allowance", token=token)
    check("evaluation_allowance", r)
    return r.json()["allowance"]


def started(bench, sid: int) -> list[int]:
    """The ids of the system's evaluation runs, the active ones included (other systems' runs may start
    meanwhile on a shared live account)."""
    r = bench.call("list_evaluations", query={"include_active": True})
    check("list_evaluations", r)
    return [run["id"] for run in r.json()["items"] if run.get("ai_system_id") == sid]


def wait_terminal(target, http, bench, run_id: int) -> dict:
    """Poll get_evaluation (C-50) until the run ends, within the spec's `x-waits` bound: the mock's clock is
    advanced, a live target is polled for real; a status outside the lifecycle, or none terminal at the
    bound, is drift."""

    def fetch() -> dict:
        r = bench.call("get_evaluation", path={"id": run_id})
        check("get_evaluation", r)
        return r.json()["run"]

    def advance(seconds: float) -> None:
        http.post("/__mock/clock", json={"advance_seconds": seconds})

    return poll(
        fetch,
        lambda run: run["status"],
        done=TERMINAL,
        known=STATUSES,
        bound=WAITS["evaluation_seconds"],
        step=WAITS["poll_seconds"],
        drift=lambda detail: bench.drift("C-50.1", f"GET evaluation-runs/{run_id}", detail),
        advance=advance if target.embedded else None,
    )


@pytest.fixture
def evaluable_system(bench, system_id):
    comp = bench.call(
        "register_prompts",
        path={"id": system_id},
        body={
            "repo_full_name": "uploads",
            "branch": "main",
            "prompts": [{"name": "contract prompt", "path": "contract.txt", "line": 1, "content": "Say hi."}],
        },
    )
    check("register_prompts", comp)
    component_id = comp.json()["components"][0]["id"]
    version = bench.call("get_system_context", path={"id": system_id}).json()["context"]["version"]
    case = {
        "id": "manual-library-eval",
        "kind": "user",
        "category": "examples_feedback",
        "scope": "case",
        "case_id": "manual-library-eval",
        "text": json.dumps(
            {"type": "case", "component_id": component_id, "enabled": True, "input": "hi", "expected": "hello"}
        ),
    }
    check(
        "put_context_source",
        bench.call("put_context_source", path={"id": system_id}, body={"expected_version": version, "source": case}),
    )
    return system_id, version + 1


def test_evaluation_lifecycle_and_allowance(target, http, bench, spends, evaluable_system):
    """C-47, C-48, C-49, C-50.1, C-46.1, C-52.1: allowance -> start (uses one) -> poll to terminal -> artifacts at the
    version it started with; publishing spends nothing."""
    sid, version = evaluable_system
    before = allowance(bench)
    r = bench.call("start_system_evaluation", body={"ai_system_id": sid})
    check("start_system_evaluation", r)
    runs = r.json()["runs"]
    if not runs or not isinstance(runs[0].get("id"), int):
        raise bench.drift("C-48", "POST evaluation-runs/system", f"no run id: {r.text[:200]}")
    after = allowance(bench)
    if before["remaining"] is not None and after["remaining"] != before["remaining"] - 1:
        raise bench.drift(
            "C-49", "GET evaluation-allowance", f"remaining {before['remaining']} -> {after['remaining']}"
        )
    # an edit after the start must not reach this run's report (C-45)
    bench.call("delete_context_source", path={"id": sid, "sourceID": "manual-library-eval"})
    run = wait_terminal(target, http, bench, runs[0]["id"])
    r = bench.call("get_evaluation_artifacts", path={"id": run["id"]})
    check("get_evaluation_artifacts", r)
    art = r.json()["artifacts"]
    if art["context_version"] != version or "manual-library-eval" not in {e["id"] for e in art["evidence"]}:
        raise bench.drift(
            "C-46.1", "GET evaluation-runs/{id}/artifacts", "the report lost the evidence it started with"
        )
    published = bench.call(
        "publish_runtime_evaluation",
        path={"id": sid},
        body={
            "schema_version": 1,
            "execution_mode": "application_runtime",
            "cases": [],
            "summary": {"status": "completed"},
        },
    )
    check("publish_runtime_evaluation", published)
    if allowance(bench) != allowance(bench) or allowance(bench)["used"] != after["used"]:
        raise bench.drift("C-52.1", "POST runtime-evaluations", "publishing moved the allowance")


def test_exhausted_allowance_and_key_cap(embedded, bench):
    """C-54 (all four fields) at an exhausted allowance, C-55 (paying needs the developer's confirmation);
    C-56.1, C-56.2 (manage_key_url, no upgrade fields) at a key's cap."""
    account = embedded.post("/__mock/accounts", json={"plan": "free", "allowance": 1}).json()
    token = embedded.post("/__mock/tokens", json={"account_id": account["id"], "kind": "oauth"}).json()["token"]
    sid = bench.call("create_system", body={"name": "spend"}, token=token).json()["system"]["id"]
    comp = bench.call(
        "register_prompts", path={"id": sid}, token=token, body={"prompts": [{"name": "p", "content": "x"}]}
    )
    cid = comp.json()["components"][0]["id"]
    case = {
        "id": "manual-library-1",
        "kind": "user",
        "category": "examples_feedback",
        "scope": "case",
        "text": json.dumps({"type": "case", "component_id": cid, "input": "a", "expected": "b"}),
    }
    bench.call("put_context_source", path={"id": sid}, token=token, body={"expected_version": 0, "source": case})
    first = bench.call("start_system_evaluation", body={"ai_system_id": sid}, token=token)
    second = bench.call("start_system_evaluation", body={"ai_system_id": sid}, token=token)
    check("start_system_evaluation", second)
    error = second.json().get("error", {})
    if first.status_code != 201 or second.status_code != 402 or not set(error) >= PLAN_FIELDS:
        raise bench.drift("C-54", "POST evaluation-runs/system", f"exhausted: {second.status_code} {error}")
    # paying is the developer's choice: the plan limit asks for confirmation and nothing was bought (C-55)
    plan = (bench.call("capabilities", token=token).json().get("plan") or {}).get("id")
    if error["payment_confirmation_required"] is not True or plan != "free":
        confirm = error["payment_confirmation_required"]
        raise bench.drift(
            "C-55", "POST evaluation-runs/system", f"confirmation required {confirm!r}; plan now {plan!r}"
        )
    capped = bench.call("start_system_evaluation", body={"ai_system_id": 123}, token="bench_dev_key_growth_capped")
    again = bench.call("start_system_evaluation", body={"ai_system_id": 123}, token="bench_dev_key_growth_capped")
    check("start_system_evaluation", again)
    error = again.json().get("error", {})
    if capped.status_code != 201 or "manage_key_url" not in error:
        raise bench.drift("C-56.1", "POST evaluation-runs/system", f"key cap: {again.status_code} {error}")
    if PLAN_FIELDS & set(error):
        raise bench.drift("C-56.2", "POST evaluation-runs/system", f"a key cap offers an upgrade: {error}")


def test_plan_limited_model_providers(embedded, bench):
    """C-66: set_model_providers on Free is a plan limit with the upgrade link."""
    r = bench.call("set_model_providers", body={"providers": ["openai"]}, token="bench_dev_key_free")
    check("set_model_providers", r)
    if r.status_code != 402 or not r.json()["error"].get("upgrade_url"):
        raise bench.drift("C-66", "PATCH auth/me/model-providers", f"answered {r.status_code}")


ORDER = {"queued": 0, "running": 1, "completed": 2, "failed": 2, "canceled": 2}


def check_status_folds_and_future_runs(bench, advance, sid: int, version: int) -> None:
    """`advance()` lets simulated (or real) time pass between polls."""
    r = bench.call("start_system_evaluation", body={"ai_system_id": sid})
    check("start_system_evaluation", r)
    run = r.json()["runs"][0]
    if run["status"] not in ("queued", "running"):
        raise bench.drift("C-63.1", "POST evaluation-runs/system", f"the start answered a run already {run['status']}")
    early = bench.call("get_evaluation_artifacts", path={"id": run["id"]})
    check("get_evaluation_artifacts", early)
    if early.status_code != 409:
        raise bench.drift(
            "C-50.2",
            "GET evaluation-runs/{id}/artifacts",
            f"artifacts of a {run['status']} run answered {early.status_code}",
            bench.curl("get_evaluation_artifacts", {"id": run["id"]}),
        )
    seen = [run["status"]]
    for _ in range(200):
        r = bench.call("get_evaluation", path={"id": run["id"]})
        check("get_evaluation", r)
        status = r.json()["run"]["status"]
        if ORDER.get(status, -1) < ORDER[seen[-1]] or (ORDER[seen[-1]] == 2 and status != seen[-1]):
            raise bench.drift("C-50.1", "GET evaluation-runs/{id}", f"status went {' -> '.join([*seen, status])}")
        seen.append(status)
        if ORDER[status] == 2:
            break
        advance()
    else:
        raise bench.drift("C-50.1", "GET evaluation-runs/{id}", f"never finished: {seen[-1]}")
    first = bench.call("get_evaluation_artifacts", path={"id": run["id"]}).json()["artifacts"]
    # an edit after the first run reaches the next run only (C-45)
    current = bench.call("get_system_context", path={"id": sid}).json()["context"]["version"]
    edit = {
        "id": "manual-contract-future",
        "kind": "user",
        "category": "rules_constraints",
        "scope": "system",
        "text": "Answer in one sentence.",
    }
    r = bench.call("put_context_source", path={"id": sid}, body={"expected_version": current, "source": edit})
    check("put_context_source", r)
    r = bench.call("start_system_evaluation", body={"ai_system_id": sid})
    check("start_system_evaluation", r)
    second = r.json()["runs"][0]
    if second.get("context_version") not in (None, current + 1):
        raise bench.drift(
            "C-45.1", "POST evaluation-runs/system", f"a new run took version {second['context_version']}"
        )
    for _ in range(200):
        if bench.call("get_evaluation", path={"id": second["id"]}).json()["run"]["status"] in ("completed", "failed"):
            break
        advance()
    art = bench.call("get_evaluation_artifacts", path={"id": second["id"]}).json()["artifacts"]
    if edit["id"] not in {e["id"] for e in art["evidence"]}:
        raise bench.drift("C-45.1", "GET evaluation-runs/{id}/artifacts", "an edit did not reach the next evaluation")
    again = bench.call("get_evaluation_artifacts", path={"id": run["id"]}).json()["artifacts"]
    if again["evidence"] != first["evidence"] or edit["id"] in {e["id"] for e in again["evidence"]}:
        raise bench.drift("C-45.2", "GET evaluation-runs/{id}/artifacts", "an edit reached a historical report")


def check_published_report_is_kept_whole(bench, sid: int) -> None:
    report = {
        "schema_version": 1,
        "execution_mode": "application_runtime",
        "environment": "contract-suite",
        "cases": [{"id": "case-1", "input": {"q": "refund?"}, "output": "yes", "passed": True, "scores": [0.5, 1]}],
        "summary": {"status": "completed", "passed": 1, "failed": 0},
    }
    before = allowance(bench)
    runs = started(bench, sid)
    r = bench.call("publish_runtime_evaluation", path={"id": sid}, body=report)
    check("publish_runtime_evaluation", r)
    if r.status_code not in (200, 201):
        raise bench.drift("C-51.1", "POST runtime-evaluations", f"a complete report answered {r.status_code}")
    r = bench.call("list_runtime_evaluations", path={"id": sid}, query={"environment": "contract-suite"})
    check("list_runtime_evaluations", r)
    kept = [row.get("report") for row in r.json()["items"]]
    if report not in kept:
        raise bench.drift("C-51.1", "GET runtime-evaluations", "the published report does not read back as sent")
    incomplete = bench.call("publish_runtime_evaluation", path={"id": sid}, body={"summary": {}})
    check("publish_runtime_evaluation", incomplete)
    if incomplete.status_code != 400:
        raise bench.drift(
            "C-51.2", "POST runtime-evaluations", f"an incomplete report answered {incomplete.status_code}"
        )
    after = allowance(bench)
    if after["used"] != before["used"]:
        raise bench.drift("C-52.1", "POST runtime-evaluations", f"publishing spent: {before} -> {after}")
    if started(bench, sid) != runs:
        raise bench.drift("C-52.2", "POST runtime-evaluations", "publishing a report started an evaluation")


def test_status_folds_and_edits_reach_future_runs(target, http, bench, spends, evaluable_system):
    """C-63.1, C-50.1, C-50.2, C-45.1, C-45.2: a start answers a queued run (background work), artifacts wait
    for the end, the status only moves forward, and a context edit reaches the next run but not a finished report."""
    sid, version = evaluable_system

    def advance():
        if target.embedded:
            http.post("/__mock/clock", json={"advance_seconds": 20})
        else:
            time.sleep(10)

    check_status_folds_and_future_runs(bench, advance, sid, version)


def test_published_report_is_kept_whole(bench, system_id):
    """C-51.1, C-51.2, C-52.1, C-52.2: publish_runtime_evaluation keeps the complete report as sent, refuses a
    partial one, spends nothing and starts nothing."""
    check_published_report_is_kept_whole(bench, system_id)
